"""Hints: the judge's verdict on a seat's decision now, and why, from that seat's own view.

The search (server/bots/advise.py) costs about half a second of a core, so it runs in a
worker process of the server's searches (server/searches.py): the game's process keeps
serving every table meanwhile. A position always gets the same hint (Principle 11), so a
hint is kept by its position (`seed_of`: the facts of the view the search reads) and asked
again, or asked by another seat in the same position, it is answered at once; two asking
the same position while it is thought wait for one search.

A hint not thought within PATIENCE is answered `thinking` and thought on: asked again, it
comes from what is kept (clients ask again by themselves). A hint may wait HINT_WAIT behind
the searches ahead of it; past that, or with the queue full, it is refused at once (`busy`),
or once it has waited too long to begin. One hint is asked at a time by a connection; a
search whose worker died answers `search_failed`. Every hint given is written with the
game before it is sent (`Table.hinted`): a review says which moves were the hint's own
advice.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from protocol import ProtocolError, server_messages
from server.bots.advise import Advice
from server.bots.jobs import HintSearch
from server.bots.position import seed_of
from server.game import Game, View, view
from server.searches import Busy, Searches, SearchFailed
from server.tables.table import Peer, StoreFailed, Table

PATIENCE = 0.9  # seconds a hint is waited for before the answer is `thinking` (issue 30 §1)
HINT_WAIT = 4.0  # seconds a hint may expect to wait behind the searches ahead of it
KEPT = 4096  # hints kept by position, the newest (a few hundred bytes each)

Key = tuple[int, tuple[str | None, ...]]  # a position's seed, and the names its reason says


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
    """The hints kept by position, those being thought, and who waits for which."""

    def __init__(self, searches: Searches) -> None:
        self.searches = searches
        self.kept: OrderedDict[Key, Advice] = OrderedDict()
        self.thought: dict[Key, asyncio.Future[Advice]] = {}
        self.asking: dict[Peer, asyncio.Task[None]] = {}  # one hint a connection at a time

    def ask(self, table: Table, seat: int, peer: Peer, rid: int | None) -> None:
        """Answer `peer` with a `hint` for `seat` (now if it is kept), or `thinking`, or an
        `error` if the game moved on."""
        if peer in self.asking:
            raise ProtocolError("rate_limited", "a hint is on its way: wait for it")
        seen = asked(table, seat)
        assert table.game is not None  # `asked` refuses a table without a game
        # The reason names the players: the same position at another table is kept apart.
        key = (seed_of(seen, table.deck), tuple(p.name for p in seen.players))
        kept = self.kept.get(key)
        if kept is not None:
            self.kept.move_to_end(key)
            give(table, seat, peer, rid, kept)
            return
        answer = self.thought.get(key)
        if answer is None:
            try:
                answer = self.searches.submit(HintSearch(seen, table.deck), wait=HINT_WAIT)
            except Busy as exc:
                msg = f"too many hints asked at once ({exc}): ask again soon"
                raise ProtocolError("busy", msg) from None
            self.thought[key] = answer
            answer.add_done_callback(lambda done: self._thought(key, done))
        at = (table.game, len(table.game.moves))
        task = asyncio.get_running_loop().create_task(
            self._wait(table, seat, answer, at, peer, rid)
        )
        self.asking[peer] = task
        task.add_done_callback(lambda _: self.asking.pop(peer, None))

    def _thought(self, key: Key, done: asyncio.Future[Advice]) -> None:
        """A search is done: keep its hint for whoever asks that position next."""
        self.thought.pop(key, None)
        if done.cancelled() or done.exception() is not None:
            return
        self.kept[key] = done.result()
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)

    async def _wait(
        self,
        table: Table,
        seat: int,
        answer: asyncio.Future[Advice],
        at: tuple[Game, int],
        peer: Peer,
        rid: int | None,
    ) -> None:
        try:
            advice = await asyncio.wait_for(asyncio.shield(answer), PATIENCE)
        except TimeoutError:  # thought on, and kept: the next ask is answered at once
            message = "still thinking about this position: ask again in a moment"
            peer.send(server_messages.Error(code="thinking", message=message, rid=rid))
            return
        except Busy as exc:  # overtaken by the tables' searches until too late
            message = f"the searches are too far behind ({exc}): ask again soon"
            peer.send(server_messages.Error(code="busy", message=message, rid=rid))
            return
        except SearchFailed as exc:
            message = f"no hint this time ({exc}): ask again"
            peer.send(server_messages.Error(code="search_failed", message=message, rid=rid))
            return
        game, moves = at
        if table.game is not game or len(game.moves) != moves:
            peer.send(
                server_messages.Error(
                    code="not_your_turn", message="the game moved on before the hint", rid=rid
                )
            )
            return
        try:
            give(table, seat, peer, rid, advice)
        except StoreFailed as exc:
            peer.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))

    def close(self) -> None:
        for task in self.asking.values():
            task.cancel()
        for answer in self.thought.values():
            answer.cancel()


def give(table: Table, seat: int, peer: Peer, rid: int | None, advice: Advice) -> None:
    """Send `advice` to `peer` as the hint for `seat`'s decision now, kept with the game
    first (StoreFailed: not sent)."""
    table.hinted(seat, advice.move)
    peer.send(
        server_messages.Hint(
            move=advice.move,
            reason=advice.reason,
            win=advice.win,
            goth=advice.goth,
            versus=advice.versus,
            versus_win=advice.versus_win,
            versus_goth=advice.versus_goth,
            rid=rid,
        )
    )
