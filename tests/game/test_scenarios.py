"""Scripted multi-turn games on small decks, with every pile and score checked after
each turn. They exercise the rules together: debt, swoons, hand limits, reshuffles,
draw-pile exhaustion and (in the second) the `overflow = "immediate"` variant."""

from __future__ import annotations

import pytest

from server.game import (
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Drew,
    Game,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    MoveError,
    Placed,
    Reshuffled,
    Swooned,
    TurnBegan,
    Variants,
    legal,
)
from tests.game.enginekit import make_deck, position

# (goth, sickness, money)
SCENARIO_DECK = {
    0: (4, 0, -2),  # coffin
    1: (2, 2, 0),  # absinthe
    2: (0, -2, -1),  # cough syrup (a cure)
    3: (0, 3, 0),  # flu
    4: (3, 0, -1),  # velvet
    5: (-2, 0, 3),  # day job
    6: (0, 4, 0),  # plague
    7: (2, 0, 0),  # bat
    8: (1, 1, 0),  # candles
    9: (2, 0, -1),  # lace
    10: (1, 0, 0),  # pallor
    11: (5, 0, -3),  # crypt
    12: (0, 0, -2),  # rent
    13: (1, 0, 0),  # eyeliner
    14: (3, 0, -1),  # boots
}


def scores(game: Game) -> list[tuple[int, int, int]]:
    return [(game.goth[s], game.sickness_sum[s], game.money[s]) for s in range(game.players)]


def test_two_rounds_with_debt_plague_and_an_exhausted_deck():
    game = position(
        make_deck(SCENARIO_DECK),
        hands=[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12]],
        draw_pile=[13, 14],
    )
    assert game.phase == "distribute"  # R10 passes: seat 0's Fate pile is empty

    # Turn 1, seat 0. Velvet on self puts seat 0 in debt; flu on seat 1 (holds 5, limit 2,
    # keeps them: draw_step); absinthe on seat 2.
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 1))))
    assert game.fates == [[4], [3], [1]]
    assert scores(game) == [(3, 0, -1), (0, 3, 0), (2, 2, 0)]
    assert legal(game, 0) == LegalDraw(True, (), True, 3)
    game.apply(0, Draw("deck"))
    game.apply(0, Draw("deck"))
    # Both piles are empty now: the draw step ends short (R14) with 4 cards.
    assert game.hands[0] == [0, 2, 14, 13]
    assert game.turn == 1 and game.phase == "discard_fate"
    assert len(game.hands[1]) == 5 and game.hand_limit(1) == 2

    # Turn 2, seat 1: discards the flu, places the plague on seat 0, takes the flu back.
    assert legal(game, 1) == LegalDiscardFate((3,))
    game.apply(1, DiscardFate(3))
    assert game.discard == [3] and game.hand_limit(1) == 5
    game.apply(1, Distribute(((0, 6), (1, 7), (2, 8))))
    assert game.fates == [[4, 6], [7], [1, 8]]
    assert scores(game) == [(3, 4, -1), (2, 0, 0), (3, 3, 0)]
    assert legal(game, 1) == LegalDraw(True, (3,), False, 3)
    game.apply(1, Draw("discard", 3))
    assert game.hands[1] == [5, 9, 3] and game.known[1] == {3}
    assert game.turn == 2

    # Turn 3, seat 2: in debt after placing the crypt on self, so the draw comes from the
    # draw pile, which is refilled from the discard pile first (R14).
    game.apply(2, DiscardFate(8))
    assert game.discard == [8]
    game.apply(2, Distribute(((0, 12), (1, 10), (2, 11))))
    assert game.fates == [[4, 6, 12], [7, 10], [1, 11]]
    assert scores(game) == [(3, 4, -3), (3, 0, 0), (7, 2, -3)]
    assert legal(game, 2) == LegalDraw(True, (), True, 3)
    game.apply(2, Draw("deck"))
    assert game.hands[2] == [8]
    assert game.events[-3:] == [Reshuffled(1), Drew(2, "deck", 8), TurnBegan(0, 2)]
    assert game.turn == 0 and game.round == 2

    # Turn 4, seat 0: sickness 4, limit 1, holds 4 (draw_step: no discard yet). Discarding
    # the plague restores the limit to 5 before the draw step.
    assert legal(game, 0) == LegalDiscardFate((4, 6, 12))
    game.apply(0, DiscardFate(6))
    assert game.hand_limit(0) == 5
    game.apply(0, Distribute(((0, 0), (1, 2), (2, 14))))
    assert game.fates == [[4, 12, 0], [7, 10, 2], [1, 11, 14]]
    assert scores(game) == [(7, 0, -5), (3, -2, -1), (10, 2, -4)]
    assert game.hands[0] == [13]
    game.apply(0, Draw("deck"))  # reshuffles the plague back in and draws it
    assert game.hands[0] == [13, 6]
    assert game.turn == 1

    # Turn 5, seat 1: in debt from the cough syrup, discards it and is out of debt again.
    assert game.in_debt(1)
    game.apply(1, DiscardFate(2))
    assert not game.in_debt(1)
    assert legal(game, 1) == LegalDistribute((5, 9, 3), (0, 1, 2), 3, True)
    game.apply(1, Distribute(((0, 3), (1, 5), (2, 9))))
    assert game.known[1] == set()  # the flu, taken in plain sight, has been placed
    assert game.fates == [[4, 12, 0, 3], [7, 10, 5], [1, 11, 14, 9]]
    assert scores(game) == [(7, 3, -5), (1, 0, 3), (12, 2, -5)]
    assert game.hand_limit(0) == 2 and game.hands[0] == [13, 6]
    assert legal(game, 1) == LegalDraw(True, (2,), False, 5)
    game.apply(1, Draw("discard", 2))
    assert game.hands == [[13, 6], [2], [8]]
    assert game.draw_pile == [] and game.discard == []
    assert game.turn == 2 and game.round == 2 and not game.over


def test_immediate_overflow_and_a_swoon_in_one_distribution():
    deck = make_deck({0: (4, 0, -2), 1: (2, 2, 0), 3: (0, 3, 0), 6: (0, 3, 0)})
    game = position(
        deck,
        hands=[[0, 1, 2, 3, 4], [5, 7, 8, 9], [10, 11]],
        fates=[[], [], [6]],
        draw_pile=[12, 13, 14],
        variants=Variants(overflow="immediate"),
    )
    assert game.to_act() == 0 and game.hand_limit(2) == 2

    game.apply(0, Distribute(((0, 0), (1, 3), (2, 1))))
    # Seat 2 swooned (3 + 2); seat 1 is at limit 2 holding 4 and must discard first.
    assert game.events[-4:] == [
        Placed(0, 0, 0),
        Placed(0, 1, 3),
        Placed(0, 2, 1),
        Swooned(2, (6, 1)),
    ]
    assert game.fates == [[0], [3], []]
    assert game.discard == [6, 1]
    assert game.hand_limit(2) == 5
    assert game.to_act() == 1
    assert legal(game, 1) == LegalDiscardHand((5, 7, 8, 9), 2)
    with pytest.raises(MoveError):
        game.apply(0, Draw("deck"))
    game.apply(1, DiscardHand(9))
    game.apply(1, DiscardHand(5))
    assert game.hands[1] == [7, 8]
    assert game.discard == [6, 1, 9, 5]

    # Seat 0 is in debt (coffin): three blind draws, the last one reshuffles.
    assert game.to_act() == 0 and legal(game, 0) == LegalDraw(True, (), True, 3)
    for _ in range(3):
        game.apply(0, Draw("deck"))
    assert game.hands[0] == [2, 4, 14, 13, 12]
    assert game.discard == [] and sorted(game.draw_pile) == [1, 5, 6, 9]
    reshuffled_order = list(game.draw_pile)
    assert game.turn == 1

    # Seat 1: discarding the flu restores the limit; two cards go to two seats.
    game.apply(1, DiscardFate(3))
    assert legal(game, 1) == LegalDistribute((7, 8), (0, 1, 2), 2, False)
    game.apply(1, Distribute(((0, 7), (2, 8))))
    assert game.fates == [[0, 7], [], [8]]
    game.apply(1, Draw("discard", 3))
    for _ in range(4):
        game.apply(1, Draw("deck"))
    assert game.hands[1] == [3, *reversed(reshuffled_order)]
    assert game.draw_pile == [] and game.discard == []
    assert game.turn == 2


@pytest.mark.parametrize(
    "piles",
    [
        {"hands": [[0], [1], [2]], "fates": [[], [], []], "draw_pile": list(range(3, 14))},
        {"hands": [[0], [1], [2]], "fates": [[], [], []], "draw_pile": list(range(2, 15))},
    ],
    ids=["a-card-missing", "a-card-twice"],
)
def test_a_position_must_hold_every_card_exactly_once(piles):
    with pytest.raises(ValueError, match="exactly one pile"):
        Game.from_position(make_deck(), **piles)
