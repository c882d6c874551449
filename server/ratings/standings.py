"""The standings of a host: every identity's record of finished games and its rating.

A record (games, wins, places, last seen) and a rating are both derived from the archive's
outcomes; `Standings` keeps the two together so one game's end updates both, and `rows`
is what the `standings` reply carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from server.ratings.skill import Rating, Ratings
from server.tables.outcome import Outcome
from server.tables.players import PlayerId, shown


@dataclass
class Record:
    games: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=list)  # places[i]: games finished (i + 1)th
    last_seen: str = ""  # when its latest game ended (UTC, ISO 8601)

    def add(self, place: int, finished: str) -> None:
        self.games += 1
        self.wins += place == 1
        self.places.extend([0] * (place - len(self.places)))
        self.places[place - 1] += 1
        self.last_seen = max(self.last_seen, finished)


@dataclass(frozen=True, slots=True)
class Row:
    player: PlayerId
    name: str  # the latest it played under
    record: Record
    rating: Rating


class Standings:
    def __init__(self) -> None:
        self.records: dict[PlayerId, Record] = {}
        self.names: dict[PlayerId, str] = {}  # the name of each player's latest game
        self.ratings = Ratings()
        self.rated: set[tuple[str, int]] = set()  # (table, game) already counted

    @classmethod
    def rebuild(cls, outcomes: Iterable[Outcome]) -> Standings:
        standings = cls()
        for outcome in sorted(outcomes, key=lambda o: o.key):
            standings.add(outcome)
        return standings

    def add(self, outcome: Outcome) -> bool:
        """Count one finished game; False (and nothing changes) if it was counted before.
        A practice game counts nowhere; a seat counts in its player's record only if it
        was theirs (`SeatResult.credited`)."""
        if (outcome.table, outcome.game) in self.rated:
            return False
        self.rated.add((outcome.table, outcome.game))
        if outcome.practice:
            return True
        places = outcome.places()
        for seat, place in zip(outcome.seats, places, strict=True):
            if not seat.credited:
                continue
            record = self.records.setdefault(seat.player, Record())
            if outcome.finished >= record.last_seen:  # a later game (replayed ones have no end)
                self.names[seat.player] = shown(seat.player, seat.name)
            record.add(place, outcome.finished)
        self.ratings.update(outcome, places)
        return True

    def rows(self) -> list[Row]:
        """Everyone with a record, the best first: by the rating shown (mu), then wins."""
        rows = [
            Row(p, self.names[p], record, self.ratings[p]) for p, record in self.records.items()
        ]
        return sorted(rows, key=lambda r: (-r.rating.mu, -r.record.wins, r.player))
