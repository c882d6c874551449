"""What a move would do to the scores, shown before it is sent.

The client holds no rules: a preview only sums card values (RULES R5), floors Sickness at 0
(R6) and flags a Sickness of SWOON_AT or more as a swoon (R7). Whether the move is legal,
and what really happens, is the server's answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from protocol.constants import SWOON_AT

NEAR_SWOON = SWOON_AT - 2  # Sickness worth a warning: two points from a swoon


@dataclass(frozen=True, slots=True)
class Sums:
    """A Fate pile's three scores (R5), Sickness floored (R6)."""

    goth: int
    sickness: int
    money: int

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
        sickness=max(0, sum(c.sickness for c in cards)),
        money=sum(c.money for c in cards),
    )


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

    def flags(self) -> list[str]:
        before, after = self.before, self.after
        if after.swoon:
            return ["SWOON"]
        flags = []
        if after.near_swoon and after.sickness > before.sickness:
            flags.append(f"{SWOON_AT - after.sickness} from swoon")
        if after.in_debt and not before.in_debt:
            flags.append("DEBT")
        elif before.in_debt and not after.in_debt:
            flags.append("out of debt")
        return flags

    def describe(self, glyphs: Glyphs) -> str:
        """ "Raven: Goth 14 → 17, Sickness 4 → 5: SWOON"."""
        rows = (
            ("Goth", self.before.goth, self.after.goth),
            ("Sickness", self.before.sickness, self.after.sickness),
            ("Money", self.before.money, self.after.money),
        )
        changes = [f"{label} {b} {glyphs.arrow} {a}" for label, b, a in rows if a != b]
        text = f"{self.name}: {', '.join(changes) if changes else 'no change'}"
        flags = self.flags()
        return f"{text}: {', '.join(flags)}" if flags else text
