"""Hints: the strongest bot's move with a one-line reason built from the evaluator."""

from __future__ import annotations

import random

from protocol import decode, encode, server_messages
from server.bots.advise import advise, reason
from server.bots.heuristic import HeuristicBot
from server.game import Distribute, Game, default_deck, view
from tests.bots.botkit import NAP, SCENARIO_DECK, placements, stomach_bug_in_plain_sight

DECK = default_deck()


def test_the_hint_for_the_visible_stomach_bug_is_the_cure_and_says_why():
    advice = advise(view(stomach_bug_in_plain_sight(), 0), SCENARIO_DECK, think_time=0.2)
    assert placements(advice.move)[0] == NAP
    assert advice.reason.startswith(f"{SCENARIO_DECK.card_name(NAP)} keeps you out of swoon")
    assert "; " in advice.reason  # and the placement that matters most against an opponent


def test_every_decision_of_a_game_gets_a_legal_hint_and_a_one_line_reason():
    game = Game.new(DECK, 4, 2)
    bots = [HeuristicBot(DECK, random.Random(s)) for s in range(4)]
    kinds = set()
    while not game.over and game.round <= 6:
        seat = game.to_act()
        assert seat is not None
        seen = view(game, seat)
        advice = advise(seen, DECK, think_time=0.01)
        assert game.can(advice.move)
        assert advice.reason and "\n" not in advice.reason and len(advice.reason) <= 120
        kinds.add(advice.move.kind)
        game.apply(bots[seat].choose(seen))
    assert kinds == {"discard_fate", "distribute", "draw"}


def test_a_reason_names_the_leader_it_hurts():
    game = stomach_bug_in_plain_sight()
    seen = view(game, 0)
    move = Distribute(0, ((0, NAP), (1, 28), (2, 27), (3, 9)))  # Pastel Hoodie on seat 1
    # a view without the lobby's names counts seats as players do, from 1
    assert "to seat 2, the leader" in reason(seen, SCENARIO_DECK, move)


def test_the_hint_message_carries_its_reason_and_an_older_one_parses_without():
    hint = server_messages.Hint(move={"kind": "draw", "source": "deck"}, reason="draws blind")
    assert server_messages.parse(decode(encode(hint))) == hint
    older = server_messages.parse({"t": "hint", "move": {"kind": "draw", "source": "deck"}})
    assert isinstance(older, server_messages.Hint) and older.reason is None
