"""One or more tests per rule of RULES.md, each named after its id (test_r7_..., test_h2_...).

Scenarios are built from explicit piles with small TOML decks (see enginekit): unless a
test says otherwise a card is FILLER, Money +1 only. Piles are bottom first; the last item
of the draw pile is its top card.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from protocol import ProtocolError
from server.game import (
    REFEREE,
    SPECTATOR,
    DeckError,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Drew,
    FateDiscarded,
    Game,
    GameOver,
    HandDiscarded,
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
    dealer_for,
    default_deck,
    legal,
    load_deck,
    parse_deck,
    view,
)
from tests.game.enginekit import all_cards, deck_toml, make_deck, play_random, position, snapshot

IMMEDIATE = Variants(overflow="immediate")
TOP = Variants(fate_discard="top")


def draw_from_deck(game: Game, seat: int, times: int) -> None:
    for _ in range(times):
        game.apply(seat, Draw("deck"))


# -- R1 Deck ---------------------------------------------------------------------------


def test_r1_default_deck_has_55_cards_each_changing_a_score():
    deck = default_deck()
    assert len(deck) == 55
    assert [card.id for card in deck.cards] == list(range(55))
    for card in deck.cards:
        values = (card.goth, card.sickness, card.money)
        assert all(type(v) is int and -9 <= v <= 9 for v in values), card
        assert values != (0, 0, 0), card
    assert deck.goth == tuple(c.goth for c in deck.cards)
    assert deck.sickness == tuple(c.sickness for c in deck.cards)
    assert deck.money == tuple(c.money for c in deck.cards)


def test_r1_a_card_may_change_two_or_three_scores():
    deck = make_deck({0: (3, 1, -2), 1: (0, -2, -1)})
    assert (deck.cards[0].goth, deck.cards[0].sickness, deck.cards[0].money) == (3, 1, -2)
    assert (deck.cards[1].goth, deck.cards[1].sickness, deck.cards[1].money) == (0, -2, -1)


def test_r1_a_card_that_changes_no_score_is_refused():
    with pytest.raises(DeckError, match="changes no score") as caught:
        parse_deck(deck_toml({4: (0, 0, 0)}), "nothing.toml")
    assert caught.value.card == 5  # the fifth [[card]] table: id 4
    assert "nothing.toml" in str(caught.value)


def test_r1_card_ids_follow_the_file_not_the_shuffle():
    deck = default_deck()
    game = Game.new(deck, 3, seed=11)
    catalogue = deck.catalogue()
    assert [entry.id for entry in catalogue] == list(range(55))
    assert catalogue[7].name == deck.cards[7].name
    assert all_cards(game) == list(range(55))


# -- R2 Players ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_r2_three_to_five_seats(players):
    game = Game.new(default_deck(), players, seed=1)
    assert game.players == players
    assert len(game.hands) == len(game.fates) == players


@pytest.mark.parametrize("players", [0, 1, 2, 6, 7])
def test_r2_other_seat_counts_are_refused_by_default(players):
    with pytest.raises(ValueError, match="3-5"):
        Game.new(default_deck(), players, seed=1)


@pytest.mark.parametrize("players", [2, 6])
def test_r2_two_or_six_only_as_a_labelled_house_rule(players):
    house = Variants(two_or_six=True)
    game = Game.new(default_deck(), players, seed=1, variants=house)
    assert game.players == players
    assert view(game, SPECTATOR).to_wire()["table"]["variants"]["two_or_six"] is True
    with pytest.raises(ValueError, match="house rule"):
        Game.new(default_deck(), players, seed=1)


@pytest.mark.parametrize("players", [1, 7])
def test_r2_one_or_seven_refused_even_with_the_house_rule(players):
    with pytest.raises(ValueError):
        Game.new(default_deck(), players, seed=1, variants=Variants(two_or_six=True))


# -- R3 Deal ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_r3_five_each_the_rest_face_down_piles_empty(players):
    game = Game.new(default_deck(), players, seed=7)
    assert [len(hand) for hand in game.hands] == [5] * players
    assert len(game.draw_pile) == 55 - 5 * players
    assert game.discard == []
    assert game.fates == [[] for _ in range(players)]
    assert all_cards(game) == list(range(55))


def test_r3_the_deal_comes_from_the_seeded_shuffle():
    # Reading tested: shuffle with random.Random(seed), then deal one at a time round the
    # table from the top of the draw pile (its end). Saved games depend on this mapping.
    game = Game.new(default_deck(), 3, seed=2024)
    order = list(range(55))
    random.Random(2024).shuffle(order)
    top_first = order[::-1]
    for seat in range(3):
        assert game.hands[seat] == [top_first[seat + 3 * k] for k in range(5)]
    assert game.draw_pile == order[: 55 - 15]


def test_r3_same_seed_same_deal_other_seed_other_deal():
    deck = default_deck()
    first, again = Game.new(deck, 4, seed=99), Game.new(deck, 4, seed=99)
    assert first.hands == again.hands and first.draw_pile == again.draw_pile
    deals = {tuple(map(tuple, Game.new(deck, 4, seed=s).hands)) for s in range(20)}
    assert len(deals) == 20


# -- R4 First player -------------------------------------------------------------------


def test_r4_the_dealer_seat_0_plays_first():
    game = Game.new(default_deck(), 4, seed=3)
    assert game.turn == 0 and game.to_act() == 0 and game.round == 1
    assert game.events == [TurnBegan(0, 1)]
    assert legal(game, 0) is not None
    assert all(legal(game, seat) is None for seat in (1, 2, 3))


def test_r4_turns_pass_to_the_left_in_seat_order():
    game = Game.new(default_deck(), 4, seed=3, variants=Variants(round_cap=None))
    rng = random.Random(3)
    while sum(isinstance(e, TurnBegan) for e in game.events) < 9:
        play_random(game, rng, 1)
        assert not game.over
    turns = [(e.seat, e.round) for e in game.events if isinstance(e, TurnBegan)]
    assert turns == [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2), (1, 2), (2, 2), (3, 2), (0, 3)]


def test_r4_the_deal_passes_left_at_each_rematch():
    """Game 1 is dealt by seat 0, game 2 by seat 1, and on around the table; the dealer
    plays first and a round ends when the turn comes back to the dealer."""
    assert [dealer_for(game_no, 4) for game_no in range(1, 7)] == [0, 1, 2, 3, 0, 1]
    game = Game.new(default_deck(), 4, seed=3, variants=Variants(round_cap=None), dealer=2)
    assert (game.dealer, game.turn, game.to_act(), game.round) == (2, 2, 2, 1)
    assert legal(game, 2) is not None and legal(game, 0) is None
    rng = random.Random(3)
    while sum(isinstance(e, TurnBegan) for e in game.events) < 6:
        play_random(game, rng, 1)
    turns = [(e.seat, e.round) for e in game.events if isinstance(e, TurnBegan)]
    assert turns == [(2, 1), (3, 1), (0, 1), (1, 1), (2, 2), (3, 2)]
    assert view(game, SPECTATOR).dealer == 2


def test_r4_a_game_dealt_by_another_seat_replays_exactly():
    game = Game.new(default_deck(), 3, seed=11, dealer=1)
    play_random(game, random.Random(11), 60)
    again = Game.replay(default_deck(), 3, 11, game.moves, dealer=1)
    assert view(again, REFEREE) == view(game, REFEREE)


# -- R5 Scores are sums ----------------------------------------------------------------


def test_r5_scores_are_the_sums_of_the_own_fate_pile():
    deck = make_deck({0: (3, 1, -2), 1: (-1, -2, 0), 2: (2, 0, 3)})
    game = position(deck, hands=[[5, 6, 7], [8], [9]], fates=[[0, 1, 2], [], []])
    assert (game.goth[0], game.sickness_sum[0], game.money[0]) == (4, -1, 1)
    assert (game.goth[1], game.sickness_sum[1], game.money[1]) == (0, 0, 0)


def test_r5_a_card_leaving_the_fate_pile_takes_its_effect_with_it():
    deck = make_deck({0: (3, 1, -2), 1: (-1, -2, 0), 2: (2, 0, 3)})
    game = position(deck, hands=[[5, 6, 7], [8], [9]], fates=[[0, 1, 2], [], []])
    game.apply(0, DiscardFate(2))
    assert game.fates[0] == [0, 1]
    assert (game.goth[0], game.sickness_sum[0], game.money[0]) == (2, -1, -2)
    scores = view(game, SPECTATOR).to_wire()["players"][0]["scores"]
    assert scores == {"goth": 2, "sickness": 0, "money": -2}


def test_r5_a_placement_changes_only_the_recipient():
    deck = make_deck({3: (4, 2, -3)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], phase="distribute")
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert (game.goth, game.sickness_sum, game.money) == ([0, 4, 0], [0, 2, 0], [1, -3, 1])


# -- R6 Sickness floor -----------------------------------------------------------------


def test_r6_a_negative_sickness_sum_is_shown_as_0_and_keeps_the_limit_at_5():
    deck = make_deck({1: (0, -3, 0)})
    game = position(deck, hands=[[5], [6], [7]], fates=[[], [1], []])
    assert game.sickness_sum[1] == -3
    assert game.sickness(1) == 0
    assert game.hand_limit(1) == 5
    player = view(game, 0).to_wire()["players"][1]
    assert player["scores"]["sickness"] == 0 and player["hand_limit"] == 5


def test_r6_sickness_banked_below_zero_absorbs_a_later_card():
    # Reading tested: the sum is what counts (R5), so -3 then +5 is 2, not 5 (no swoon).
    deck = make_deck({1: (0, -3, 0), 3: (0, 5, 0)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[], [1], []])
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert game.fates[1] == [1, 3]
    assert game.sickness(1) == 2 and game.hand_limit(1) == 3
    assert not any(isinstance(e, Swooned) for e in game.events)


# -- R7 Swoon --------------------------------------------------------------------------


def test_r7_swoon_on_placement():
    deck = make_deck({1: (2, 2, 0), 3: (0, 3, 0)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[], [1], []])
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert game.fates == [[4], [], [5]]
    assert game.discard == [1, 3]
    assert (game.goth[1], game.sickness_sum[1], game.money[1]) == (0, 0, 0)
    assert game.events[-4:] == [
        Placed(0, 0, 4),
        Placed(0, 1, 3),
        Swooned(1, (1, 3)),
        Placed(0, 2, 5),
    ]
    assert game.phase == "draw" and game.to_act() == 0


def test_r7_swoon_on_fate_discard_of_a_cure():
    deck = make_deck({1: (0, -2, 0), 2: (0, 3, 0), 3: (5, 3, 0)})
    game = position(deck, hands=[[5, 6, 7], [8], [9]], fates=[[1, 2, 3], [], []])
    assert game.sickness(0) == 4 and game.fates[0] == [1, 2, 3]  # 4: no swoon yet
    game.apply(0, DiscardFate(1))
    assert game.fates[0] == []
    assert game.discard == [1, 2, 3]
    assert game.goth[0] == 0 and game.sickness(0) == 0
    assert game.events[-2:] == [FateDiscarded(0, 1), Swooned(0, (2, 3))]
    assert game.phase == "distribute"


def test_r7_swoon_on_anyones_turn():
    # Seat 2 swoons during seat 1's turn, from a card seat 1 places.
    deck = make_deck({2: (9, 4, 0), 4: (0, 1, 0)})
    game = position(deck, hands=[[6], [4, 5, 7], [8]], fates=[[], [], [2]], turn=1)
    assert game.turn == 1 and game.phase == "distribute"
    game.apply(1, Distribute(((0, 5), (1, 7), (2, 4))))
    assert game.fates == [[5], [7], []]
    assert game.discard == [2, 4]
    assert Swooned(2, (2, 4)) in game.events
    assert game.goth[2] == 0


def test_r7_the_active_player_can_swoon_by_their_own_placement():
    deck = make_deck({0: (0, 3, 0), 3: (0, 2, 0)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[0], [], []], phase="distribute")
    game.apply(0, Distribute(((0, 3), (1, 4), (2, 5))))
    assert game.fates[0] == [] and game.discard == [0, 3]
    assert game.hand_limit(0) == 5  # swooning resets the limit with the scores


def test_r7_four_is_no_swoon_five_is():
    deck = make_deck({3: (0, 4, 0), 4: (0, 5, 0)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]])
    game.apply(0, Distribute(((0, 5), (1, 3), (2, 4))))
    assert game.fates == [[5], [3], []]
    assert game.sickness(1) == 4 and game.hand_limit(1) == 1
    assert game.discard == [4]


def test_r7_more_than_one_player_can_swoon_in_one_distribution():
    deck = make_deck({3: (0, 5, 0), 4: (1, 6, 0), 5: (0, 9, 1)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[], [8], [9]])
    game.apply(0, Distribute(((0, 3), (1, 4), (2, 5))))
    assert game.fates == [[], [], []]
    assert game.discard == [3, 8, 4, 9, 5]
    assert [e for e in game.events if isinstance(e, Swooned)] == [
        Swooned(0, (3,)),
        Swooned(1, (8, 4)),
        Swooned(2, (9, 5)),
    ]


def test_r7_a_position_with_a_swoon_due_swoons_at_once():
    # from_position's contract: "Swoons already due are applied" (R7: at any moment).
    deck = make_deck({3: (2, 5, 0)})
    game = position(deck, hands=[[4], [5], [6]], fates=[[], [7, 3], []])
    assert game.fates[1] == []
    assert game.discard == [7, 3]
    assert game.sickness(1) == 0 and game.goth[1] == 0
    assert Swooned(1, (7, 3)) in game.events


# -- R8 Hand limit ---------------------------------------------------------------------


def test_r8_the_limit_is_5_minus_sickness_and_drawing_stops_there():
    deck = make_deck({0: (0, 3, 0)})
    game = position(deck, hands=[[2, 3, 4], [5], [6]], fates=[[0], [], []], phase="distribute")
    assert game.hand_limit(0) == 2
    game.apply(0, Distribute(((0, 2), (1, 3), (2, 4))))
    choice = legal(game, 0)
    assert isinstance(choice, LegalDraw) and choice.remaining == 2
    draw_from_deck(game, 0, 2)
    assert len(game.hands[0]) == 2
    assert game.turn == 1


@pytest.mark.parametrize(("sickness", "limit"), [(0, 5), (1, 4), (2, 3), (3, 2), (4, 1)])
def test_r8_limit_for_each_sickness(sickness, limit):
    special = {1: (0, sickness, 0)} if sickness else {}
    deck = make_deck(special)
    game = position(deck, hands=[[5], [6], [7]], fates=[[], [1], []])
    assert game.hand_limit(1) == limit
    assert view(game, SPECTATOR).players[1].hand_limit == limit


# -- R9 Debt ---------------------------------------------------------------------------


def test_r9_negative_money_is_debt_zero_is_not():
    deck = make_deck({1: (0, 0, -1), 2: (0, 0, -1)})
    game = position(deck, hands=[[5], [6], [7]], fates=[[], [1], [2, 12]], phase="draw")
    # seat 1: -1 (debt); seat 2: -1 + 1 (filler) = 0 (not in debt)
    assert game.in_debt(1) and not game.in_debt(2)
    players = view(game, SPECTATOR).players
    assert [p.in_debt for p in players] == [False, True, False]
    wire = view(game, SPECTATOR).to_wire()["players"]
    assert [(p["scores"]["money"], p["in_debt"]) for p in wire] == [
        (0, False),
        (-1, True),
        (0, False),
    ]


# -- R10 Fate discard ------------------------------------------------------------------


def test_r10_the_active_player_discards_one_fate_card_of_their_choice():
    deck = make_deck()
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[0, 1, 2], [], []])
    assert game.phase == "discard_fate"
    assert legal(game, 0) == LegalDiscardFate((0, 1, 2))
    game.apply(0, DiscardFate(1))  # from the middle: any card may go
    assert game.fates[0] == [0, 2]
    assert game.discard == [1]
    assert game.money[0] == 2
    assert game.phase == "distribute"


def test_r10_an_empty_fate_pile_skips_the_step():
    game = position(make_deck(), hands=[[3, 4, 5], [6], [7]])
    assert game.phase == "distribute"
    assert isinstance(legal(game, 0), LegalDistribute)


def test_r10_the_step_cannot_be_skipped_when_the_fate_pile_has_cards():
    game = position(make_deck(), hands=[[3, 4, 5], [6], [7]], fates=[[0], [], []])
    with pytest.raises(MoveError) as caught:
        game.apply(0, Distribute(((0, 3), (1, 4), (2, 5))))
    assert caught.value.code == "illegal_move"


def test_r10_only_one_card_is_discarded():
    game = position(make_deck(), hands=[[3, 4, 5], [6], [7]], fates=[[0, 1], [], []])
    game.apply(0, DiscardFate(0))
    with pytest.raises(MoveError):
        game.apply(0, DiscardFate(1))
    assert game.fates[0] == [1]


# -- R11 Distribute --------------------------------------------------------------------


def test_r11_one_card_on_top_of_every_fate_pile_own_included():
    game = position(
        make_deck(), hands=[[3, 4, 5, 6, 7], [8], [9]], fates=[[0], [1], [2]], phase="distribute"
    )
    assert legal(game, 0) == LegalDistribute((3, 4, 5, 6, 7), (0, 1, 2), 3, True)
    game.apply(0, Distribute(((1, 3), (2, 5), (0, 7))))
    assert game.fates == [[0, 7], [1, 3], [2, 5]]
    assert game.hands[0] == [4, 6]
    assert game.events[-3:] == [Placed(0, 0, 7), Placed(0, 1, 3), Placed(0, 2, 5)]


def test_r11_every_player_must_receive_exactly_one():
    game = position(make_deck(), hands=[[3, 4, 5, 6, 7], [8], [9]], phase="distribute")
    before = snapshot(game)
    for give in (
        ((0, 3), (1, 4)),  # seat 2 gets nothing
        ((0, 3), (1, 4), (1, 5)),  # seat 1 gets two
        ((0, 3), (1, 4), (2, 5), (0, 6)),  # four placements
    ):
        with pytest.raises(MoveError) as caught:
            game.apply(0, Distribute(give))
        assert caught.value.code == "illegal_move"
    assert snapshot(game) == before


def test_r11_fewer_cards_than_players_places_all_to_distinct_recipients():
    game = position(make_deck(), hands=[[3, 4], [8], [9]], phase="distribute")
    assert legal(game, 0) == LegalDistribute((3, 4), (0, 1, 2), 2, False)
    with pytest.raises(MoveError):  # not all of them
        game.apply(0, Distribute(((1, 3),)))
    with pytest.raises(MoveError):  # two to one player
        game.apply(0, Distribute(((1, 3), (1, 4))))
    game.apply(0, Distribute(((2, 3), (1, 4))))  # the giver may leave themselves out
    assert game.fates == [[], [4], [3]]
    assert game.hands[0] == []
    assert game.phase == "draw"


def test_r11_an_empty_hand_places_nothing():
    game = position(make_deck(), hands=[[], [8], [9]])
    assert game.phase == "draw"
    assert not any(isinstance(e, Placed) for e in game.events)
    assert legal(game, 0) == LegalDraw(True, (), False, 5)


# -- R12 Draw --------------------------------------------------------------------------


def test_r12_draw_to_the_limit_from_the_top_or_any_discard_card_mixed():
    game = position(
        make_deck(),
        hands=[[], [0, 1, 2, 3], [4, 5, 6, 7]],
        draw_pile=[11, 12, 13, 14],
        discard=[8, 9, 10],
        phase="draw",
    )
    game.apply(0, Draw("discard", 9))  # from the middle of the discard pile
    game.apply(0, Draw("deck"))
    game.apply(0, Draw("discard", 8))
    game.apply(0, Draw("deck"))
    assert legal(game, 0) == LegalDraw(True, (10,), False, 1)
    game.apply(0, Draw("discard", 10))
    assert game.hands[0] == [9, 14, 8, 13, 10]
    assert game.draw_pile == [11, 12] and game.discard == []
    assert game.turn == 1
    assert [e for e in game.events if isinstance(e, Drew)] == [
        Drew(0, "discard", 9),
        Drew(0, "deck", 14),
        Drew(0, "discard", 8),
        Drew(0, "deck", 13),
        Drew(0, "discard", 10),
    ]


def test_r12_in_debt_only_from_the_draw_pile():
    deck = make_deck({0: (0, 0, -2)})
    game = position(deck, hands=[[], [1], [2]], fates=[[0], [], []], discard=[3, 4], phase="draw")
    assert legal(game, 0) == LegalDraw(True, (), True, 5)
    with pytest.raises(MoveError) as caught:
        game.apply(0, Draw("discard", 3))
    assert caught.value.code == "illegal_move" and "debt" in caught.value.message
    game.apply(0, Draw("deck"))
    assert game.hands[0] == [14]


def test_r12_debt_is_judged_after_the_fate_discard():
    # Reading tested: "judged at the start of this step" = on the Fate pile as it is after
    # R10 and R11 of the same turn (and nothing in the draw step changes Money).
    # Seat 0 starts the turn in debt, discards the debt card, so may take it back.
    deck = make_deck({0: (0, 0, -3)})
    game = position(deck, hands=[[], [1], [2]], fates=[[0], [], []])
    assert game.in_debt(0)
    game.apply(0, DiscardFate(0))
    assert game.phase == "draw"
    assert legal(game, 0) == LegalDraw(True, (0,), False, 5)
    game.apply(0, Draw("discard", 0))
    assert game.hands[0] == [0]


def test_r12_debt_from_ones_own_placement_counts_at_the_draw_step():
    deck = make_deck({0: (0, 0, -2)})
    game = position(deck, hands=[[0, 5, 6], [1], [2]], discard=[3], phase="distribute")
    game.apply(0, Distribute(((0, 0), (1, 5), (2, 6))))
    assert legal(game, 0) == LegalDraw(True, (), True, 5)


def test_r12_a_deck_draw_takes_no_card():
    """A draw from the draw pile takes its top card: a move naming a card (say, one of the
    discard pile) is refused and changes nothing, so no record holds a card not drawn."""
    game = position(make_deck(), hands=[[], [1], [2]], draw_pile=[7], discard=[3], phase="draw")
    before = snapshot(game)
    for named in (7, 3, 14):
        move = Draw("deck", named)
        assert not game.can(0, move)
        with pytest.raises(MoveError) as caught:
            game.apply(0, move)
        assert caught.value.code == "illegal_move" and "name no card" in caught.value.message
        assert snapshot(game) == before
    assert game.apply(0, Draw("deck"))[0] == Drew(0, "deck", 7)


# -- R13 Discard down ------------------------------------------------------------------


def test_r13_the_active_player_discards_down_at_the_draw_step():
    deck = make_deck({0: (0, 4, 0)})
    game = position(
        deck, hands=[[1, 2, 3, 4, 5], [6], [7]], fates=[[0], [], []], phase="distribute"
    )
    game.apply(0, Distribute(((0, 1), (1, 2), (2, 3))))
    assert game.hands[0] == [4, 5] and game.hand_limit(0) == 1
    assert legal(game, 0) == LegalDiscardHand((4, 5), 1)
    with pytest.raises(MoveError):
        game.apply(0, Draw("deck"))
    game.apply(0, DiscardHand(5))
    assert game.hands[0] == [4]
    assert game.discard == [5]
    assert HandDiscarded(0, 5) in game.events
    assert game.turn == 1


def test_r13_draw_step_variant_others_keep_an_oversized_hand_until_their_draw_step():
    deck = make_deck({3: (0, 4, 0)})
    game = position(
        deck,
        hands=[[3, 4, 5], [6, 7, 8, 9, 10], [11]],
        fates=[[], [14], []],
        draw_pile=[0, 1, 2, 12, 13],
    )
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert game.hand_limit(1) == 1 and len(game.hands[1]) == 5
    assert game.to_act() == 0 and legal(game, 1) is None
    with pytest.raises(MoveError) as caught:
        game.apply(1, DiscardHand(6))
    assert caught.value.code == "not_your_turn"
    draw_from_deck(game, 0, 5)
    assert game.hands[0] == [13, 12, 2, 1, 0]
    # Seat 1's turn: they still hold 5; the fate discard and distribution come first.
    assert game.turn == 1 and legal(game, 1) == LegalDiscardFate((14, 3))
    game.apply(1, DiscardFate(14))
    assert legal(game, 1) == LegalDistribute((6, 7, 8, 9, 10), (0, 1, 2), 3, True)
    game.apply(1, Distribute(((0, 6), (1, 7), (2, 8))))
    assert legal(game, 1) == LegalDiscardHand((9, 10), 1)
    game.apply(1, DiscardHand(9))
    assert game.hands[1] == [10]
    assert game.turn == 2


def test_r13_discarding_more_than_needed_is_refused():
    deck = make_deck({0: (0, 3, 0)})
    game = position(deck, hands=[[1, 2, 3, 4], [6], [7]], fates=[[0], [], []], phase="draw")
    assert legal(game, 0) == LegalDiscardHand((1, 2, 3, 4), 2)
    game.apply(0, DiscardHand(1))
    game.apply(0, DiscardHand(2))
    assert game.turn == 1  # down to the limit (2): the turn is over
    with pytest.raises(MoveError):
        game.apply(0, DiscardHand(3))
    assert game.hands[0] == [3, 4]


# -- R14 Reshuffle ---------------------------------------------------------------------


def test_r14_taking_the_last_card_reshuffles_the_discard_pile():
    # Reading tested: the reshuffle happens as the last card is taken (not lazily at the
    # next draw); the log records it just before that draw.
    def start() -> Game:
        return position(
            make_deck(),
            hands=[[], [0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
            draw_pile=[14],
            discard=[10, 11, 12, 13],
            phase="draw",
            seed=5,
        )

    game = start()
    game.apply(0, Draw("deck"))
    assert game.hands[0] == [14]
    assert game.discard == []
    assert sorted(game.draw_pile) == [10, 11, 12, 13]
    assert game.events[-2:] == [Reshuffled(4), Drew(0, "deck", 14)]
    other = start()
    other.apply(0, Draw("deck"))
    assert other.draw_pile == game.draw_pile  # the shuffle comes from the seeded RNG
    draw_from_deck(game, 0, 4)
    assert sorted(game.hands[0]) == [10, 11, 12, 13, 14]
    assert game.turn == 1


def test_r14_both_piles_empty_drawing_stops_and_the_hand_stays_short():
    game = position(
        make_deck(),
        hands=[[], [0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
        fates=[[], [10, 11, 12], [13]],
        draw_pile=[14],
        phase="draw",
    )
    game.apply(0, Draw("deck"))
    assert game.hands[0] == [14]
    assert game.draw_pile == [] and game.discard == []
    assert game.turn == 1 and game.phase == "discard_fate"
    # Seat 1 discards a fate card: the next draw reshuffles it in first and takes it.
    game.apply(1, DiscardFate(10))
    game.apply(1, Distribute(((0, 0), (1, 1), (2, 2))))
    assert legal(game, 1) == LegalDraw(True, (10,), False, 3)
    game.apply(1, Draw("deck"))
    assert game.hands[1] == [3, 4, 10]
    assert Reshuffled(1) in game.events
    assert game.turn == 2  # short again: 3 cards, limit 5


def test_r14_in_debt_one_draws_face_down_from_the_new_pile_even_of_one_card():
    """RULES.md's clarified R14: the draw pile ran dry when the discard pile was empty; when
    a card must be drawn, the discard pile is shuffled into a new draw pile first, so a
    player in debt draws from it (face down) even when it is a single card."""
    deck = make_deck({0: (1, 0, -2)})  # card 0 puts its holder in debt
    game = position(
        deck,
        hands=[[1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13]],
        fates=[[0], [], []],
        draw_pile=[],
        discard=[14],  # every card is named: the draw pile is empty
        phase="draw",
    )
    assert game.in_debt(0)
    assert legal(game, 0) == LegalDraw(True, (), True, 1)
    game.apply(0, Draw("deck"))
    assert game.hands[0] == [1, 2, 3, 4, 14]
    assert game.events[-3:-1] == [Reshuffled(1), Drew(0, "deck", 14)]
    blind = view(game, SPECTATOR).log[-2]
    assert blind == Drew(0, "deck")  # face down: nobody else is shown the card


# -- R15 Win ---------------------------------------------------------------------------

GOTH_DECK = {0: (9, 0, 0), 1: (9, 0, 0), 2: (2, 0, 0), 3: (1, 0, 0)}


def test_r15_twenty_at_the_end_of_ones_own_turn_wins():
    game = position(
        make_deck(GOTH_DECK),
        hands=[[4, 5, 6, 7], [8], [9]],
        fates=[[0, 1, 2], [], []],
        phase="draw",
    )
    assert game.goth[0] == 20 and not game.over
    game.apply(0, Draw("deck"))
    assert game.over and game.phase == "over"
    assert game.winners == (0,)
    assert game.events[-1] == GameOver((0,), "goth")
    assert game.to_act() is None
    assert all(legal(game, seat) is None for seat in range(3))


def test_r15_nineteen_does_not_win():
    game = position(
        make_deck(GOTH_DECK),
        hands=[[4, 5, 6, 7], [8], [9]],
        fates=[[0, 1, 3], [], []],
        phase="draw",
    )
    game.apply(0, Draw("deck"))
    assert not game.over and game.turn == 1


def test_r15_other_players_totals_are_not_checked():
    # Seat 1 holds 20 while seat 0's turn ends: no win until seat 1 ends its own turn.
    game = position(
        make_deck(GOTH_DECK, size=20),
        hands=[[4, 5, 6, 7], [8, 10, 11], [9]],
        fates=[[], [0, 1, 2, 14], []],
        phase="draw",
    )
    game.apply(0, Draw("deck"))  # end of seat 0's turn; seat 1 has 20
    assert not game.over and game.turn == 1
    game.apply(1, DiscardFate(14))  # still 20
    game.apply(1, Distribute(((0, 8), (1, 10), (2, 11))))
    draw_from_deck(game, 1, 5)  # end of seat 1's own turn
    assert game.winners == (1,)


def test_r15_twenty_at_the_start_of_a_turn_is_not_enough():
    game = position(
        make_deck({0: (9, 0, 0), 1: (9, 0, 0), 2: (4, 0, 0)}),
        hands=[[], [8], [9]],
        fates=[[0, 1, 2], [], []],
    )
    assert game.goth[0] == 22
    game.apply(0, DiscardFate(2))
    draw_from_deck(game, 0, 5)
    assert game.goth[0] == 18
    assert not game.over and game.turn == 1


def test_r15_reaching_twenty_by_ones_own_placement_wins_at_the_end_of_the_turn():
    game = position(
        make_deck(GOTH_DECK),
        hands=[[2, 4, 5], [8], [9]],
        fates=[[0, 1], [], []],
        phase="distribute",
    )
    game.apply(0, Distribute(((0, 2), (1, 4), (2, 5))))
    assert game.goth[0] == 20 and not game.over  # not yet: the draw step comes first
    draw_from_deck(game, 0, 5)
    assert game.winners == (0,)


# -- H1 Round cap ----------------------------------------------------------------------


def test_h1_round_cap_is_on_by_default_at_100_and_shown():
    assert Variants().round_cap == 100
    game = Game.new(default_deck(), 3, seed=1)
    assert view(game, SPECTATOR).to_wire()["round_cap"] == 100
    off = Game.new(default_deck(), 3, seed=1, variants=Variants(round_cap=None))
    assert view(off, SPECTATOR).to_wire()["round_cap"] is None


def capped(goth_by_seat: dict[int, int], cap: int | None, round: int) -> Game:
    """Seat 2 (the last) about to end its turn in `round`; seat s's fate holds card s,
    worth goth_by_seat[s] Goth Points."""
    deck = make_deck({s: (g, 0, 0) for s, g in goth_by_seat.items()})
    return position(
        deck,
        hands=[[3], [4], [5, 6, 7, 8]],
        fates=[[0], [1], [2]],
        phase="draw",
        turn=2,
        round=round,
        variants=Variants(round_cap=cap),
    )


def test_h1_after_the_last_round_the_highest_goth_wins():
    game = capped({0: 3, 1: 5, 2: 4}, cap=2, round=2)
    game.apply(2, Draw("deck"))
    assert game.over and game.winners == (1,)
    assert game.events[-1] == GameOver((1,), "round_cap")


def test_h1_ties_share_the_win():
    game = capped({0: 5, 1: -2, 2: 5}, cap=2, round=2)
    game.apply(2, Draw("deck"))
    assert game.winners == (0, 2)
    assert game.events[-1] == GameOver((0, 2), "round_cap")


def test_h1_the_game_goes_on_before_the_cap_or_with_it_off():
    early = capped({0: 3, 1: 5, 2: 4}, cap=2, round=1)
    early.apply(2, Draw("deck"))
    assert not early.over and early.round == 2 and early.turn == 0
    off = capped({0: 3, 1: 5, 2: 4}, cap=None, round=100)
    off.apply(2, Draw("deck"))
    assert not off.over and off.round == 101


def test_h1_a_goth_win_in_the_last_round_is_a_goth_win():
    game = position(
        make_deck({0: (9, 0, 0), 1: (5, 0, 0), 2: (9, 0, 0), 9: (9, 0, 0), 10: (2, 0, 0)}),
        hands=[[3], [4], [5, 6, 7, 8]],
        fates=[[0], [1], [2, 9, 10]],
        phase="draw",
        turn=2,
        variants=Variants(round_cap=1),
    )
    game.apply(2, Draw("deck"))
    assert game.winners == (2,)
    assert game.events[-1] == GameOver((2,), "goth")


# -- H2 Variants -----------------------------------------------------------------------


def test_h2_defaults_are_the_published_rules():
    assert Variants() == Variants(fate_discard="any", overflow="draw_step")


@pytest.mark.parametrize(
    "bad",
    [{"fate_discard": "bottom"}, {"overflow": "never"}, {"round_cap": 0}, {"round_cap": 1001}],
)
def test_h2_unknown_variant_values_are_refused(bad):
    # Read off the wire (a request's or a record's variants), where a value is checked.
    with pytest.raises(ProtocolError, match=r"bad_message: variants\."):
        Variants.from_wire(bad)


def test_h2_variants_round_trip_on_the_wire():
    chosen = Variants(fate_discard="top", overflow="immediate", round_cap=None, two_or_six=True)
    assert Variants.from_wire(chosen.to_wire()) == chosen
    assert Variants.from_wire(None) == Variants()


def test_h2_fate_discard_top_only_the_top_card():
    game = position(
        make_deck(), hands=[[3, 4, 5], [6], [7]], fates=[[0, 1, 2], [], []], variants=TOP
    )
    assert legal(game, 0) == LegalDiscardFate((2,))
    before = snapshot(game)
    with pytest.raises(MoveError) as caught:
        game.apply(0, DiscardFate(0))
    assert caught.value.code == "illegal_move" and "top card" in caught.value.message
    assert snapshot(game) == before
    game.apply(0, DiscardFate(2))
    assert game.fates[0] == [0, 1] and game.discard == [2]


def test_h2_fate_discard_top_a_cure_on_top_can_still_swoon():
    deck = make_deck({0: (0, 3, 0), 1: (0, 3, 0), 2: (0, -2, 0)})
    game = position(deck, hands=[[3, 4, 5], [6], [7]], fates=[[0, 1, 2], [], []], variants=TOP)
    game.apply(0, DiscardFate(2))
    assert game.fates[0] == [] and game.discard == [2, 0, 1]


def test_h2_overflow_immediate_a_non_active_player_discards_down_at_once():
    # Reading tested: a distribution is one atomic step (DESIGN: one `distribute` move), so
    # "at once" means right after it, before the active player's draw step goes on.
    deck = make_deck({3: (0, 3, 0)})
    game = position(deck, hands=[[3, 4, 5], [6, 7, 8, 9, 10], [11]], variants=IMMEDIATE)
    game.apply(0, Distribute(((0, 4), (1, 3), (2, 5))))
    assert game.phase == "draw" and game.turn == 0
    assert game.to_act() == 1
    assert legal(game, 1) == LegalDiscardHand((6, 7, 8, 9, 10), 3)
    assert legal(game, 0) is None
    before = snapshot(game)
    with pytest.raises(MoveError) as caught:
        game.apply(0, Draw("deck"))  # play does not go on first
    assert caught.value.code == "not_your_turn"
    assert snapshot(game) == before
    for card in (6, 8, 10):
        game.apply(1, DiscardHand(card))
    assert game.hands[1] == [7, 9]
    assert game.discard == [6, 8, 10]
    assert game.to_act() == 0 and game.phase == "draw"
    assert legal(game, 0) == LegalDraw(True, (6, 8, 10), False, 5)


def test_h2_overflow_immediate_several_players_discard_in_seat_order_from_the_active():
    deck = make_deck({3: (0, 3, 0), 4: (0, 4, 0)})
    game = position(
        deck,
        hands=[[7, 8, 9, 10, 11], [3, 4, 5], [12, 13, 14]],
        turn=1,
        variants=IMMEDIATE,
    )
    # Seat 1 makes seat 2 (limit 2, holds 3) and seat 0 (limit 1, holds 5) overflow.
    game.apply(1, Distribute(((0, 4), (1, 5), (2, 3))))
    assert game.to_act() == 2  # leftwards from the active seat 1: 2 before 0
    game.apply(2, DiscardHand(12))
    assert game.to_act() == 0
    assert legal(game, 0) == LegalDiscardHand((7, 8, 9, 10, 11), 4)
    for card in (7, 8, 9, 10):
        game.apply(0, DiscardHand(card))
    assert game.to_act() == 1 and game.phase == "draw"


def test_h2_overflow_immediate_the_active_player_after_a_fate_discard():
    deck = make_deck({0: (0, 3, 0), 1: (0, -3, 0)})
    start = dict(hands=[[2, 3, 4, 5, 6], [7], [8]], fates=[[0, 1], [], []])
    game = position(deck, **start, variants=IMMEDIATE)
    game.apply(0, DiscardFate(1))  # the cure goes: sickness 3, limit 2, holding 5
    assert game.phase == "distribute"
    assert legal(game, 0) == LegalDiscardHand((2, 3, 4, 5, 6), 3)
    with pytest.raises(MoveError) as caught:
        game.apply(0, Distribute(((0, 2), (1, 3), (2, 4))))
    assert caught.value.code == "illegal_move"
    for card in (2, 3, 4):
        game.apply(0, DiscardHand(card))
    assert legal(game, 0) == LegalDistribute((5, 6), (0, 1, 2), 2, False)
    # The published rule (draw_step) lets the player distribute first.
    published = position(deck, **start)
    published.apply(0, DiscardFate(1))
    assert legal(published, 0) == LegalDistribute((2, 3, 4, 5, 6), (0, 1, 2), 3, True)


# -- H3 Deck file ----------------------------------------------------------------------


def test_h3_another_deck_file_is_validated_and_used(tmp_path: Path):
    special = {i: ((i % 7) - 3 or 1, (i % 3) - 1, (i % 5) - 2) for i in range(55)}
    path = tmp_path / "transcribed.toml"
    path.write_text(deck_toml(special, size=55).replace("Test deck", "Transcribed"))
    deck = load_deck(path)
    assert deck.name == "Transcribed" and len(deck) == 55
    assert deck.cards[10].goth == special[10][0] and deck.cards[10].money == special[10][2]
    game = Game.new(deck, 5, seed=8)
    assert game.deck is deck
    play_random(game, random.Random(8), 60)
    for seat in range(5):
        assert game.goth[seat] == sum(special[c][0] for c in game.fates[seat])


def test_h3_an_invalid_deck_file_is_refused_before_any_game(tmp_path: Path):
    path = tmp_path / "broken.toml"
    path.write_text(deck_toml({20: (0, 12, 0)}, size=55))
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert str(path) in str(caught.value)
    assert caught.value.card == 21 and caught.value.field == "sickness"


def test_h3_a_deck_too_small_for_the_table_is_refused_before_the_deal():
    deck = make_deck(size=15)
    Game.new(deck, 3, seed=1)  # 15 cards deal three players exactly
    with pytest.raises(DeckError, match="too few") as caught:
        Game.new(deck, 4, seed=1)
    assert "needs 20" in str(caught.value)
