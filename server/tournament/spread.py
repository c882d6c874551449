"""A tournament round's tables spread over a host's processes (issue 34 §2; docs/
architecture.md, "A round's tables spread over the processes").

A host of several processes (PostgreSQL) makes each table of a round whose players proved
identities at the process holding the fewest tables (`where`): placed there (server/store/
placements.py), made there (`make_placed`), its players connected anywhere called to it
(server/edge/elsewhere.py), and its end heard through PostgreSQL (`ended_elsewhere`,
`gone_elsewhere`), which the director running the tournament is told (`Runner`). The round
waits for each table placed elsewhere (`place`); one that is not made there in time is made
at the runner. A round's table is made by one function (`deal`) at its runner and at the
process it was placed at alike. A host of one process (SQLite) places nothing: every table
is made at the runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from protocol import requests as rq
from server.bots.registry import kind_of
from server.store.database import StoreError, StoreUnavailable
from server.store.outcomes import OutcomeStore
from server.store.placements import Placement, Placements
from server.tables.lobby import Lobby
from server.tables.outcome import Outcome
from server.tables.players import PlayerId, identity_in
from server.tables.table import Peer, Table

log = logging.getLogger("gother.server")
T = TypeVar("T")

LOOK = 2.0  # seconds between two looks at a round's tables placed elsewhere, if not woken
PLACED_WAIT = 10.0  # seconds a round waits for a table placed elsewhere, then makes it here


class Runner(Protocol):
    """The director, as the spread tells it of the tables of the rounds it runs."""

    def playing(self) -> set[str]:
        """The tables of the round each tournament run here plays now."""
        ...

    def unscored(self, table_id: str) -> bool:
        """Whether `table_id` seats a round run here whose game's end is not known yet."""
        ...

    def ended(self, table_id: str, outcome: Outcome | None) -> None:
        """A table of a round run here, held elsewhere, is over: scored by its `outcome`
        (None: ended unplayed, counting for nobody)."""
        ...


@dataclass(eq=False)
class _Absent:
    """A registered player with no connection now, seated all the same (a bot covers)."""

    name: str

    def send(self, message: Any) -> None:
        pass


class Spread:
    def __init__(
        self,
        lobby: Lobby,
        placements: Placements | None,
        outcomes: OutcomeStore,
        seated: Callable[[Peer, Table, int, str], None],
        runner: Runner,
    ) -> None:
        self.lobby = lobby
        self.placements = placements  # a round's tables placed at the host's processes
        self.outcomes = outcomes  # how a table held elsewhere ended
        self.seated = seated  # tell a connected player the seat (and token) they were given
        self.runner = runner  # told of its tables' ends heard from elsewhere
        # a connection here of an identity's, between games: seated at a table placed here
        self.present: Callable[[str], Peer | None] = lambda identity: None

    # -- where a round's tables are made -----------------------------------------------------

    def loads(self) -> dict[str, int]:
        """The tables each live process of the host holds ({}: a host of one process, or
        PostgreSQL cannot say: every table is made here). A read on the loop, as the
        tournaments' writes are, once a round."""
        if self.placements is None:
            return {}
        try:
            loads = self.placements.loads()
        except StoreUnavailable:
            return {}
        return loads | {self.placements.process: len(self.lobby.tables)}

    def where(self, loads: dict[str, int], players: tuple[PlayerId, ...]) -> str | None:
        """Where a table of the round is made: at the process holding the fewest tables
        (ties: here), counting those of the round placed so far; None: here. Its players
        are seated by identity there, and called to it wherever they are connected, so a
        table with one who proved none is made here."""
        if not loads or self.placements is None:
            return None
        here = self.placements.process
        if any(identity_in(p) is None for p in players):
            loads[here] += 1
            return None
        fewest = min(loads, key=lambda process: (loads[process], process != here))
        loads[fewest] += 1
        return None if fewest == here else fewest

    async def place(
        self, placed: list[tuple[str, Placement]], opened: Callable[[Placement, str | None], T]
    ) -> dict[int, T]:
        """Place these tables of the round at their processes, and wait for each to be
        made there (woken when one is, and every LOOK seconds); one that could not be
        placed, or whose process went or did not make it within PLACED_WAIT seconds (no
        room there), is made here. Each is `opened` as soon as that is known: with the id
        of the table made there, or None to make it here. The round's tables by number."""
        assert self.placements is not None
        placements = self.placements
        tournament, round_no = placed[0][1].tournament, placed[0][1].round
        waiting = {p.number: (process, p) for process, p in placed}
        if self.lobby.elsewhere is not None:  # the last round's standings reach its players
            await self.lobby.elsewhere.publish()  # at other processes before this round seats
        try:
            placements.place(placed)
        except StoreError as exc:
            log.error("tournament %s: tables not placed (%s): made here", tournament, exc)
            waiting = {}
        tables = {p.number: opened(p, None) for process, p in placed if p.number not in waiting}
        late = asyncio.get_running_loop().time() + PLACED_WAIT
        while waiting:
            await self._woken()
            try:
                answers = placements.answers(tournament, round_no)
                live = placements.loads()
            except StoreUnavailable:
                continue
            for number, (process, p) in list(waiting.items()):
                table_id = answers.get(number)
                if table_id is None:
                    if number in answers and (
                        (asyncio.get_running_loop().time() < late and process in live)
                        or not _withdrawn(placements, p)
                    ):
                        continue  # being made there, or just made (read next time)
                    log.warning("tournament %s: round %d table %d made here, not at %s",
                                tournament, round_no, number, process)  # fmt: skip
                tables[number] = opened(p, table_id)
                del waiting[number]
        return tables

    async def _woken(self) -> None:
        """Until the host's lobby is read again (a table placed elsewhere was made there,
        or a renewal), or LOOK seconds."""
        elsewhere = self.lobby.elsewhere
        if elsewhere is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(elsewhere.read_again(), LOOK)

    # -- their ends, heard from elsewhere ----------------------------------------------------

    def ended_elsewhere(self, outcome: Outcome | None) -> None:
        """A game another process ended (None: what they said cannot be known, so every
        table of a round placed elsewhere is looked at): a table of a round run here is
        scored, as one here is when it changes."""
        if outcome is not None:
            if outcome.game == 1:
                self.runner.ended(outcome.table, outcome)
            return
        self.gone_elsewhere(self.runner.playing())

    def gone_elsewhere(self, table_ids: Collection[str]) -> None:
        """Tables of rounds run here, held at another process (or listed there no more):
        one whose game was played out is scored, if that was not heard yet; one no process
        holds live any more ended otherwise (its players voted to end it, it expired) and
        is over, its game counting for nobody; one still listed, or held by a process that
        died until its tables are taken over, is being played."""
        elsewhere = self.lobby.elsewhere
        for table_id in table_ids:
            if not self.runner.unscored(table_id) or table_id in self.lobby.tables:
                continue
            ended = self.outcomes.outcome(table_id, 1)
            if ended is not None:
                self.runner.ended(table_id, Outcome.from_json(table_id, 1, ended))
            elif (elsewhere is None or elsewhere.where(table_id) is None) and (
                self.held_elsewhere(table_id) is False
            ):
                self.runner.ended(table_id, None)

    def held_elsewhere(self, table_id: str) -> bool | None:
        """Whether a process of the host holds `table_id` live (a table placed there, or
        taken over); None: a host of one process, or PostgreSQL cannot say now."""
        if self.placements is None:
            return None
        try:
            return bool(self.placements.live([table_id]))
        except StoreUnavailable:
            return None

    def rounds_placed(self, table_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The tournament and round of each of these tables that was made as placed ({}: a
        host of one process) (StoreUnavailable)."""
        return {} if self.placements is None else self.placements.rounds_of(table_ids)

    # -- a round's table, made ---------------------------------------------------------------

    def make_placed(self, placement: Placement) -> Table:
        """A table of a round another process of the host runs, placed here (this process
        held the fewest tables): made and dealt, its players connected here seated at once,
        as the runner seats its own, the others' seats held by their identity until they
        come to it (a bot covers after the grace). Its runner hears its end as the host's
        every process does (server/store/ended.py)."""
        identities = [identity_in(PlayerId(player)) for player, _ in placement.players]
        table = self.deal(placement, [None if i is None else self.present(i) for i in identities])
        log.info("tournament %s: round %d table %d placed here: %s", placement.tournament,
                 placement.round, placement.number, table.id)  # fmt: skip
        return table

    def deal(self, placement: Placement, peers: Sequence[Peer | None]) -> Table:
        """Make a round's table here and deal it: each player seated by their identity,
        on `peers`' connection (seat by seat), or held for them while they are not here."""
        table = self.lobby.create(
            rq.Create(
                name=placement.name,
                seats=placement.seats,
                bots=0,
                variants=placement.variants,
                bot=kind_of(placement.bot_kind),
            )
        )
        table.tournament = placement.tournament, placement.round  # called to it elsewhere
        table.deal_seed = placement.seed  # duplicate: every table the same cards, seat by seat
        for seat, ((player, name), peer) in enumerate(zip(placement.players, peers, strict=True)):
            identity = identity_in(PlayerId(player))
            if peer is None:
                _hold(table, seat, name, identity)
            else:
                _, token = table.join(peer, seat, identity)
                self.seated(peer, table, seat, token)
        table.add_bots(placement.seats - len(placement.players))
        self.lobby.start_if_full(table)
        return table


def _withdrawn(placements: Placements, placement: Placement) -> bool:
    try:
        return placements.withdraw(placement)
    except StoreUnavailable:
        return False  # looked at again next time


def _hold(table: Table, seat: int, name: str, identity: str | None) -> None:
    """Seat a player who is not here, held by their identity: away from the start, so a bot
    covers after the grace."""
    absent = _Absent(name)
    table.join(absent, seat, identity)
    table.disconnected(absent)
