"""What a seat may do now, shaped so a client can render it directly (Principle 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .state import Game


@dataclass(frozen=True, slots=True)
class LegalDiscardFate:
    cards: tuple[int, ...]
    kind = "discard_fate"


@dataclass(frozen=True, slots=True)
class LegalDistribute:
    hand: tuple[int, ...]
    recipients: tuple[int, ...]
    count: int  # how many cards must be placed
    each_gets_one: bool  # True: every player gets exactly one; False: all cards, any seats
    kind = "distribute"


@dataclass(frozen=True, slots=True)
class LegalDraw:
    deck: bool
    discard: tuple[int, ...]  # cards that may be taken; empty when in debt
    in_debt: bool
    remaining: int  # cards still to draw this step
    kind = "draw"


@dataclass(frozen=True, slots=True)
class LegalDiscardHand:
    cards: tuple[int, ...]
    count: int  # cards still to discard
    kind = "discard_hand"


Legal = LegalDiscardFate | LegalDistribute | LegalDraw | LegalDiscardHand


def legal(game: Game, seat: int) -> Legal | None:
    """The decision asked of `seat` now, or None if it has nothing to do."""
    if game.to_act() != seat:
        return None
    hand = game.hands[seat]
    limit = game.hand_limit(seat)
    if len(hand) > limit and (game.overflowing() == seat or game.phase == "draw"):
        return LegalDiscardHand(tuple(hand), len(hand) - limit)
    if game.phase == "discard_fate":
        fate = game.fates[seat]
        return LegalDiscardFate((fate[-1],) if game.variants.fate_discard == "top" else tuple(fate))
    if game.phase == "distribute":
        return LegalDistribute(
            tuple(hand),
            tuple(range(game.players)),
            min(len(hand), game.players),
            len(hand) >= game.players,
        )
    if game.phase == "draw":
        debt = game.in_debt(seat)
        return LegalDraw(
            bool(game.draw_pile or game.discard),
            () if debt else tuple(game.discard),
            debt,
            limit - len(hand),
        )
    return None


def legal_to_wire(choice: Legal | None) -> dict[str, Any] | None:
    if choice is None:
        return None
    wire: dict[str, Any] = {"kind": choice.kind}
    for name in choice.__dataclass_fields__:
        value = getattr(choice, name)
        wire[name] = list(value) if isinstance(value, tuple) else value
    return wire


_LEGAL_KINDS: dict[str, type] = {
    cls.kind: cls for cls in (LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
}


def legal_from_wire(wire: dict[str, Any] | None) -> Legal | None:
    """The inverse of legal_to_wire, for bots that play over the protocol."""
    if wire is None:
        return None
    cls = _LEGAL_KINDS[wire["kind"]]
    return cls(
        **{
            name: tuple(wire[name]) if isinstance(wire[name], list) else wire[name]
            for name in cls.__dataclass_fields__
        }
    )
