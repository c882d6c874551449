"""What a move does to the scores: shown before it is sent, and told after it was made.

The client holds no rules: an outcome only sums card values (RULES R5), floors Sickness at
0 for its effects while keeping the sum, so a cure on a healthy pile shows as banked (R6),
and flags a Sickness of SWOON_AT or more as a swoon (R7). Whether a move is legal, and what
really happens, is the server's answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from protocol.constants import NEAR_SWOON as NEAR_SWOON  # the widgets' warning, from here
from protocol.constants import SWOON_AT


@dataclass(frozen=True, slots=True)
class Sums:
    """A Fate pile's three sums (R5); Sickness as summed, below 0 when a cure is banked."""

    goth: int
    sickness_sum: int
    money: int

    @property
    def sickness(self) -> int:
        """Effective Sickness (R6): what the hand limit and swooning go by."""
        return max(0, self.sickness_sum)

    @property
    def banked(self) -> int:
        """Sickness a banked cure will soak up before any counts (R6): 0 or more."""
        return max(0, -self.sickness_sum)

    @property
    def swoon(self) -> bool:
        return self.sickness >= SWOON_AT

    @property
    def near_swoon(self) -> bool:
        return NEAR_SWOON <= self.sickness < SWOON_AT

    @property
    def in_debt(self) -> bool:
        return self.money < 0


def fate_sums(fate: Iterable[int], catalogue: Catalogue) -> Sums:
    cards = [catalogue[c] for c in fate]
    return Sums(
        goth=sum(c.goth for c in cards),
        sickness_sum=sum(c.sickness for c in cards),
        money=sum(c.money for c in cards),
    )


def sickness_text(sums: Sums) -> str:
    """ "4", or "0 (-3 banked)" when a cure is banked."""
    return f"{sums.sickness} (-{sums.banked} banked)" if sums.banked else str(sums.sickness)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One player's scores before and after a move."""

    name: str
    before: Sums
    after: Sums

    @classmethod
    def placing(cls, name: str, fate: Sequence[int], card: int, catalogue: Catalogue) -> Outcome:
        return cls(name, fate_sums(fate, catalogue), fate_sums([*fate, card], catalogue))

    @classmethod
    def removing(cls, name: str, fate: Sequence[int], card: int, catalogue: Catalogue) -> Outcome:
        rest = list(fate)
        if card in rest:
            rest.remove(card)
        return cls(name, fate_sums(fate, catalogue), fate_sums(rest, catalogue))

    def changes(self, glyphs: Glyphs) -> list[str]:
        """ "Goth 14 → 17", "Sickness 0 (-3 banked) → 0": each score the move changes."""
        before, after, arrow = self.before, self.after, glyphs.arrow
        parts = []
        if before.goth != after.goth:
            parts.append(f"Goth {before.goth} {arrow} {after.goth}")
        if before.sickness_sum != after.sickness_sum:
            parts.append(f"Sickness {sickness_text(before)} {arrow} {sickness_text(after)}")
        if before.money != after.money:
            parts.append(f"Money {before.money} {arrow} {after.money}")
        return parts

    def flags(self) -> list[str]:
        """What the change means: a swoon, close to one, debt, and a banked cure at work."""
        before, after = self.before, self.after
        if after.swoon:
            return ["SWOON"]
        flags = []
        if after.near_swoon and after.sickness > before.sickness:
            flags.append(f"{SWOON_AT - after.sickness} from swoon")
        rise = after.sickness_sum - before.sickness_sum
        if rise > 0 and before.banked:
            absorbed = min(rise, before.banked)
            flags.append(f"the banked cure soaks up {absorbed} Sickness")
        elif rise < 0 and after.banked:
            flags.append("the cure is banked against later Sickness")
        if after.in_debt and not before.in_debt:
            flags.append("DEBT")
        elif before.in_debt and not after.in_debt:
            flags.append("out of debt")
        return flags

    def describe(self, glyphs: Glyphs) -> str:
        """ "Raven: Goth 14 → 17, Sickness 4 → 5: SWOON"."""
        changes = self.changes(glyphs)
        text = f"{self.name}: {', '.join(changes) if changes else 'no change'}"
        flags = self.flags()
        return f"{text}: {', '.join(flags)}" if flags else text
