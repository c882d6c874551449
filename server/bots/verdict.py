"""What the search found about one decision (`ismcts.py`), in numbers a hint, a review and
the hard bot all read: the few moves it weighed, each played out in the same sampled worlds.

World i is the same world for every move weighed (the same hidden cards, the same random
numbers in the play-out), so two moves are compared on what differs between them, not on
the luck of the deal: the difference of their outcomes, world by world, has a small noise
(its standard error), and a gap is said only where it stands clear of that noise.

An outcome is the position at the seat's next turn (the search's horizon): the search's
reward for the seat there, its estimate of the seat's chance to win, and what the piles hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from server.game import Move


@dataclass(frozen=True, slots=True)
class Outcome:
    """One move played out in one sampled world, to the seat's next turn."""

    win: float  # the seat's chance to win there, as the search estimates it (0 to 1)
    goth: tuple[int, ...]  # every pile's Goth then (R5)
    money: tuple[int, ...]
    sickness: tuple[int, ...]  # every pile's Sickness sum then (below 0: a banked cure, R6)
    swooned: tuple[int, ...]  # the seats whose pile swooned on the way (R7)


Measure = Callable[[Outcome], float]


def win(outcome: Outcome) -> float:
    return outcome.win


@dataclass(frozen=True, slots=True)
class Weighed:
    """A move and its outcomes, outcome i in world i."""

    key: Hashable  # what the move does (`ismcts.signature`): moves alike are weighed once
    move: Move
    outcomes: tuple[Outcome, ...]

    def mean(self, measure: Measure = win) -> float:
        return sum(map(measure, self.outcomes)) / len(self.outcomes)

    def share(self, happens: Callable[[Outcome], bool]) -> float:
        """How often `happens` holds, over the worlds."""
        return sum(map(happens, self.outcomes)) / len(self.outcomes)


@dataclass(frozen=True, slots=True)
class Gap:
    """How much better one weighed move did than another, on the worlds both were played in."""

    mean: float
    noise: float  # the standard error of `mean`
    worlds: int

    def clear(self, margin: float) -> bool:
        """The gap is above zero by more than `margin` standard errors."""
        return self.mean > margin * self.noise


def gap(a: Weighed, b: Weighed, measure: Measure = win) -> Gap:
    """`a` less `b`, world by world (common random numbers), on the worlds both saw."""
    pairs = list(zip(a.outcomes, b.outcomes, strict=False))
    diffs = [measure(x) - measure(y) for x, y in pairs]
    n = len(diffs)
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return Gap(mean, math.sqrt(spread / n), n)


@dataclass(frozen=True)
class Verdict:
    """The search's judgement of `seat`'s decision: `move` is its advice; `weighed` the moves
    it played out, the advice first and then the others, the better first. A decision with
    one sensible answer is not searched: `weighed` is empty."""

    seat: int
    move: Move
    weighed: tuple[Weighed, ...]
    iterations: int  # of the search's tree
    favourite: Hashable = None  # the heuristic's best move (always weighed), if searched

    @property
    def advice(self) -> Weighed | None:
        return self.weighed[0] if self.weighed else None

    def of(self, key: Hashable) -> Weighed | None:
        """The weighed move that does `key`, if it was weighed."""
        return next((w for w in self.weighed if w.key == key), None)
