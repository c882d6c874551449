"""A position is what one seat may know: the search builds it from a sampled world with
`of_game`, and it must be exactly what that seat's view gives (`of_view`), never more."""

from __future__ import annotations

import random

import pytest

from server.bots.position import Position
from server.bots.random_bot import RandomBot
from server.game import Game, Variants, default_deck, view

DECK = default_deck()


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("variants", [Variants(), Variants(overflow="immediate")])
def test_a_world_shows_a_seat_what_its_view_shows(players, variants):
    for seed in range(3):
        bots = [RandomBot(DECK, random.Random(seed * 8 + s)) for s in range(players)]
        game = Game.new(DECK, players, seed, variants)
        while not game.over:
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat, log_size=0)
            assert Position.of_game(game, seat) == Position.of_view(seen, DECK)
            for other in range(players):  # every seat's position, not only the one to act
                assert (
                    Position.of_game(game, other).unseen
                    == Position.of_view(view(game, other, log_size=0), DECK).unseen
                )
            game.apply(seat, bots[seat].choose(seen))


def test_the_unseen_cards_are_the_hidden_hands_and_the_draw_pile():
    game = Game.new(DECK, 4, 3)
    position = Position.of_game(game, 0)
    hidden = {c for s in (1, 2, 3) for c in game.hands[s]} | set(game.draw_pile)
    assert set(position.unseen) == hidden
    assert position.hand == tuple(game.hands[0])
