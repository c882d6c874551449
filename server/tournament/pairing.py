"""Seating a tournament round: the players, best first, in tables of one size (pure, no I/O).

Swiss-like: the top players meet, so the field is cut into tables in standings order, and
then the cut is mended so that no two players share a table twice where that can be avoided.
Every table has the tournament's `seats` (3-5); the humans are spread as evenly as they go
and bots fill the short tables, so nobody ever sits a round out (no bye).

The mending is a depth-first search over tables in standings order: the best player not yet
seated opens the next table and takes table-mates from the players just below, the choices
with the fewest repeated table-mates (then the closest in the standings) first. It keeps the
arrangement with the fewest repeats and stops at one with none, or once its budget of tables
tried is spent (large fields: the best found so far, from the first descent on, is kept).
What repeats a spent budget leaves, swaps of two players between tables then take away
where one swap can.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

SEATS = range(3, 6)  # a tournament table seats 3 to 5 (RULES R2)
WINDOW = 8  # table-mates are sought among this many players below the table's best
BUDGET = 2_000  # tables tried before the search settles for the best found (then mended)


@dataclass(frozen=True)
class Seating(Generic[P]):
    """A round's tables: each a tuple of players (best first); `bots` seats fill each."""

    tables: tuple[tuple[P, ...], ...]
    seats: int
    repeats: int  # pairs of players at one table who shared a table before

    def bots(self, table: int) -> int:
        return self.seats - len(self.tables[table])


def table_sizes(players: int, seats: int) -> list[int]:
    """How many players sit at each table: as few tables as hold everyone, the players
    spread as evenly as they go, the fuller tables first (the top of the standings)."""
    if seats not in SEATS:
        raise ValueError(f"a table seats {SEATS.start}-{SEATS.stop - 1}, not {seats}")
    if players < 1:
        raise ValueError("a round needs at least one player")
    tables = -(-players // seats)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def met_pairs(tables: Iterable[Sequence[P]]) -> dict[frozenset[P], int]:
    """How often each pair of players shared a table, from past rounds' tables."""
    met: dict[frozenset[P], int] = {}
    for table in tables:
        for a, b in combinations(table, 2):
            pair = frozenset((a, b))
            met[pair] = met.get(pair, 0) + 1
    return met


def repeats_at(table: Sequence[P], met: Mapping[frozenset[P], int]) -> int:
    """Pairs at this table who have shared a table before."""
    return sum(frozenset(pair) in met for pair in combinations(table, 2))


def seat_round(
    ranked: Sequence[P],
    seats: int,
    met: Mapping[frozenset[P], int],
    budget: int = BUDGET,
) -> Seating[P]:
    """The tables of a round for `ranked` (best first), avoiding repeated table-mates."""
    if len(set(ranked)) != len(ranked):
        raise ValueError("a player is ranked twice")
    sizes = table_sizes(len(ranked), seats)
    search = _Search(list(ranked), sizes, met, budget)
    search.run([], list(range(len(ranked))), 0)
    assert search.best is not None  # the first descent always completes
    tables = [[ranked[i] for i in table] for table in search.best]
    if search.best_repeats:
        _mend(tables, met)
    place = {p: i for i, p in enumerate(ranked)}
    return Seating(
        tables=tuple(tuple(sorted(t, key=place.__getitem__)) for t in tables),
        seats=seats,
        repeats=sum(repeats_at(t, met) for t in tables),
    )


def _mend(tables: list[list[P]], met: Mapping[frozenset[P], int]) -> None:
    """Swap two players of two tables while that takes repeats away (each swap lowers the
    count, so this ends); tables without repeats only ever take part as the other side."""
    improved = True
    while improved:
        improved = False
        for i, one in enumerate(tables):
            if not repeats_at(one, met):
                continue
            for other in tables[:i] + tables[i + 1 :]:
                before = repeats_at(one, met) + repeats_at(other, met)
                for a, b in ((a, b) for a in range(len(one)) for b in range(len(other))):
                    one[a], other[b] = other[b], one[a]
                    if repeats_at(one, met) + repeats_at(other, met) < before:
                        improved = True
                        break
                    one[a], other[b] = other[b], one[a]
                if improved:
                    break
            if improved:
                break


class _Search(Generic[P]):
    def __init__(
        self, ranked: list[P], sizes: list[int], met: Mapping[frozenset[P], int], budget: int
    ) -> None:
        self.ranked = ranked
        self.sizes = sizes  # of the tables not yet opened
        # the pairs who met, as (better, worse) places in the ranking: the search looks a
        # pair up hundreds of thousands of times, and a tuple of ints hashes far quicker
        # than a frozenset of players is built
        place = {p: i for i, p in enumerate(ranked)}
        self.met: set[tuple[int, int]] = set()
        for pair in met:
            if len(pair) == 2 and all(p in place for p in pair):
                a, b = sorted(place[p] for p in pair)
                self.met.add((a, b))
        self.budget = budget
        self.best: list[tuple[int, ...]] | None = None
        self.best_repeats = 0

    def run(self, tables: list[tuple[int, ...]], free: list[int], repeats: int) -> bool:
        """Seat `free` (indices into the ranking, best first); True once nothing better can
        be found (no repeats, or the budget is spent)."""
        if self.best is not None and repeats >= self.best_repeats:
            return False  # no better than what is kept
        if not free:
            self.best, self.best_repeats = list(tables), repeats
            return repeats == 0
        head, rest = free[0], free[1:]
        for size in sorted(set(self.sizes), reverse=True):  # the fuller table first
            self.sizes.remove(size)
            try:
                for mates in self._choices(head, rest, size - 1):
                    if self.budget <= 0:
                        return True
                    self.budget -= 1
                    table = (head, *mates)
                    added = self._repeats(table)
                    left = [i for i in rest if i not in mates]
                    if self.run([*tables, table], left, repeats + added):
                        return True
            finally:
                self.sizes.append(size)
        return False

    def _choices(self, head: int, rest: list[int], count: int) -> list[tuple[int, ...]]:
        """Table-mates for `head` from the players just below it: fewest repeats first,
        then the closest in the standings (combinations come in standings order)."""
        window = rest[: max(WINDOW, count)]
        options = list(combinations(window, count))
        mates_met = [self._repeats((head, *mates)) for mates in options]
        order = sorted(range(len(options)), key=lambda k: (mates_met[k], sum(options[k])))
        return [options[k] for k in order]

    def _repeats(self, table: tuple[int, ...]) -> int:
        """`repeats_at` for a table of places in standings order (as the search builds them)."""
        return sum(pair in self.met for pair in combinations(table, 2))
