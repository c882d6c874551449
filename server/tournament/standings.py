"""A tournament's standings from its players' results (pure, no I/O).

Each finished table gives its seats points by place: the winners first, then the rest by
Goth Points, the last place 0 and one more for each place above (players tied on a place
share its points). The standings order by those points, then by Goth Points, then by the
rating. With duplicate deals every table of a round plays the same cards seat by seat, so a
player is first compared with the players who held the same seat's cards that round:
one match point for each of them they did better than, a half for each tie.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class Result(Generic[P]):
    """One player's game at one table of a round."""

    player: P
    round: int
    seat: int
    points: float  # by place (place_points)
    goth: int  # Goth Points at the end


@dataclass(frozen=True)
class Standing(Generic[P]):
    player: P
    games: int
    points: float
    goth: int
    rating: float
    match_points: float  # duplicate deals: seat-by-seat comparisons won (else 0)
    dropped: bool


def place_points(winners: Sequence[int], goth: Sequence[int]) -> list[float]:
    """Points by place for each seat of a finished game (its winners, its seats' Goth)."""
    seats = range(len(goth))
    key = {s: (s in winners, goth[s]) for s in seats}
    order = sorted(seats, key=lambda s: key[s], reverse=True)
    points = [0.0] * len(goth)
    place = 0
    while place < len(order):
        tied = [s for s in order[place:] if key[s] == key[order[place]]]
        # places place..place+len(tied)-1 shared: the average of their points
        shared = sum(len(goth) - 1 - p for p in range(place, place + len(tied))) / len(tied)
        for s in tied:
            points[s] = shared
        place += len(tied)
    return points


def match_points(results: Iterable[Result[P]]) -> dict[P, float]:
    """Duplicate deals: each result against the others of its round and seat."""
    groups: dict[tuple[int, int], list[Result[P]]] = {}
    for result in results:
        groups.setdefault((result.round, result.seat), []).append(result)
    won: dict[P, float] = {}
    for group in groups.values():
        for mine in group:
            score = (mine.points, mine.goth)
            beaten = sum(
                1.0 if score > (other.points, other.goth) else 0.5
                for other in group
                if other is not mine and score >= (other.points, other.goth)
            )
            won[mine.player] = won.get(mine.player, 0.0) + beaten
    return won


def standings(
    players: Sequence[P],
    results: Iterable[Result[P]],
    rating: Callable[[P], float],
    dropped: Iterable[P] = (),
    duplicate: bool = False,
) -> list[Standing[P]]:
    """Every registered player, best first. Ties that nothing breaks keep registration
    order (the pairing needs a total order)."""
    results = list(results)
    out = set(dropped)
    dup = match_points(results) if duplicate else {}
    rows = []
    for player in players:
        mine = [r for r in results if r.player == player]
        rows.append(
            Standing(
                player=player,
                games=len(mine),
                points=sum(r.points for r in mine),
                goth=sum(r.goth for r in mine),
                rating=rating(player),
                match_points=dup.get(player, 0.0),
                dropped=player in out,
            )
        )
    return sorted(rows, key=lambda s: (-s.match_points, -s.points, -s.goth, -s.rating))
