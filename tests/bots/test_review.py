"""The review of a seat's decisions: judged from its views only (the same advice however
the hidden cards lay), costed by the evaluator, repeatable, and the same cut in parts."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.bots.evaluate import Evaluator
from server.bots.heuristic import HeuristicBot, scored_moves
from server.bots.ismcts import signature
from server.bots.jobs import ReviewPart
from server.bots.position import Position
from server.bots.random_bot import RandomBot
from server.bots.review import FinishedGame, costliest, judge, sentence
from server.game import Game, Variants, default_deck, view
from tests.bots.test_ismcts import positions, redealt

DECK = default_deck()
NAMES = ("Ada", "Bram", "Cleo")


def played_game(seed: int, players: int = 3) -> FinishedGame:
    """A short game (two rounds): seat 0 plays at random, the others as the heuristic."""
    variants = Variants(round_cap=2)
    bots = [RandomBot(DECK, random.Random(seed))] + [
        HeuristicBot(DECK, random.Random(seed + s)) for s in range(1, players)
    ]
    game = Game.new(DECK, players, seed, variants)
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))
    return FinishedGame(DECK, variants, NAMES[:players], seed, 0, tuple(game.moves))


@settings(max_examples=8, deadline=None)
@given(
    players=st.integers(3, 5),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    shuffle=st.integers(0, 10_000),
)
def test_the_advice_is_unchanged_when_the_hidden_cards_are_dealt_again(
    players, seed, steps, shuffle
):
    """A judgement reads only the seat's view: re-dealing the cards it cannot see,
    consistently with what it sees, changes neither the advice nor the cost."""
    game = next(
        (
            g
            for i, (g, _) in enumerate(positions(players, Variants(round_cap=12), seed, 1))
            if i == steps
        ),
        None,
    )
    if game is None:  # the game ended sooner
        return
    seat = game.to_act()
    assert seat is not None
    original = redealt(game, seat, random.Random(-1))
    other = redealt(game, seat, random.Random(shuffle))
    seen = view(original, seat, log_size=0)
    assert view(other, seat, log_size=0) == seen
    played = RandomBot(DECK, random.Random(seed)).choose(seen)
    moment = judge(seen, DECK, played, steps)
    assert judge(view(other, seat, log_size=0), DECK, played, steps) == moment
    assert original.can(seat, moment.advised) and other.can(seat, moment.advised)


def test_a_cost_is_the_evaluators_score_of_the_advice_less_that_of_the_move_played():
    played = played_game(seed=5)
    for seen, move, step in played.decisions(0)[:12]:
        moment = judge(seen, DECK, move, step)
        assert seen.legal is not None
        scores = {
            signature(DECK, m): s
            for s, m in scored_moves(Evaluator(Position.of_view(seen, DECK), True), seen.legal)
        }
        expected = scores[signature(DECK, moment.advised)] - scores[signature(DECK, move)]
        if signature(DECK, moment.advised) == signature(DECK, move):
            expected = 0.0
        assert moment.cost == expected
        assert moment == judge(seen, DECK, move, step)  # repeatable: a fixed search


def test_the_decisions_are_the_seats_moves_and_the_parts_join_to_the_whole():
    played = played_game(seed=9)
    decisions = played.decisions(1)
    assert [step for _, _, step in decisions] == [
        i for i, (seat, _) in enumerate(played.moves) if seat == 1
    ]
    assert all(seen.seat == 1 and seen.legal is not None for seen, _, _ in decisions)
    whole = [judge(seen, DECK, move, step) for seen, move, step in decisions]
    parts = []
    for start in range(0, len(decisions), 4):
        total, moments = ReviewPart(played, 1, start, start + 4).run()
        assert total == len(decisions)
        parts.extend(moments)
    assert parts == whole


def test_the_costliest_three_are_the_dearest_first_each_in_a_sentence():
    played = played_game(seed=2)
    moments = [judge(seen, DECK, move, step) for seen, move, step in played.decisions(0)]
    dear = costliest(moments)
    assert 0 < len(dear) <= 3  # a random player gives something up
    rest = [m for m in moments if m not in dear]
    assert all(m.cost >= r.cost for m in dear for r in rest)
    assert [m.cost for m in dear] == sorted((m.cost for m in dear), reverse=True)
    for moment in dear:
        said = sentence(moment, 0, DECK, NAMES)
        assert said.startswith(f"Round {moment.round}: you ")
        assert f"{moment.cost:.1f} Goth better" in said and "\n" not in said
        assert f"{moment.cost:.1f}" != "0.0"


def test_a_cost_too_small_to_say_is_no_costly_moment():
    """A sentence ending "0.0 Goth better" tells nothing, and the summary's total, rounded
    alike, reads 0.0 beside it (seen in the plain mode's review)."""
    played = played_game(seed=2)
    moment = next(judge(seen, DECK, move, step) for seen, move, step in played.decisions(0))
    crumbs = [dataclasses.replace(moment, step=i, cost=c) for i, c in enumerate((0.04, 0.01))]
    said = dataclasses.replace(moment, step=2, cost=0.06)
    assert costliest([*crumbs, said]) == [said]
