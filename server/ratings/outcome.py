"""How one finished game ended, as the ratings and standings read it: an `Outcome`.

A game's outcome is a summary of its moves, written to the store when the game ends (so a
rebuild of the standings reads thousands of games without replaying one). Places follow the
rules: the winners share first place (H1: ties share the win), everyone else is ranked by
Goth Points, equal points sharing a place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.ratings.identity import PlayerId, shown


@dataclass(frozen=True, slots=True)
class SeatResult:
    player: PlayerId
    goth: int
    share: float  # of the seat's turns its own player played (a cover bot played the rest)
    name: str  # the name the seat was played under, to show (the player is `player`)


@dataclass(frozen=True, slots=True)
class Outcome:
    table: str
    game: int
    finished: str  # when the game ended: UTC, ISO 8601 (so outcomes sort by it)
    seats: tuple[SeatResult, ...]
    winners: tuple[int, ...]

    @property
    def key(self) -> tuple[str, str, int]:
        """The order games are rated in: by their end, then by table and game number."""
        return (self.finished, self.table, self.game)

    def places(self) -> tuple[int, ...]:
        """Each seat's place from 1 (competition ranking: 1, 1, 3 after a shared win)."""
        order = [(seat not in self.winners, -s.goth) for seat, s in enumerate(self.seats)]
        return tuple(1 + sum(other < mine for other in order) for mine in order)

    def to_json(self) -> dict[str, Any]:
        """What the store keeps in `games.outcome` (the table and game are its row's key)."""
        return {
            "finished": self.finished,
            "winners": list(self.winners),
            "seats": [[s.player, s.goth, s.share, s.name] for s in self.seats],
        }

    @classmethod
    def from_json(cls, table: str, game: int, data: dict[str, Any]) -> Outcome:
        seats = tuple(_seat(*seat) for seat in data["seats"])
        winners = tuple(int(seat) for seat in data["winners"])
        return cls(table, game, str(data["finished"]), seats, winners)


def _seat(player: Any, goth: Any, share: Any, name: Any = None) -> SeatResult:
    """One stored seat (one stored before names were kept shows the player's own)."""
    who = PlayerId(str(player))
    return SeatResult(who, int(goth), float(share), str(name) if name is not None else shown(who))


def turn_share(movers: Sequence[tuple[int, bool]], seat: int) -> float:
    """The fraction of `seat`'s turns its player played, from each move's (seat, by a cover
    bot?). A turn is a run of moves by one seat; a turn a bot finished counts in part."""
    turns = played = 0.0
    run: list[bool] = []
    for i, (mover, cover) in enumerate(movers):
        if mover == seat:
            run.append(cover)
        if run and (i + 1 == len(movers) or movers[i + 1][0] != seat):
            turns += 1
            played += run.count(False) / len(run)
            run = []
    return 1.0 if turns == 0 else played / turns
