"""What a seat may do now (Principle 2), as the protocol's `Legal` shapes, which a client
renders directly. Each shape is the set of moves its step's `verify_…` accepts."""

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
    return decision(game, seat) if game.to_act() == seat else None


def decision(game: Game, seat: int) -> Legal:
    """The decision the game waits for from `seat`, the seat to act (`Game.to_act`)."""
    hand = game.hands[seat]
    if game.must_discard_down(seat):  # R13
        return LegalDiscardHand(tuple(hand), len(hand) - game.hand_limit(seat))
    phase = game.phase
    if phase == "discard_fate":  # R10
        fate = game.fates[seat]
        return LegalDiscardFate((fate[-1],) if game.variants.fate_discard == "top" else tuple(fate))
    if phase == "distribute":  # R11
        return LegalDistribute(
            tuple(hand),
            tuple(range(game.players)),
            min(len(hand), game.players),
            len(hand) >= game.players,
        )
    debt = game.in_debt(seat)  # R12, R14: the draw step
    return LegalDraw(
        bool(game.draw_pile or game.discard),
        () if debt else tuple(game.discard),
        debt,
        game.hand_limit(seat) - len(hand),
    )
