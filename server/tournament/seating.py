"""Seating a round outside the game's loop: the pairing's search (`pairing.seat_round`) holds
the interpreter for tens of milliseconds at 100 players, a stall every table on the game's
loop would feel, so it is a job of the server's searches (server/searches.py).

`seated_round` is what the director awaits: the job in a worker, tried again once if its worker
died (a fresh one stands in its place) or the pool was too busy to take it; after that the
round is seated on the game's loop all the same, with a log line that says why, since
players waiting for the round expect it to start.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from server.searches import Busy, Searches, SearchFailed
from server.tables.players import PlayerId
from server.tournament.pairing import Seating, met_pairs, seat_round

log = logging.getLogger("gother.server")

SEATING_TIME = 0.2  # seconds a round of the largest field may take (bench/tournament.py)
TRIES = 2  # in a worker, before the round is seated on the game's loop


@dataclass(frozen=True)
class RoundSeating:
    """The tables of a round for `ranked` (best first), from the tables of the rounds before."""

    ranked: tuple[PlayerId, ...]
    seats: int
    past: tuple[tuple[PlayerId, ...], ...]

    @property
    def think(self) -> float:
        return SEATING_TIME

    def run(self) -> Seating[PlayerId]:
        return seat_round(self.ranked, self.seats, met_pairs(self.past))


async def seated_round(searches: Searches, job: RoundSeating, what: str) -> Seating[PlayerId]:
    """The round's seating, thought in a worker if the searches can (`what` names the round
    in the log)."""
    for attempt in range(1, TRIES + 1):
        try:
            return await searches.submit(job, urgent=True)  # players wait on it, as on a bot
        except Busy as exc:
            why = f"the searches are busy ({exc})"
            if attempt < TRIES:
                await asyncio.sleep(searches.max_wait)  # what the jobs ahead may take
        except SearchFailed as exc:
            why = f"its search failed ({exc})"
        log.warning("%s: not seated in a worker, try %d of %d: %s", what, attempt, TRIES, why)
    log.warning("%s: seated on the game's loop instead (%s)", what, why)
    return job.run()
