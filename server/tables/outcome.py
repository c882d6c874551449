"""How one finished game ended, as the ratings and standings read it: an `Outcome`.

A game's outcome is a summary of its moves, written to the store when the game ends (so a
rebuild of the standings reads thousands of games without replaying one). Places follow the
rules: the winners share first place (H1: ties share the win), everyone else is ranked by
Goth Points, equal points sharing a place.

Whose result a seat is: a person's seat is theirs only if they played at least half of its
turns (`SeatResult.credited`); one a cover bot played for the most part wins, loses and
scores for nobody: not in the player's record, nor their tournament points (their rating
still moves by the share they played). A game at a table made to play on from a position
(`play_on`) is practice (`Outcome.practice`): it counts nowhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from protocol.constants import HOUSE_SEATS
from server.tables.players import PlayerId, shown

CREDITED_SHARE = 0.5  # of a seat's turns its player must play for its result to be theirs


@dataclass(frozen=True, slots=True)
class SeatResult:
    player: PlayerId
    goth: int
    share: float  # of the seat's turns its own player played (a cover bot played the rest)
    name: str  # the name the seat was played under, to show (the player is `player`)

    @property
    def credited(self) -> bool:
        """Whether the seat's result is its player's: they played at least half its turns."""
        return self.share >= CREDITED_SHARE


@dataclass(frozen=True, slots=True)
class Outcome:
    table: str
    game: int
    finished: str  # when the game ended: UTC, ISO 8601 (so outcomes sort by it)
    seats: tuple[SeatResult, ...]
    winners: tuple[int, ...]
    practice: bool = False  # at a table made by `play_on` (the store says which: not in JSON)

    @property
    def key(self) -> tuple[str, str, int]:
        """The order games are rated in: by their end, then by table and game number."""
        return (self.finished, self.table, self.game)

    def places(self) -> tuple[int, ...]:
        """Each seat's place from 1 (competition ranking: 1, 1, 3 after a shared win)."""
        order = [(seat not in self.winners, -s.goth) for seat, s in enumerate(self.seats)]
        return tuple(1 + sum(other < mine for other in order) for mine in order)

    def to_json(self) -> str:
        """What the store keeps in `games.outcome` (the table and game are its row's key)."""
        seats = tuple(_Seat(s.player, s.goth, s.share, s.name) for s in self.seats)
        return msgspec.json.encode(_Stored(self.finished, self.winners, seats)).decode()

    @classmethod
    def from_json(cls, table: str, game: int, text: str | bytes) -> Outcome:
        """The outcome `to_json` stored; ValueError (msgspec's) naming what is wrong."""
        stored = msgspec.json.decode(text, type=_Stored)
        _check(stored)
        seats = tuple(
            SeatResult(
                PlayerId(s.player),
                s.goth,
                s.share,
                shown(PlayerId(s.player)) if s.name is None else s.name,
            )
            for s in stored.seats
        )
        return cls(table, game, stored.finished, seats, stored.winners)


class _Seat(msgspec.Struct, array_like=True, frozen=True):
    """A stored seat: `[player, goth, share, name]`."""

    player: str
    goth: int
    share: float
    name: str | None = None  # stored before names were kept: the player's own is shown


class _Stored(msgspec.Struct, frozen=True):
    """`games.outcome`, as JSON."""

    finished: str
    winners: tuple[int, ...]
    seats: tuple[_Seat, ...]


def _check(stored: _Stored) -> None:
    """A stored outcome is a game's: a row the server did not write (a broken disk, a hand
    in the database) is refused here, by one ValueError, before it reaches a rating."""
    seats = len(stored.seats)
    if seats not in HOUSE_SEATS:
        raise ValueError(f"{seats} seats (a game has {HOUSE_SEATS.start}-{HOUSE_SEATS.stop - 1})")
    if not stored.winners or len(set(stored.winners)) != len(stored.winners):
        raise ValueError(f"winners {stored.winners}: none, or one twice")
    if not all(0 <= w < seats for w in stored.winners):
        raise ValueError(f"winners {stored.winners}: no such seat")
    if not all(0.0 <= s.share <= 1.0 for s in stored.seats):  # NaN fails too
        raise ValueError("a seat's share of its turns is not between 0 and 1")


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
