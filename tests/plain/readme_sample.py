"""README's plain-mode sample, made by the real code: a seeded 4-seat game of the original
deck (moves by a seeded random policy, so tuning the bots changes nothing here), told to
Raven at seat 0 as the plain client tells it by default (for the ear), from the end of her
first turn to her second Fate discard. `python -m tests.plain.readme_sample` prints the
sample; the test holds README's block to it, so a change to the plain words is a change to
README's sample too.
"""

from __future__ import annotations

import random

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.narrator import names_of
from gother_tui.plain.choices import decision
from gother_tui.plain.ear import SPOKEN, Teller
from gother_tui.plain.story import told
from gother_tui.plain.terminal import printable
from protocol.view import Variants
from server.game import Game, default_deck
from tests.game.enginekit import random_move
from tests.tui import viewkit as vk

NAMES = ("Raven", "Morticia", "Vlad", "Lenore")
SEED = 3


def sample(seed: int = SEED) -> list[str]:
    deck = default_deck()
    catalogue = Catalogue(deck.catalogue())
    game = Game.new(deck, len(NAMES), seed, Variants(), 0)
    rng = random.Random(seed)
    teller = Teller(0)  # the default telling, for the ear (docs/plain.md)
    heard: list[str] = []
    before = vk.table_view(game, 0, NAMES)
    while not (game.round == 2 and game.to_act() == 0):
        game.apply(*random_move(game, rng))
        after = vk.table_view(game, 0, NAMES)
        for line in told(before, after, catalogue, SPOKEN):
            said = teller.tell(line, catalogue, names_of(after.players))
            if line.kind == "turn" and line.actor == 1:
                heard, said = [], []  # the sample starts once Raven's first turn is told
            heard.extend(said)
        before = after
    found = decision(before, catalogue, SPOKEN, None)
    assert found is not None
    said = (*heard, *teller.draws(catalogue), *found.short_lines())
    return [printable(text, False) for text in said]


if __name__ == "__main__":
    print("\n".join(sample()))
