"""The one judge of advice (Principle 11): the search at a fixed budget, seeded from the
position, so the same position gets the same verdict on any machine, in any process, under
any load; its moves weighed in the same worlds (common random numbers)."""

from __future__ import annotations

import math
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from server.bots.heuristic import HeuristicBot
from server.bots.ismcts import IsmctsBot, signature
from server.bots.position import seed_of
from server.bots.random_bot import RandomBot
from server.bots.verdict import Outcome, Weighed, gap
from server.game import Distribute, Game, Variants, View, default_deck, view
from tests.bots.test_ismcts import positions, redealt

DECK = default_deck()
ROOT = Path(__file__).resolve().parents[2]
SMALL = {"iterations": 16, "worlds": 6}  # the real search, a smaller budget: quick


def a_placement(seed: int = 3) -> tuple[Game, View]:
    """A placement from a real game past its first round (before a reshuffle: `redealt`
    deals as if none had been), its view with a log."""
    for game, seat in positions(4, Variants(), seed, 1):
        seen = view(game, seat)
        if seen.legal is not None and seen.legal.kind == "distribute" and game.round > 1:
            assert seen.draw_pool is None
            return game, seen
    raise AssertionError("no placement")


def test_the_seed_is_the_positions_facts_not_its_names_log_or_clock():
    game, seen = a_placement()
    seat = seen.seat
    assert seat is not None
    bare = view(game, seat, log_size=0)
    assert seen.log and not bare.log
    renamed = msgspec.structs.replace(
        seen,
        players=tuple(msgspec.structs.replace(p, name=f"X{p.seat}") for p in seen.players),
    )
    assert seed_of(seen, DECK) == seed_of(bare, DECK) == seed_of(renamed, DECK)
    assert seed_of(view(redealt(game, seat, random.Random(9)), seat), DECK) == seed_of(seen, DECK)
    other = next(g for g, s in positions(4, game.variants, 4) if s == seat and g.round > 1)
    assert seed_of(view(other, seat), DECK) != seed_of(seen, DECK)


def test_the_same_position_gets_the_same_verdict_in_every_process():
    """Principle 11 across processes: Python's string hashing is salted per process, and
    nothing of the verdict may depend on it (nor on the clock, nor on the load)."""
    script = (
        "import sys; sys.path.insert(0, '.')\n"
        "from tests.bots.test_judge import a_placement, SMALL, DECK\n"
        "from server.bots.ismcts import IsmctsBot\n"
        "_, seen = a_placement()\n"
        "v = IsmctsBot(DECK, **SMALL).judge(seen)\n"
        "print(repr(v.move), [(repr(w.move), w.outcomes) for w in v.weighed])\n"
    )
    said = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": salt},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for salt in ("1", "2")
    }
    assert len(said) == 1
    _, seen = a_placement()
    verdict = IsmctsBot(DECK, **SMALL).judge(seen)
    here = f"{verdict.move!r} {[(repr(w.move), w.outcomes) for w in verdict.weighed]}\n"
    assert said == {here}


def test_the_budget_is_fixed_and_the_advice_comes_first():
    _, seen = a_placement()
    bot = IsmctsBot(DECK, **SMALL)
    verdict = bot.judge(seen)
    assert bot.last_root is not None and bot.last_root.visits == SMALL["iterations"]
    assert len(verdict.weighed) >= 2
    sizes = [len(w.outcomes) for w in verdict.weighed]
    assert set(sizes) <= {SMALL["worlds"], 2 * SMALL["worlds"]}
    assert bot.last_iterations == SMALL["iterations"] + sum(sizes)
    assert verdict.weighed[0].move == verdict.move
    assert verdict.of(verdict.favourite) is not None  # the obvious move is always weighed
    assert verdict == IsmctsBot(DECK, **SMALL).judge(seen)  # and again, the same


def test_moves_are_weighed_in_the_same_worlds_whatever_else_is_weighed():
    """World i is one world: a move played out in it gives the same outcome, weighed alone
    or beside others, before or after; so a move against itself differs by nothing."""
    _, seen = a_placement()
    bot = IsmctsBot(DECK, **SMALL)
    assert seen.legal is not None
    moves = [bot.judge(seen).move, HeuristicBot(DECK).choose(seen)]
    together = bot.weigh(seen, moves, range(5))
    alone = bot.weigh(seen, moves[1:], range(2, 5))
    assert alone[0].outcomes == together[1].outcomes[2:]
    same = gap(together[0], together[0])
    assert same.mean == 0.0 and same.noise == 0.0
    elsewhere = bot.weigh(seen, moves[:1], range(5), seed=seed_of(seen, DECK) + 1)
    assert elsewhere[0].outcomes != together[0].outcomes


def test_a_move_weighed_besides_changes_nothing_of_the_verdict():
    """A review weighs the move played beside the advice: the advice is the hint's all
    the same (issue 29 §3: the same judge, the same budget, the same seed)."""
    _, seen = a_placement()
    bot = IsmctsBot(DECK, **SMALL)
    alone = bot.judge(seen)
    played = next(
        move
        for seed in range(50)
        if signature(DECK, move := RandomBot(DECK, random.Random(seed)).choose(seen))
        not in {w.key for w in alone.weighed}
    )
    beside = bot.judge(seen, also=(played,))
    assert beside.move == alone.move
    assert beside.weighed[: len(alone.weighed)] == alone.weighed
    found = beside.of(signature(DECK, played))
    assert found is not None and len(found.outcomes) == len(alone.weighed[0].outcomes)


outcome = st.builds(
    Outcome,
    win=st.floats(0, 1),
    goth=st.just((0,)),
    money=st.just((0,)),
    sickness=st.just((0,)),
    swooned=st.just(()),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(outcome, outcome), min_size=2, max_size=30))
def test_a_gap_is_the_mean_difference_world_by_world_with_its_standard_error(pairs):
    a = Weighed("a", Distribute(()), tuple(x for x, _ in pairs))
    b = Weighed("b", Distribute(()), tuple(y for _, y in pairs))
    found = gap(a, b)
    diffs = [x.win - y.win for x, y in pairs]
    assert found.worlds == len(pairs)
    assert math.isclose(found.mean, statistics.fmean(diffs), abs_tol=1e-12)
    expected = statistics.stdev(diffs) / math.sqrt(len(diffs))
    assert math.isclose(found.noise, expected, rel_tol=1e-9, abs_tol=1e-12)
    assert found.clear(2.0) == (found.mean > 2.0 * found.noise)
