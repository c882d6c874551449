"""The search's fast paths decide as the heuristic does: its rollouts play the heuristic's
move, its nodes below the root hold the heuristic's best distinct moves, the placements it
scores without building are every legal placement, and the evaluator's caches never answer
for another position."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.bots.evaluate import Evaluator, sickness_tail, threat
from server.bots.heuristic import (
    KEEP_DISCOUNT,
    HeuristicBot,
    _orders,
    _sums,
    placements,
    scored_moves,
)
from server.bots.ismcts import OPPONENT_WIDTH, OWN_WIDTH, IsmctsBot, best_distinct
from server.bots.position import Position
from server.game import Distribute, LegalDistribute, LegalDraw, legal, view
from tests.bots.test_ismcts import DECK, VARIANTS, positions


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("variants", VARIANTS)
def test_the_rollout_plays_the_heuristic_move(players, variants):
    """Every decision but a draw (a rollout takes its draws as one step), and the RNG is
    left where the heuristic leaves it: the same ties were broken."""
    compared = 0
    for seed in range(2):
        for game, seat in positions(players, variants, seed, every=1):
            if isinstance(legal(game, seat), LegalDraw):
                continue
            search, rng = IsmctsBot(DECK, iterations=1), random.Random(seed)
            heuristic = HeuristicBot(DECK, random.Random(seed))
            expected = heuristic.choose(view(game, seat, log_size=0))
            assert search._policy(game, seat, rng) == [expected]
            assert rng.random() == heuristic.rng.random()
            compared += 1
    assert compared > 20


@pytest.mark.parametrize("players", [3, 4, 5])
def test_below_the_root_the_heuristic_best_distinct_moves(players):
    bot = IsmctsBot(DECK, iterations=1)
    placed = 0
    for game, seat in positions(players, VARIANTS[0], seed=7, every=1):
        choice = legal(game, seat)
        assert choice is not None
        scored = scored_moves(Evaluator(Position.of_game(game, seat), after_placing=True), choice)
        for observer, width in ((seat, OWN_WIDTH), ((seat + 1) % players, OPPONENT_WIDTH)):
            expected = best_distinct(DECK, scored, width)
            assert bot._candidates(game, seat, observer) == expected
        placed += isinstance(choice, LegalDistribute)
    assert placed > 5


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(3, 5),
    seed=st.integers(0, 10_000),
    skip=st.integers(0, 5),  # a game of three rounds has at least nine placements
)
def test_the_placements_scored_are_every_legal_placement(players, seed, skip):
    """Each placement once, each legal, each scored as its gains say (the keep discount of
    a hand larger than the table included)."""
    for game, seat in positions(players, VARIANTS[0], seed, every=1):
        choice = legal(game, seat)
        if isinstance(choice, LegalDistribute):
            if skip == 0:
                break
            skip -= 1
    assert isinstance(choice, LegalDistribute) and skip == 0
    evaluator = Evaluator(Position.of_game(game, seat), after_placing=True)
    scored = placements(evaluator, choice)
    gives = [give for _, give in scored]
    assert len(set(gives)) == len(gives)
    assert all(game.can(seat, Distribute(give)) for give in gives)
    hand, recipients = choice.hand, choice.recipients
    if choice.each_gets_one:
        assert len(gives) == len(list(permutations(hand, choice.count)))
        keep = [KEEP_DISCOUNT * max(evaluator.gain(s, card) for s in recipients) for card in hand]
    else:
        assert len(gives) == len(list(permutations(recipients, choice.count)))
    for score, give in scored:
        expected = sum(evaluator.gain(s, card) for s, card in give)
        if choice.each_gets_one:
            placed = {card for _, card in give}
            expected += sum(k for card, k in zip(hand, keep, strict=True) if card not in placed)
        assert score == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from([(5, 5), (5, 4), (4, 4), (4, 3), (5, 3), (5, 2), (5, 1), (2, 2)]),
    data=st.data(),
)
def test_the_placement_sums_are_those_sum_gives(shape, data):
    """Orders that begin alike share their beginning's additions, and each sum is still
    what sum() gives for the order's entries, bit for bit (left to right from 0), with
    `plus` added to it after."""
    options, rows = shape
    size = options * rows
    table = data.draw(st.lists(st.floats(-60, 60), min_size=size, max_size=size))
    orders, levels = _orders(options, rows)
    expected = [sum(table[row * options + o] for row, o in enumerate(order)) for order in orders]
    assert _sums(table, levels) == expected
    plus = data.draw(st.floats(-60, 60))  # the kept cards' share, added to each sum last
    assert _sums(table, levels, plus) == [plus + score for score in expected]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_cached_tails_are_those_of_the_position(players):
    """Built after many other positions (the caches warm) or alone (the caches cleared), an
    evaluator values every pile the same: no cached answer belongs to another position."""
    checked = 0
    for seed in range(3):
        for game, seat in positions(players, VARIANTS[1], seed, every=1):
            position = Position.of_game(game, seat)
            warm = Evaluator(position, after_placing=True)
            sickness_tail.cache_clear()
            threat.cache_clear()
            cold = Evaluator(position, after_placing=True)
            assert (warm.tail, warm.values, warm.stake) == (cold.tail, cold.values, cold.stake)
            checked += 1
            for other in range(players):  # warm the caches with the other seats' views
                Evaluator(Position.of_game(game, other))
    assert checked > 20
