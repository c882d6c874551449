"""Hints: the strongest bot's move for a seat now, and why, from that seat's own view only.

`advise` searches for a fifth of a second, so it runs in a worker process of the server's
searches (server/searches.py): the game's process keeps serving every table meanwhile, and
the reply comes when the search is done. One hint is thought at a time for a connection; a
hint the pool could not answer in time is refused at once (`busy`), or once it has waited
too long to begin, and one whose worker died answers `search_failed`.
"""

from __future__ import annotations

import asyncio

from protocol import ProtocolError, server_messages
from server.bots.advise import Advice
from server.bots.jobs import HintSearch
from server.game import Game, View, view
from server.searches import Busy, Searches, SearchFailed
from server.tables.table import Peer, Table


def asked(table: Table, seat: int) -> View:
    """The view a hint for `seat` is thought from; refused at once if there is nothing to
    hint at. No log: the view itself says what a reshuffled draw pile holds."""
    if table.game is None or table.game.over:
        raise ProtocolError("not_started", "there is no game in progress")
    info, seats = table.lobby_facts()  # the players' names, for the reason's words
    seen = view(table.game, seat, log_size=0, table=info, seats=seats)
    if seen.legal is None:
        raise ProtocolError("not_your_turn", "there is no decision of yours to hint at")
    return seen


class Hints:
    """The hints being thought, one a connection (so that one connection cannot fill the
    searches' queue), so a server going down can call them off."""

    def __init__(self, searches: Searches) -> None:
        self.searches = searches
        self.thinking: dict[Peer, asyncio.Task[None]] = {}

    def ask(self, table: Table, seat: int, peer: Peer, rid: int | None) -> None:
        """Answer `peer` with a `hint` for `seat`, or an `error` if the game moved on."""
        if peer in self.thinking:
            raise ProtocolError("rate_limited", "a hint is on its way: wait for it")
        seen = asked(table, seat)
        assert table.game is not None  # `asked` refuses a table without a game
        try:
            answer = self.searches.submit(HintSearch(seen, table.deck, table.seq))
        except Busy as exc:
            msg = f"too many hints asked at once ({exc}): ask again soon"
            raise ProtocolError("busy", msg) from None
        at = (table.game, len(table.game.events))
        task = asyncio.get_running_loop().create_task(self._think(table, answer, at, peer, rid))
        self.thinking[peer] = task
        task.add_done_callback(lambda _: self.thinking.pop(peer, None))

    async def _think(
        self,
        table: Table,
        answer: asyncio.Future[Advice],
        at: tuple[Game, int],
        peer: Peer,
        rid: int | None,
    ) -> None:
        try:
            advice = await answer
        except Busy as exc:  # overtaken by the tables' searches until too late
            message = f"the searches are too far behind ({exc}): ask again soon"
            peer.send(server_messages.Error(code="busy", message=message, rid=rid))
            return
        except SearchFailed as exc:
            message = f"no hint this time ({exc}): ask again"
            peer.send(server_messages.Error(code="search_failed", message=message, rid=rid))
            return
        game, events = at
        if table.game is not game or len(game.events) != events:
            peer.send(
                server_messages.Error(
                    code="not_your_turn", message="the game moved on before the hint", rid=rid
                )
            )
            return
        peer.send(server_messages.Hint(move=advice.move, reason=advice.reason, rid=rid))

    def close(self) -> None:
        for task in self.thinking.values():
            task.cancel()
