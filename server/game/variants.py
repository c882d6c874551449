"""House rules a host may choose (H1, H2, R2's labelled 2/6-player rule)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

FateDiscard = Literal["any", "top"]
Overflow = Literal["draw_step", "immediate"]


@dataclass(frozen=True, slots=True)
class Variants:
    fate_discard: FateDiscard = "any"  # R10 / H2
    overflow: Overflow = "draw_step"  # R13 / H2
    round_cap: int | None = 100  # H1; None turns it off
    two_or_six: bool = False  # R2: 2 or 6 seats, only as a labelled house rule

    def __post_init__(self) -> None:
        if self.fate_discard not in ("any", "top"):
            raise ValueError(f"fate_discard must be 'any' or 'top', not {self.fate_discard!r}")
        if self.overflow not in ("draw_step", "immediate"):
            raise ValueError(f"overflow must be 'draw_step' or 'immediate', not {self.overflow!r}")
        if self.round_cap is not None and not 1 <= self.round_cap <= 1000:
            raise ValueError(f"round_cap must be 1..1000 or off, not {self.round_cap}")

    @property
    def seat_range(self) -> range:
        return range(2, 7) if self.two_or_six else range(3, 6)

    def to_wire(self) -> dict[str, Any]:
        return {
            "fate_discard": self.fate_discard,
            "overflow": self.overflow,
            "round_cap": self.round_cap,
            "two_or_six": self.two_or_six,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any] | None) -> Variants:
        return cls(**(data or {}))
