"""What every bot is: something that turns the view a human in its seat would see into a
move. Bots never touch the Game itself (issue 2: they see only `view(game, seat)`)."""

from __future__ import annotations

import random
from typing import Literal, Protocol

from server.game import Deck, Move, View

Trait = Literal["vengeful", "steady"]  # protocol.constants.TRAITS: whom a bot hurts


class Bot(Protocol):
    kind: str
    trait: Trait
    thinks_long: bool  # it may think for a second: call it off the event loop

    def choose(self, view: View) -> Move:
        """A legal move for `view.seat`, whose `view.legal` is not None."""
        ...


class BotBase:
    """Shared construction: the public card catalogue, a seeded RNG (Principle 4) and the
    bot's trait (vengeful: as bots played before they had one, and as a hint advises)."""

    kind = "base"
    thinks_long = False

    def __init__(
        self, deck: Deck, rng: random.Random | None = None, trait: Trait = "vengeful"
    ) -> None:
        self.deck = deck
        self.rng = rng or random.Random(0)
        self.trait = trait
