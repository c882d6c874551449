"""The standings a running server keeps: rebuilt from its archive at start, in a process of
its own (Principle 8: the game's loop does only the game), then updated on the loop as
each game ends (one openskill update: some tens of microseconds).

Games that end while the rebuild runs wait, and are counted once it is done; a `standings`
request meanwhile is answered when it is done. A rebuild that fails is logged, and the
standings are refused (`no_standings`) rather than shown from part of the archive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import sys

from protocol import ProtocolError, server_messages
from protocol.constants import STANDINGS_PAGE
from server.ratings.skill import NEW, PROVISIONAL_GAMES, Rating
from server.ratings.standings import Row, Standings
from server.store.outcomes import OutcomeStore
from server.tables.outcome import Outcome
from server.tables.players import PlayerId, is_bot

log = logging.getLogger("gother.server")


class HostStandings:
    def __init__(self, db: str, outcomes: OutcomeStore) -> None:
        self.db = db
        self.outcomes = outcomes
        self.standings: Standings | None = None
        self.waiting: list[Outcome] = []  # games that ended during the rebuild
        self.failed = False
        self.rebuilt: asyncio.Task[None] | None = None
        self.child: asyncio.subprocess.Process | None = None

    def start(self) -> None:
        if not self.outcomes.has_games():  # a new host: no process to start
            self.standings = Standings()
            return
        self.rebuilt = asyncio.get_running_loop().create_task(self._rebuild())

    async def _rebuild(self) -> None:
        # A process of our own (`python -m server.ratings.archive DB`, its answer pickled on
        # its stdout): it shares nothing with this one but the database file, and a server
        # going down ends it.
        try:
            self.child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.ratings.archive",
                self.db,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
            )
            answer, _ = await self.child.communicate()
            if self.child.returncode != 0:
                raise RuntimeError(f"the rebuild exited with {self.child.returncode}")
            standings = pickle.loads(answer)
        except (OSError, RuntimeError, pickle.UnpicklingError, EOFError) as exc:
            log.error("the standings could not be rebuilt from the archive: %s", exc)
            self.failed = True
            return
        for outcome in self.waiting:
            standings.add(outcome)
        self.standings, self.waiting = standings, []
        log.info("standings rebuilt: %d players", len(standings.records))

    @property
    def rebuilding(self) -> bool:
        return self.standings is None and not self.failed

    async def when_rebuilt(self) -> None:
        if self.rebuilt is not None:
            await asyncio.shield(self.rebuilt)

    def game_over(self, outcome: Outcome) -> None:
        if self.standings is None:
            self.waiting.append(outcome)
        else:
            self.standings.add(outcome)  # counted once, however often it is told

    def rating(self, player: PlayerId) -> Rating:
        """A player's rating (the tournaments' last tie-break); while the rebuild runs,
        everyone's is a new player's."""
        return NEW if self.standings is None else self.standings.ratings[player]

    def page(self, offset: int, rid: int | None) -> server_messages.Standings:
        if self.standings is None:
            raise ProtocolError(
                "no_standings", "the standings could not be rebuilt; the host's log says why"
            )
        rows = self.standings.rows()
        return server_messages.Standings(
            rows=tuple(_row(row) for row in rows[offset : offset + STANDINGS_PAGE]),
            offset=offset,
            total=len(rows),
            provisional_games=PROVISIONAL_GAMES,
            rid=rid,
        )

    async def close(self) -> None:
        """Stop a rebuild still running, and end its process before the loop closes (a
        process left to the garbage collector warns, after the loop is gone, from inside
        whatever code then runs)."""
        if self.rebuilt is not None:
            self.rebuilt.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.rebuilt
        if self.child is not None and self.child.returncode is None:
            self.child.kill()
            await self.child.wait()


def _row(row: Row) -> server_messages.StandingsRow:
    return server_messages.StandingsRow(
        player=row.player,
        name=row.name,
        bot=is_bot(row.player),
        reference=row.rating.anchor,
        mu=round(row.rating.mu, 3),
        sigma=round(row.rating.sigma, 3),
        provisional=row.rating.provisional,
        rating=row.rating.shown,
        spread=row.rating.spread,
        games=row.record.games,
        wins=row.record.wins,
        places=tuple(row.record.places),
        last_seen=row.record.last_seen,
    )
