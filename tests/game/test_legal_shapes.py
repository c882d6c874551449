"""legal(): the decision asked of a seat, in the shape a client renders (Principle 2)."""

from __future__ import annotations

import pytest

from server.game import (
    DiscardHand,
    Distribute,
    Draw,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Variants,
    legal,
)
from tests.game.enginekit import make_deck, position


def test_discard_fate_offers_every_fate_card():
    game = position(make_deck(), hands=[[3], [4], [5]], fates=[[0, 1, 2], [], []])
    assert legal(game, 0) == LegalDiscardFate((0, 1, 2))


def test_discard_fate_top_variant_offers_only_the_top_card():
    game = position(
        make_deck(),
        hands=[[3], [4], [5]],
        fates=[[0, 1, 2], [], []],
        variants=Variants(fate_discard="top"),
    )
    assert legal(game, 0) == LegalDiscardFate((2,))


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("held", [0, 1, 2, 3, 4, 5])
def test_distribute_shape(players, held):
    deck = make_deck(size=25)
    hands = [list(range(held))] + [[20 + s] for s in range(1, players)]
    game = position(deck, hands=hands)
    choice = legal(game, 0)
    if held == 0:  # R11: an empty hand places nothing, the step passes by itself
        assert game.phase == "draw" and isinstance(choice, LegalDraw)
        return
    assert choice == LegalDistribute(
        hand=tuple(range(held)),
        recipients=tuple(range(players)),
        count=min(held, players),
        each_gets_one=held >= players,
    )


def test_draw_not_in_debt_offers_the_deck_and_every_discard_card():
    game = position(make_deck(), hands=[[7], [8], [9]], discard=[12, 10, 11], phase="draw")
    assert legal(game, 0) == LegalDraw(deck=True, discard=(12, 10, 11), in_debt=False, remaining=4)


def test_draw_in_debt_offers_no_discard_card():
    deck = make_deck({0: (1, 0, -1)})
    game = position(
        deck, hands=[[7], [8], [9]], fates=[[0], [], []], discard=[12, 10, 11], phase="draw"
    )
    assert legal(game, 0) == LegalDraw(deck=True, discard=(), in_debt=True, remaining=4)


def test_draw_with_an_empty_draw_pile_still_offers_the_deck_when_a_reshuffle_can_refill_it():
    game = position(
        make_deck(),
        hands=[[], [0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
        fates=[[], [11, 12, 13, 14], []],
        draw_pile=[],
        discard=[10],
        phase="draw",
    )
    assert game.draw_pile == []
    assert legal(game, 0) == LegalDraw(deck=True, discard=(10,), in_debt=False, remaining=5)
    game.apply(0, Draw("deck"))
    assert game.hands[0] == [10]


def test_draw_remaining_counts_down():
    game = position(make_deck(), hands=[[], [8], [9]], phase="draw")
    for remaining in (5, 4, 3, 2, 1):
        choice = legal(game, 0)
        assert isinstance(choice, LegalDraw) and choice.remaining == remaining
        game.apply(0, Draw("deck"))
    assert legal(game, 0) is None and game.turn == 1


def test_discard_hand_shape_and_count():
    deck = make_deck({0: (0, 2, 0)})
    game = position(deck, hands=[[3, 4, 5, 6, 7], [8], [9]], fates=[[0], [], []], phase="draw")
    assert legal(game, 0) == LegalDiscardHand(cards=(3, 4, 5, 6, 7), count=2)
    game.apply(0, DiscardHand(6))
    assert legal(game, 0) == LegalDiscardHand(cards=(3, 4, 5, 7), count=1)


def test_discard_hand_for_a_non_active_seat_with_overflow_immediate():
    deck = make_deck({3: (0, 4, 0)})
    game = position(
        deck,
        hands=[[3, 4, 5], [6, 7, 8, 9, 10], [11]],
        variants=Variants(overflow="immediate"),
    )
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert legal(game, 1) == LegalDiscardHand(cards=(6, 7, 8, 9, 10), count=4)
    assert legal(game, 0) is None and legal(game, 2) is None


def test_only_the_seat_to_act_has_a_decision():
    game = position(make_deck(), hands=[[3, 4, 5], [6], [7]], turn=1)
    assert legal(game, 0) is None and legal(game, 2) is None
    assert isinstance(legal(game, 1), LegalDistribute)
    assert legal(game, 3) is None and legal(game, -1) is None


def test_nobody_has_a_decision_once_the_game_is_over():
    deck = make_deck({0: (9, 0, 0), 1: (9, 0, 0), 2: (2, 0, 0)})
    game = position(deck, hands=[[4, 5, 6, 7], [8], [9]], fates=[[0, 1, 2], [], []], phase="draw")
    game.apply(0, Draw("deck"))
    assert game.over
    assert [legal(game, seat) for seat in range(3)] == [None, None, None]


def test_legal_shapes_on_the_wire():
    assert LegalDiscardFate((4, 2)).to_wire() == {"kind": "discard_fate", "cards": [4, 2]}
    assert LegalDistribute((1, 2), (0, 1, 2), 2, False).to_wire() == {
        "kind": "distribute",
        "hand": [1, 2],
        "recipients": [0, 1, 2],
        "count": 2,
        "each_gets_one": False,
    }
    assert LegalDraw(True, (), True, 3).to_wire() == {
        "kind": "draw",
        "deck": True,
        "discard": [],
        "in_debt": True,
        "remaining": 3,
    }
    assert LegalDiscardHand((5, 6), 1).to_wire() == {
        "kind": "discard_hand",
        "cards": [5, 6],
        "count": 1,
    }
