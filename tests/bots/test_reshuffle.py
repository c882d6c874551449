"""Issue 12's third bug: after a reshuffle (R14) the draw pile can only hold the cards that
lay face up in the discard pile then, less those drawn since. A bot that forgets it expects
the good cards still hidden in other hands to come from a blind draw."""

from __future__ import annotations

import random

import msgspec

from server.bots.heuristic import HeuristicBot
from server.bots.worlds import determinize, reproduces
from server.game import DiscardFate, Distribute, Draw, Game, Reshuffled, view
from tests.game.enginekit import make_deck

GREAT = range(0, 10)  # (7, 0, 0); every other card but three is a filler, (0, 0, 1)
SICK3, SICK2, DECENT = 26, 27, 28
POOL = frozenset({*range(17, 25), SICK3, SICK2})  # the second reshuffle's cards
DECK = make_deck(
    {
        **{c: (7, 0, 0) for c in GREAT},
        SICK3: (0, 3, 0),
        SICK2: (0, 2, 0),
        DECENT: (3, 0, 0),
    },
    size=29,
)


def after_two_reshuffles() -> Game:
    """Seat 2's draw step. Seat 0's draw emptied the draw pile (first reshuffle); seat 1
    swooned seat 3, whose pile of fillers and a +3 Sickness card went to the discard pile,
    and its own draws emptied the draw pile again: the second reshuffle made those ten cards
    the draw pile, and seat 1 drew four of them. The ten great cards are all in the hands
    of seats 0 and 3; seat 2 discarded its decent card from its Fate pile."""
    game = Game.from_position(
        DECK,
        hands=[[0, 1, 2, 3], [SICK2, 10, 11], [12, 13, 14, 15, 16], [5, 6, 7, 8, 9]],
        fates=[[], [], [DECENT], [*range(17, 25), SICK3]],
        draw_pile=[4],
        discard=[25],
        turn=0,
        phase="draw",
    )
    game.apply(0, Draw("deck"))  # the first reshuffle: [25] becomes the draw pile
    game.apply(1, Distribute(((0, 10), (1, 11), (3, SICK2))))  # seat 3 swoons (R7)
    for _ in range(5):
        game.apply(1, Draw("deck"))  # 25, the second reshuffle, then four of its cards
    game.apply(2, DiscardFate(DECENT))
    game.apply(2, Distribute(((0, 12), (1, 13), (2, 14), (3, 15))))
    assert sum(isinstance(e, Reshuffled) for e in game.events) == 2
    assert set(game.draw_pile) <= POOL and len(game.draw_pile) == 6
    assert game.to_act() == 2 and game.phase == "draw" and game.discard == [DECENT]
    return game


def test_r14_the_view_tells_what_the_reshuffled_draw_pile_can_hold():
    seen = view(after_two_reshuffles(), 2, log_size=0)  # the view alone, no log
    assert seen.draw_pool == tuple(sorted(POOL))
    assert seen.pool_draws == (0, 4, 0, 0)


def test_r14_sampled_draw_piles_hold_only_reshuffled_cards():
    game = after_two_reshuffles()
    seen = view(game, 2, log_size=0)
    rng = random.Random(0)
    for _ in range(50):
        world = determinize(seen, DECK, rng)
        assert reproduces(world, seen)
        assert set(world.draw_pile) <= POOL
        # the great cards were in hands at the reshuffle: they are still hidden in hands
        assert set(GREAT) <= {c for s in (0, 1, 3) for c in world.hands[s]}
        assert len(set(world.hands[1]) & POOL) <= 4


def test_heuristic_takes_the_decent_card_since_a_blind_draw_brings_only_fillers():
    game = after_two_reshuffles()
    seen = view(game, 2, log_size=0)
    knowing = HeuristicBot(DECK, random.Random(0)).choose(seen)
    assert knowing == Draw("discard", DECENT)
    # without the view's pool it would hope for one of the great cards: the bug it fixes
    unknowing = msgspec.structs.replace(seen, draw_pool=None, pool_draws=())
    assert HeuristicBot(DECK, random.Random(0)).choose(unknowing) == Draw("deck")
