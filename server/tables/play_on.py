"""Play on from here (`play_on`, issue 22 §3): a new table of the asker's, whose first game
starts at a turn of a finished game as one seat knew it, with bots in the other seats.

Replaying the finished game to that turn and sampling the cards the seat could not see is a
job for the searches' workers (server/bots/jobs.py `PlayOnDeal`), off the game's loop
(Principle 8); one at a time a connection. Its answer, a `Start` and the new game's seed,
comes back to the loop, where the table is made and dealt from that start: stored like any
deal, so the game replays exactly after a restart (Principle 3).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable

from protocol import ProtocolError, server_messages
from protocol.constants import SEED_BITS
from server.bots.jobs import PlayOnDeal
from server.game import Start
from server.searches import Busy, Searches, SearchFailed
from server.store.outcomes import OutcomeStore
from server.store.tables import GameArchive, TableRecord
from server.tables.review import finished_game
from server.tables.table import Peer

# What the server does with a sampled start: make the table, seat the asker, deal.
Then = Callable[[TableRecord, int, Start, int], None]


class PlayOns:
    def __init__(self, archive: GameArchive, outcomes: OutcomeStore, searches: Searches) -> None:
        self.archive = archive
        self.outcomes = outcomes
        self.searches = searches
        self.asking: dict[Peer, asyncio.Task[None]] = {}  # one a connection at a time

    def ask(
        self,
        table_id: str,
        game_no: int,
        seat: int,
        turn: int,
        peer: Peer,
        rid: int | None,
        then: Then,
    ) -> None:
        """Sample the start of a game played on from `turn` of that game as `seat` knew it,
        then `then(source, seat, start, seed)` on the loop; any refusal goes to `peer`."""
        self.check_free(peer)
        played = finished_game(self.archive, self.outcomes, table_id, game_no, seat)
        source = self.archive.table(table_id)
        job = PlayOnDeal(played, seat, turn, secrets.randbits(SEED_BITS))
        try:
            answer = self.searches.submit(job)
        except Busy as exc:
            raise ProtocolError("busy", f"the searches are full ({exc}): ask again soon") from None
        task = asyncio.get_running_loop().create_task(
            self._answer(answer, source, seat, peer, rid, then)
        )
        self.asking[peer] = task
        task.add_done_callback(lambda _: self.asking.pop(peer, None))

    async def _answer(
        self,
        answer: asyncio.Future[tuple[Start, int] | str],
        source: TableRecord,
        seat: int,
        peer: Peer,
        rid: int | None,
        then: Then,
    ) -> None:
        try:
            try:
                dealt = await answer
            except Busy as exc:  # overtaken by the tables' searches until too late
                raise ProtocolError("busy", f"the searches are too far behind ({exc})") from None
            except SearchFailed as exc:
                raise ProtocolError("search_failed", f"that failed ({exc}): ask again") from None
            if isinstance(dealt, str):
                raise ProtocolError("no_such_turn", dealt)
            then(source, seat, *dealt)
        except ProtocolError as exc:
            peer.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))

    def check_free(self, peer: Peer) -> None:
        """One a connection at a time, and only while the searches have room: refused
        before anything is read for it (a flood's requests cost the loop next to nothing)."""
        if peer in self.asking:
            raise ProtocolError("rate_limited", "a game to play on is on its way: wait for it")
        try:
            self.searches.check_room()
        except Busy as exc:
            raise ProtocolError("busy", f"the searches are full ({exc}): ask again soon") from None

    def close(self) -> None:
        for task in self.asking.values():
            task.cancel()
