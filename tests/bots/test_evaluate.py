"""The evaluator's fast paths (issue 23 §3: the search's speed) give exactly what its
one-pile, one-card formulas give, on positions from real games at every table size: a
search that reads them chooses the same moves as before, bit for bit."""

from __future__ import annotations

import random

import pytest

from server.bots.evaluate import Evaluator, deck_tables
from server.bots.heuristic import fate_worth, scored_moves
from server.bots.position import Position
from server.bots.random_bot import RandomBot
from server.game import (
    SWOON_AT,
    DiscardFate,
    Game,
    LegalDiscardFate,
    default_deck,
    legal,
    view,
)

DECK = default_deck()


def positions(players: int, seed: int):
    """Every decision of a game between random bots, as the deciding seat and the next seat
    see it, valued before and after placing (`after_placing` None and True)."""
    game = Game.new(DECK, players, seed)
    bots = [RandomBot(DECK, random.Random(seed * 8 + s)) for s in range(players)]
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        for who in (seat, (seat + 1) % players):
            for placed in (True, None):
                yield game, Position.of_game(game, who), placed
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_batched_gains_and_usefulness_match_the_one_card_formulas(players):
    for _, p, placed in positions(players, seed=players):
        e = Evaluator(p, placed)
        cards = p.unseen or p.hand
        for seat in range(players):
            afters = e.afters(seat, cards)
            for card, after in zip(cards, afters, strict=True):
                alone = e.pile(
                    seat,
                    p.goth[seat] + DECK.goth[card],
                    p.sickness[seat] + DECK.sickness[card],
                    p.money[seat] + DECK.money[card],
                )
                assert after == alone == e.after(seat, card)
            assert e.gains(seat, cards) == [e.stake[seat] * (a - e.values[seat]) for a in afters]
        useful = [max(e.gain(s, c) for s in range(players)) for c in cards]
        assert [e.usefulness(c) for c in cards] == useful
        if cards:  # on a fresh evaluator: the batched path values the kinds itself
            # the same sum, in the same order: a batched mean must not round differently
            assert Evaluator(p, placed).mean_usefulness(cards) == sum(useful) / len(cards)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_batch_values_each_card_as_its_best_gain(players):
    """On a fresh evaluator, after a few cards were valued alone, and for a hand with
    cards of one kind twice: each card's usefulness is its best gain (the first best)."""
    for _, p, placed in positions(players, seed=20 + players):
        cards = p.unseen[::3] + p.hand + p.hand
        useful = [max(Evaluator(p, placed).gain(s, c) for s in range(players)) for c in cards]
        assert Evaluator(p, placed).usefulnesses(cards) == useful
        some = Evaluator(p, placed)
        assert [some.usefulness(c) for c in cards[::4]] == useful[::4]
        assert some.usefulnesses(cards) == useful


@pytest.mark.parametrize("players", [3, 5])
def test_a_fate_discard_is_scored_once_a_kind_and_alike_for_each_card(players):
    kinds = deck_tables(DECK).kinds
    seen = 0
    for game, p, placed in positions(players, seed=10 + players):
        e = Evaluator(p, placed)
        choice = legal(game, p.me)
        if not isinstance(choice, LegalDiscardFate) or p.turn != p.me:
            continue
        seen += 1
        scored = scored_moves(e, choice)
        assert [m for _, m in scored] == [DiscardFate(c) for c in choice.cards]
        for (score, _), card in zip(scored, choice.cards, strict=True):
            assert score == fate_worth(e, card)
        by_kind: dict[int, float] = {}
        for score, card in zip(scored, choice.cards, strict=True):
            assert by_kind.setdefault(kinds[card], score[0]) == score[0]
    assert seen  # the games reached Fate discards


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_fate_discard_is_worth_the_best_card_of_the_hand_on_what_is_left(players):
    """fate_worth's loop gives the one-pile formula: the pile less the card, with the best
    card of the hand placed on it (or none, for a hand shorter than the table)."""
    seen = 0
    for _, p, placed in positions(players, seed=30 + players):
        e = Evaluator(p, placed)
        me = p.me
        for card in p.unseen[:6] + p.hand:  # any card's sums will do for the formula
            goth = p.goth[me] - DECK.goth[card]
            sickness = p.sickness[me] - DECK.sickness[card]
            money = p.money[me] - DECK.money[card]
            options = [
                e.pile(me, goth + DECK.goth[h], sickness + DECK.sickness[h], money + DECK.money[h])
                for h in p.hand
            ]
            if len(p.hand) < players:
                options.append(e.pile(me, goth, sickness, money))
            expected = 0.0 if sickness >= SWOON_AT else max(options)
            assert fate_worth(e, card) == expected
            seen += 1
    assert seen


def test_cards_of_one_kind_have_the_same_values_and_others_do_not():
    kinds = deck_tables(DECK).kinds
    assert deck_tables(DECK) is deck_tables(DECK)  # built once a deck
    values = list(zip(DECK.goth, DECK.sickness, DECK.money, strict=True))
    for a in range(len(DECK)):
        for b in range(len(DECK)):
            assert (kinds[a] == kinds[b]) == (values[a] == values[b])
    assert deck_tables(DECK).floored == tuple(max(0, s) for s in DECK.sickness)
