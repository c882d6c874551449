"""The draw pile's public facts (R14), which the view carries (`draw_pool`, `pool_draws`),
checked against the engine's truth: whatever the view says the draw pile may hold, it does
hold no other card; and a bot over the network, which sees the view as sent, chooses as the
same bot in process does."""

from __future__ import annotations

import random

import pytest

from protocol.view import View
from server.bots.ismcts import IsmctsBot
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
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))


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
            seen = view(game, seat)
            if seen.draw_pool is None:
                assert not any(isinstance(e, Reshuffled) for e in game.events)
                assert seen.pool_draws == ()
                continue
            reshuffled += 1
            pool = set(seen.draw_pool)
            assert set(game.draw_pile) <= pool
            for other in range(players):
                assert len(hidden(game, other) & pool) <= seen.pool_draws[other]
    assert reshuffled > 20  # the games did exercise reshuffled draw piles


def test_r14_the_draw_pool_reaches_a_client_as_the_engine_made_it():
    for game, seat in played(4, 1, Variants(round_cap=40)):
        seen = view(game, seat)
        if seen.draw_pool is not None and game.round > 3:
            assert View.from_wire(seen.to_wire()) == seen
            return
    raise AssertionError("the game never reshuffled")


def test_a_networked_hard_bot_chooses_as_the_same_bot_in_process():
    """The view as sent (its last 30 events, through msgpack) and the view the server's own
    bot reads (no log at all) lead the search to the same move: it needs nothing the log
    alone told (issue 23: the draw pile's possible cards are in the view)."""
    compared = 0
    for game, seat in played(4, 2, Variants(round_cap=40)):
        if game.draw_pool is None or game.round % 3 or compared >= 6:
            continue
        sent = View.from_wire(view(game, seat).to_wire())
        own = view(game, seat, log_size=0)
        networked = IsmctsBot(DECK, iterations=40, worlds=8)
        in_process = IsmctsBot(DECK, iterations=40, worlds=8)
        assert networked.choose(sent) == in_process.choose(own)
        compared += 1
    assert compared >= 3
