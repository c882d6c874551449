"""What a seat may do now (Principle 2), as the protocol's `Legal` shapes, which a client
renders directly."""

from __future__ import annotations

from protocol.view import (
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
)

from .state import Game


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
