"""The four kinds of move, as typed values (what a game record stores), and MoveError.

A move names the seat that makes it: with `overflow = "immediate"` a player who is not
the active one may have to discard down. Moves are frozen msgspec Structs rather than
dataclasses: a bot or a search makes one per decision, and a frozen dataclass costs several
times as much to build (its `__init__` goes through `object.__setattr__` per field).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec


class MoveError(ValueError):
    """A move that may not be made now. `code` is the stable protocol code
    (`not_your_turn`, `illegal_move`, `game_over`); `message` is for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class DiscardFate(msgspec.Struct, frozen=True):
    """R10: one card of one's own Fate pile to the discard pile."""

    seat: int
    card: int
    kind: ClassVar[str] = "discard_fate"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "card": self.card}


class Distribute(msgspec.Struct, frozen=True):
    """R11: the whole placement step at once, as (recipient seat, card) pairs."""

    seat: int
    give: tuple[tuple[int, int], ...]
    kind: ClassVar[str] = "distribute"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "give": [list(pair) for pair in self.give]}


class Draw(msgspec.Struct, frozen=True):
    """R12: one card, from the top of the draw pile or any card of the discard pile."""

    seat: int
    source: Literal["deck", "discard"]
    card: int | None = None  # only for source="discard"
    kind: ClassVar[str] = "draw"

    def to_wire(self) -> dict[str, Any]:
        if self.source == "deck":
            return {"kind": self.kind, "source": "deck"}
        return {"kind": self.kind, "source": "discard", "card": self.card}


class DiscardHand(msgspec.Struct, frozen=True):
    """R13: one card from an over-full hand to the discard pile."""

    seat: int
    card: int
    kind: ClassVar[str] = "discard_hand"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "card": self.card}


Move = DiscardFate | Distribute | Draw | DiscardHand


def move_from_wire(seat: int, data: dict[str, Any]) -> Move:
    """Build a move from a wire map whose shape the protocol layer has already checked."""
    kind = data["kind"]
    if kind == "discard_fate":
        return DiscardFate(seat, data["card"])
    if kind == "distribute":
        return Distribute(seat, tuple((to, card) for to, card in data["give"]))
    if kind == "draw":
        return Draw(seat, data["source"], data.get("card"))
    if kind == "discard_hand":
        return DiscardHand(seat, data["card"])
    raise MoveError("illegal_move", f"unknown move kind {kind!r}")
