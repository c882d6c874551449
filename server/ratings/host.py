"""The standings a running server keeps: rebuilt from its archive at start, in a process of
its own (Principle 8: the game's loop does only the game), then updated on the loop as
each game ends (one openskill update: some tens of microseconds).

Games that end while the rebuild runs wait, and are counted once it is done; a `standings`
request meanwhile is answered when it is done. A rebuild that fails is logged, and the
standings are refused (`no_standings`) rather than shown from part of the archive.

With the host's other processes (PostgreSQL, server/store/ended.py), their games are added
as they are heard ending; whenever what they said cannot be known (the first listen, a
listener that lost its connection), the standings are rebuilt again, the listener listening
first, so that nothing ending meanwhile is missed; the former ones are shown till then.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import pickle
import sys
from collections.abc import Callable

from protocol import ProtocolError, server_messages
from protocol.constants import STANDINGS_PAGE
from server.ratings.skill import NEW, PROVISIONAL_GAMES, Rating
from server.ratings.standings import Row, Standings
from server.store.ended import Ended, HeardEnd
from server.store.outcomes import OutcomeStore
from server.tables.outcome import Outcome
from server.tables.players import PlayerId, is_bot

log = logging.getLogger("gother.server")

HEARD_WAIT = 2.0  # seconds the listener's thread waits at a time (and so stops within)
AGAIN = 5.0  # seconds before a rebuild that failed is tried again, with other processes


class HostStandings:
    def __init__(self, db: str, outcomes: OutcomeStore, ended: Ended | None = None) -> None:
        self.db = db
        self.outcomes = outcomes
        self.ended = ended  # the games other processes end (PostgreSQL), else None
        self.standings: Standings | None = None
        self.waiting: list[Outcome] = []  # games that ended during a rebuild
        self.failed = False
        self.first = asyncio.Event()  # the first rebuild is done (or failed)
        self.rebuilt: asyncio.Task[bool] | None = None
        self.following: asyncio.Task[None] | None = None
        self.child: asyncio.subprocess.Process | None = None
        # told each game another process ended as it is heard, and None whenever what was
        # said cannot be known (the director: its rounds' tables placed elsewhere)
        self.heard: Callable[[Outcome | None], None] = lambda outcome: None

    def start(self) -> None:
        if self.ended is not None:
            self.following = asyncio.get_running_loop().create_task(self._follow(self.ended))
        elif not self.outcomes.has_games():  # a new host: no process to start
            self._rebuilt(Standings())
        else:
            self.rebuilt = asyncio.get_running_loop().create_task(self._rebuild())

    async def _follow(self, ended: Ended) -> None:
        """The games the other processes end, as they are heard; all read again whenever
        what was said cannot be known (and again later, while a rebuild fails)."""
        whole = False
        while True:
            heard = await asyncio.to_thread(ended.heard, HEARD_WAIT)
            if heard is None:
                self.heard(None)
            if heard is None or not whole:
                if self.standings is None and not self.outcomes.has_games():
                    self._rebuilt(Standings())  # a new host, listened to from now
                    whole = True
                    continue
                self.rebuilt = asyncio.get_running_loop().create_task(self._rebuild())
                whole = await self.rebuilt
                if not whole:
                    await asyncio.sleep(AGAIN)
                continue
            for end in heard:
                outcome = _read(end)
                if outcome is not None:
                    self.game_over(outcome)
                    self.heard(outcome)

    async def _rebuild(self) -> bool:
        # A process of our own (`python -m server.ratings.archive`, the database a line on
        # its stdin, its answer pickled on its stdout): it shares nothing with this one but
        # the database, and a server going down ends it.
        try:
            self.child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.ratings.archive",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            answer, _ = await self.child.communicate(f"{self.db}\n".encode())
            if self.child.returncode != 0:
                raise RuntimeError(f"the rebuild exited with {self.child.returncode}")
            standings = pickle.loads(answer)
        except (OSError, RuntimeError, pickle.UnpicklingError, EOFError) as exc:
            log.error("the standings could not be rebuilt from the archive: %s", exc)
            self.failed = self.standings is None
            self.rebuilt = None
            self.first.set()
            return False
        self._rebuilt(standings)
        log.info("standings rebuilt: %d players", len(standings.records))
        return True

    def _rebuilt(self, standings: Standings) -> None:
        for outcome in self.waiting:
            standings.add(outcome)
        self.standings, self.waiting, self.rebuilt, self.failed = standings, [], None, False
        self.first.set()

    @property
    def rebuilding(self) -> bool:
        return self.standings is None and not self.failed

    async def when_rebuilt(self) -> None:
        """The first rebuild is done, or failed."""
        await self.first.wait()

    def game_over(self, outcome: Outcome) -> None:
        if self.rebuilt is not None or self.standings is None:  # counted once rebuilt
            self.waiting.append(outcome)
        if self.standings is not None:
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
        for task in (self.following, self.rebuilt):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
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


def _read(end: HeardEnd) -> Outcome | None:
    """A game another process ended, as the standings count it (None: it cannot be read,
    and is left out as a rebuild leaves it out)."""
    try:
        outcome = Outcome.from_json(end.table, end.game, end.outcome)
    except (ValueError, TypeError, KeyError) as exc:
        log.error("game %d of table %s: its outcome cannot be read (%r)", end.game, end.table, exc)
        return None
    return dataclasses.replace(outcome, practice=end.practice)
