"""Move verification: every MoveError path, its stable `code`, and that a refused move
changes nothing at all (Principle 2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.game import (
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Game,
    MoveError,
    Played,
    Variants,
    default_deck,
)
from tests.game.enginekit import make_deck, position, snapshot

IMMEDIATE = Variants(overflow="immediate")


# -- positions -------------------------------------------------------------------------


def over() -> Game:
    """Seat 0 ends its turn with 20 Goth Points: the game is over."""
    deck = make_deck({0: (9, 0, 0), 1: (9, 0, 0), 2: (2, 0, 0)})
    game = position(deck, hands=[[4, 5, 6, 7], [8], [9]], fates=[[0, 1, 2], [], []], phase="draw")
    game.apply(0, Draw("deck"))
    assert game.over
    return game


def at_discard_fate(variants: Variants | None = None) -> Game:
    game = position(
        make_deck(),
        hands=[[3, 4, 5, 6, 7], [8], [9]],
        fates=[[0, 1, 2], [], []],
        variants=variants,
    )
    assert game.phase == "discard_fate"
    return game


def at_distribute() -> Game:
    game = position(make_deck(), hands=[[3, 4, 5, 6, 7], [8], [9]])
    assert game.phase == "distribute"
    return game


def at_distribute_short_hand() -> Game:
    return position(make_deck(), hands=[[3, 4], [8], [9]])


def at_draw() -> Game:
    game = position(make_deck(), hands=[[], [8], [9]], discard=[10, 11], phase="draw")
    assert game.phase == "draw" and game.to_act() == 0
    return game


def at_draw_nothing_left() -> Game:
    """Unreachable in play (an empty draw pile and discard pile end the draw step at once),
    so the piles are emptied by hand to exercise verify_draw's defensive check."""
    game = position(make_deck(), hands=[[], [8], [9]], fates=[[], [0, 1], []], phase="draw")
    game.hands[1].extend(game.draw_pile)
    game.draw_pile.clear()
    return game


def in_debt_at_draw() -> Game:
    deck = make_deck({0: (0, 0, -1)})
    return position(deck, hands=[[], [8], [9]], fates=[[0], [], []], discard=[10], phase="draw")


def over_limit_at_distribute() -> Game:
    """draw_step variant: holding 5 with a limit of 2, at the distribute step."""
    deck = make_deck({0: (0, 3, 0)})
    return position(
        deck, hands=[[3, 4, 5, 6, 7], [8], [9]], fates=[[0], [], []], phase="distribute"
    )


def over_limit_at_draw() -> Game:
    deck = make_deck({0: (0, 3, 0)})
    return position(deck, hands=[[3, 4, 5], [8], [9]], fates=[[0], [], []], phase="draw")


def immediate_other_overflows() -> Game:
    """immediate variant: seat 0 made seat 1 sick; seat 1 must discard 3 before play goes on."""
    deck = make_deck({3: (0, 3, 0)})
    game = position(deck, hands=[[3, 4, 5], [6, 7, 8, 9, 10], [11]], variants=IMMEDIATE)
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert game.turn == 0 and game.to_act() == 1
    return game


def immediate_active_overflows() -> Game:
    deck = make_deck({0: (0, 3, 0), 1: (0, -3, 0)})
    game = position(
        deck, hands=[[2, 3, 4, 5, 6], [7], [8]], fates=[[0, 1], [], []], variants=IMMEDIATE
    )
    game.apply(0, DiscardFate(1))
    assert game.phase == "distribute" and game.discarding_down() == 0
    return game


# -- every refusal ---------------------------------------------------------------------

EACH_GETS = ((0, 3), (1, 4), (2, 5))

CASES: list[tuple[str, Callable[[], Game], Played, str, str]] = [
    # the game is over
    ("over-discard-fate", over, Played(1, DiscardFate(8)), "game_over", "over"),
    ("over-distribute", over, Played(1, Distribute(((0, 8),))), "game_over", "over"),
    ("over-draw", over, Played(1, Draw("deck")), "game_over", "over"),
    ("over-draw-winner", over, Played(0, Draw("deck")), "game_over", "over"),
    ("over-discard-hand", over, Played(0, DiscardHand(4)), "game_over", "over"),
    # not your turn
    (
        "no-such-seat-low",
        at_distribute,
        Played(-1, Distribute(EACH_GETS)),
        "not_your_turn",
        "no seat",
    ),
    (
        "no-such-seat-high",
        at_distribute,
        Played(3, Distribute(EACH_GETS)),
        "not_your_turn",
        "no seat",
    ),
    (
        "other-seat",
        at_distribute,
        Played(1, Distribute(((0, 8),))),
        "not_your_turn",
        "seat 0's move",
    ),
    ("other-seat-draw", at_draw, Played(2, Draw("deck")), "not_your_turn", "seat 0's move"),
    (
        "other-seat-fate",
        at_discard_fate,
        Played(1, DiscardFate(0)),
        "not_your_turn",
        "seat 0's move",
    ),
    (
        "active-waits-for-overflow",
        immediate_other_overflows,
        Played(0, Draw("deck")),
        "not_your_turn",
        "seat 1's move",
    ),
    (
        "discard-hand-not-yours",
        over_limit_at_draw,
        Played(1, DiscardHand(8)),
        "not_your_turn",
        "seat 0's move",
    ),
    (
        "discard-hand-other-overflows",
        immediate_other_overflows,
        Played(0, DiscardHand(4)),
        "not_your_turn",
        "seat 1's move",
    ),
    (
        "discard-hand-no-seat",
        over_limit_at_draw,
        Played(7, DiscardHand(3)),
        "not_your_turn",
        "seat 7",
    ),
    # must discard down first (overflow = immediate)
    (
        "overflowing-must-discard-first",
        immediate_active_overflows,
        Played(0, Distribute(((0, 2), (1, 3), (2, 4)))),
        "illegal_move",
        "discard down",
    ),
    # wrong step
    (
        "draw-at-distribute",
        at_distribute,
        Played(0, Draw("deck")),
        "illegal_move",
        "distribute step",
    ),
    (
        "fate-at-distribute",
        at_distribute,
        Played(0, DiscardFate(3)),
        "illegal_move",
        "distribute step",
    ),
    (
        "give-at-discard-fate",
        at_discard_fate,
        Played(0, Distribute(EACH_GETS)),
        "illegal_move",
        "step",
    ),
    ("draw-at-discard-fate", at_discard_fate, Played(0, Draw("deck")), "illegal_move", "step"),
    ("give-at-draw", at_draw, Played(0, Distribute(())), "illegal_move", "draw step"),
    ("fate-at-draw", at_draw, Played(0, DiscardFate(10)), "illegal_move", "draw step"),
    # R10
    (
        "fate-card-from-hand",
        at_discard_fate,
        Played(0, DiscardFate(3)),
        "illegal_move",
        "Fate pile",
    ),
    ("fate-card-unknown", at_discard_fate, Played(0, DiscardFate(99)), "illegal_move", "card 99"),
    (
        "fate-not-top",
        lambda: at_discard_fate(Variants(fate_discard="top")),
        Played(0, DiscardFate(1)),
        "illegal_move",
        "top card",
    ),
    # R11
    (
        "give-card-twice",
        at_distribute,
        Played(0, Distribute(((0, 3), (1, 3), (2, 4)))),
        "illegal_move",
        "only once",
    ),
    (
        "give-card-not-held",
        at_distribute,
        Played(0, Distribute(((0, 3), (1, 4), (2, 8)))),
        "illegal_move",
        "not in your hand",
    ),
    (
        "give-two-to-one",
        at_distribute,
        Played(0, Distribute(((0, 3), (0, 4), (2, 5)))),
        "illegal_move",
        "more than one",
    ),
    (
        "give-to-no-seat",
        at_distribute,
        Played(0, Distribute(((0, 3), (1, 4), (3, 5)))),
        "illegal_move",
        "no seat 3",
    ),
    (
        "give-to-negative-seat",
        at_distribute,
        Played(0, Distribute(((0, 3), (1, 4), (-1, 5)))),
        "illegal_move",
        "no seat -1",
    ),
    (
        "give-too-few",
        at_distribute,
        Played(0, Distribute(((0, 3), (1, 4)))),
        "illegal_move",
        "exactly one card",
    ),
    ("give-nothing", at_distribute, Played(0, Distribute(())), "illegal_move", "exactly one card"),
    (
        "short-hand-not-all",
        at_distribute_short_hand,
        Played(0, Distribute(((1, 3),))),
        "illegal_move",
        "place all 2",
    ),
    # R12
    ("draw-hand-full", over_limit_at_draw, Played(0, Draw("deck")), "illegal_move", "full"),
    ("draw-nothing-left", at_draw_nothing_left, Played(0, Draw("deck")), "illegal_move", "empty"),
    (
        "draw-deck-names-a-card",
        at_draw,
        Played(0, Draw("deck", 10)),
        "illegal_move",
        "name no card",
    ),
    ("draw-from-nowhere", at_draw, Played(0, Draw("hand")), "illegal_move", "cannot draw from"),  # type: ignore[arg-type]
    ("draw-in-debt", in_debt_at_draw, Played(0, Draw("discard", 10)), "illegal_move", "debt"),
    (
        "draw-card-not-discarded",
        at_draw,
        Played(0, Draw("discard", 8)),
        "illegal_move",
        "discard pile",
    ),
    ("draw-discard-no-card", at_draw, Played(0, Draw("discard")), "illegal_move", "discard pile"),
    # R13
    (
        "discard-hand-not-over",
        at_distribute,
        Played(0, DiscardHand(3)),
        "illegal_move",
        "not over its limit",
    ),
    (
        "discard-hand-before-draw-step",
        over_limit_at_distribute,
        Played(0, DiscardHand(3)),
        "illegal_move",
        "draw step",
    ),
    (
        "discard-hand-not-held",
        over_limit_at_draw,
        Played(0, DiscardHand(8)),
        "illegal_move",
        "not in your hand",
    ),
    (
        "discard-hand-overflow-not-held",
        immediate_other_overflows,
        Played(1, DiscardHand(3)),
        "illegal_move",
        "not in your hand",
    ),
]


@pytest.mark.parametrize(
    ("make", "move", "code", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_refused_move_has_its_code_and_changes_nothing(make, move, code, fragment):
    game = make()
    before = snapshot(game)
    assert not game.can(*move)
    with pytest.raises(MoveError) as caught:
        game.verify(*move)
    assert caught.value.code == code
    with pytest.raises(MoveError) as caught:
        game.apply(*move)
    assert caught.value.code == code
    assert fragment in caught.value.message
    assert str(caught.value) == caught.value.message
    assert snapshot(game) == before


def test_not_a_move_is_refused_and_changes_nothing():
    game = at_distribute()
    before = snapshot(game)
    with pytest.raises(MoveError) as caught:
        game.apply(0, "pass")  # type: ignore[arg-type]
    assert caught.value.code == "illegal_move" and "not a move" in caught.value.message
    assert not game.can(0, "pass")  # type: ignore[arg-type]
    assert snapshot(game) == before


def test_a_draw_without_a_card_does_not_name_some_other_card():
    game = at_draw()
    with pytest.raises(MoveError) as caught:
        game.apply(0, Draw("discard"))
    assert "Card 0" not in caught.value.message  # card 0 is in the draw pile


def test_legal_moves_are_accepted():
    game = Game.new(default_deck(), 3, seed=4)
    hand = game.hands[0]
    move = Distribute(tuple(zip((0, 1, 2), hand, strict=False)))
    assert game.can(0, move)
    game.apply(0, move)
    assert game.moves == [Played(0, move)]


def test_what_comes_first_runs_once_a_move_is_verified_and_can_still_refuse_it():
    """Principle 6's hook: a table writes the move to its store between the verdict and the
    move, so a refused move writes nothing and a failed write makes no move."""
    game = at_distribute()
    before = snapshot(game)
    written: list[str] = []
    with pytest.raises(MoveError):
        game.apply(0, Draw("deck"), first=lambda: written.append("refused"))
    assert written == []

    def fails() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError):
        game.apply(0, Distribute(EACH_GETS), first=fails)
    assert snapshot(game) == before
    game.apply(0, Distribute(EACH_GETS), first=lambda: written.append("kept"))
    assert written == ["kept"] and game.moves == [Played(0, Distribute(EACH_GETS))]
