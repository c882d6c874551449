"""`random`: a uniformly random legal move, the floor of the bot ladder."""

from __future__ import annotations

from server.game import (
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    View,
)

from .base import BotBase


class RandomBot(BotBase):
    kind = "random"

    def choose(self, view: View) -> Move:
        choice, rng = view.legal, self.rng
        assert choice is not None
        match choice:
            case LegalDiscardFate(cards):
                return DiscardFate(rng.choice(cards))
            case LegalDistribute(hand, recipients, count, each_gets_one):
                # Random cards to a fixed order of seats (or random seats for a short hand)
                # is uniform over all the legal assignments.
                picked = rng.sample(hand, count)
                seats = recipients if each_gets_one else rng.sample(recipients, count)
                return Distribute(tuple(zip(seats, picked, strict=True)))
            case LegalDraw(deck, discard):
                pick = rng.randrange(len(discard) + deck)
                if pick < len(discard):
                    return Draw("discard", discard[pick])
                return Draw("deck")
            case LegalDiscardHand(cards):
                return DiscardHand(rng.choice(cards))
        raise AssertionError(f"unknown decision {choice!r}")
