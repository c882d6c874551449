"""The draw pile's public facts read from the log (R14), checked against the engine's truth:
whatever the log says the draw pile may hold, it does hold no other card."""

from __future__ import annotations

import random

import pytest

from server.bots.history import draw_facts
from server.bots.random_bot import RandomBot
from server.game import Game, Reshuffled, Variants, default_deck, view

DECK = default_deck()


def played(players: int, seed: int, variants: Variants):
    """Every decision of a game between random bots (they reshuffle often): (game, seat)."""
    bots = [RandomBot(DECK, random.Random(seed * 8 + s)) for s in range(players)]
    game = Game.new(DECK, players, seed, variants)
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        yield game, seat
        game.apply(bots[seat].choose(view(game, seat, log_size=0)))


def hidden(game: Game, seat: int) -> set[int]:
    return set(game.hands[seat]) - game.known[seat]


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize(
    "variants", [Variants(round_cap=30), Variants(overflow="immediate", round_cap=30)]
)
def test_r14_the_pool_holds_the_draw_pile_and_the_hands_hold_no_more_than_was_drawn(
    players, variants
):
    reshuffled = 0
    for seed in range(3):
        for game, seat in played(players, seed, variants):
            seen = view(game, seat, log_size=len(game.events))
            facts = draw_facts(seen)
            assert facts is not None  # a log from the deal always tells
            if facts.pool is None:
                assert not any(isinstance(e, Reshuffled) for e in game.events)
                continue
            reshuffled += 1
            assert set(game.draw_pile) <= facts.pool
            for other in range(players):
                assert len(hidden(game, other) & facts.pool) <= facts.drawn[other]
    assert reshuffled > 20  # the games did exercise reshuffled draw piles


def test_a_short_log_tells_nothing_unless_it_spans_two_reshuffles():
    told = 0
    for game, seat in played(4, 1, Variants(round_cap=40)):
        facts = draw_facts(view(game, seat, log_size=30))
        if facts is None:
            continue
        told += 1
        if facts.pool is not None:
            assert set(game.draw_pile) <= facts.pool
            assert all(len(hidden(game, s) & facts.pool) <= facts.drawn[s] for s in range(4))
    assert told > 0
