"""How far the advice can be trusted (issue 30 §1): the same hint under different seeds, on
the decisions where it matters. Printed as figures, never asserted.

    nice -n 10 .venv/bin/python bench/advice.py [--positions 120] [--seeds 5]
        [--reference 300] [--jobs 2] [--iterations N] [--worlds N] [--before DIR]

The positions are decisions of seat-to-act in 4-seat games between normal bots (seeded, so
the same on every run and version), every third decision that has more than one sensible
answer. For each:

- the reference: every move the search considers at the root (`root_candidates`), each
  played out in `--reference` worlds with common random numbers, from a seed of its own;
  the gap is the reference's best win chance less its second best, in points;
- the hint under `--seeds` seeds (the position's, then four others): the share of them that
  give the same move as most of them do (its *agreement*), and whether that move is the
  reference's best.

Reported over the positions whose gap is at least 3 points (where it matters) and over all:
the mean agreement, the positions where every seed agrees, the share that match the
reference, and the search's CPU time a hint. `--before DIR`: also ask the hints of the
source tree DIR (e.g. `git archive main` unpacked), as that tree's `advise` gives them, in a
process of its own, for before/after figures in one run.

`--reasons N`: instead, N hints of the same positions (the first N the search weighs) with
their reasons, each clause checked against the search's numbers and against the game once
the advice is made (the checks of tests/bots/test_advise.py), printed one by one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checks of tests/bots/test_advise.py, for --reasons
MATTERS = 3.0  # points of win chance between the best and the second best move
PLAYERS = 4


def positions(count: int, seed: int = 101) -> list[Any]:
    """Every third decision with a choice, of seeded games between heuristic bots."""
    from server.bots.heuristic import HeuristicBot
    from server.bots.ismcts import only_move
    from server.game import Game, default_deck, view

    deck = default_deck()
    found: list[Any] = []
    while len(found) < count:
        game = Game.new(deck, PLAYERS, seed)
        bots = [HeuristicBot(deck, random.Random(seed * 8 + s)) for s in range(PLAYERS)]
        decisions = 0
        while not game.over and len(found) < count:
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat, log_size=0)
            if only_move(seen) is None:
                if decisions % 3 == 0:
                    found.append(seen)
                decisions += 1
            game.apply(seat, bots[seat].choose(seen))
        seed += 1
    return found


def old_hints(args: argparse.Namespace) -> None:
    """In the tree given by --before: each position's hints under the seeds, as moves."""
    sys.path.remove(str(ROOT))  # put first for --reasons: here it would hide the old tree
    from server.bots.advise import advise
    from server.game import default_deck

    deck = default_deck()
    said = []
    for seen in positions(args.positions):
        said.append(
            # the tree given by --before, whose advise took a seed
            [msgspec.to_builtins(advise(seen, deck, seed=k).move) for k in range(args.seeds)]  # type: ignore[call-arg]
        )
    print(json.dumps(said))


def judged(args: argparse.Namespace, index: int) -> dict[str, Any]:
    """One position: its reference gap, the reference's best, and the hints under the seeds."""
    from server.bots.evaluate import Evaluator
    from server.bots.heuristic import scored_moves
    from server.bots.ismcts import IsmctsBot, root_candidates, signature
    from server.bots.position import Position, seed_of
    from server.game import default_deck

    deck = default_deck()
    seen = positions(index + 1)[index]
    bot = IsmctsBot(deck, iterations=args.iterations, worlds=args.worlds)
    position = Position.of_view(seen, deck)
    assert seen.legal is not None
    scored = scored_moves(Evaluator(position, after_placing=True), seen.legal)
    options = [move for _, move in root_candidates(position, seen.legal, scored)]
    reference = bot.weigh(seen, options, range(args.reference), seed=-1 - index)
    means = sorted(((w.mean(), repr(w.key)) for w in reference), reverse=True)
    base = seed_of(seen, deck)
    hints, spent = [], 0.0
    for k in range(args.seeds):
        started = time.process_time()
        verdict = bot.judge(seen, seed=base + k)
        spent += time.process_time() - started
        hints.append(repr(signature(deck, verdict.move)))
    return {
        "gap": 100 * (means[0][0] - means[1][0]) if len(means) > 1 else 100.0,
        "best": means[0][1],
        "hints": hints,
        "cpu": spent / args.seeds,
        "options": len(options),
    }


def reasons(count: int) -> None:
    """`count` reasons, each checked clause by clause; the positions are replayed to get
    the game each view was taken from (the checks apply the advice to it)."""
    from server.bots.advise import advice_of
    from server.bots.heuristic import HeuristicBot
    from server.bots.ismcts import IsmctsBot
    from server.game import Game, default_deck, view
    from tests.bots.test_advise import checked

    deck = default_deck()
    bot = IsmctsBot(deck)
    shown, seed = 0, 101
    while shown < count:
        game = Game.new(deck, PLAYERS, seed)
        bots = [HeuristicBot(deck, random.Random(seed * 8 + s)) for s in range(PLAYERS)]
        decisions = 0
        while not game.over and shown < count:
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat, log_size=0)
            verdict = bot.judge(seen)
            if verdict.advice is not None and decisions % 3 == 0:
                advice = advice_of(seen, deck, verdict)
                clauses = checked(game, seat, seen, verdict, advice.reason)
                shown += 1
                print(f"{shown:2}. {clauses} clauses, each checked: {advice.reason}", flush=True)
            decisions += verdict.advice is not None
            game.apply(seat, bots[seat].choose(seen))
        seed += 1


def agreement(hints: list[str]) -> tuple[float, str]:
    """The share of hints that name the most named move, and that move."""
    move, count = Counter(hints).most_common(1)[0]
    return count / len(hints), move


def report(label: str, results: list[dict[str, Any]]) -> None:
    for name, chosen in (
        (f"gap >= {MATTERS:g} points", [r for r in results if r["gap"] >= MATTERS]),
        ("every position", results),
    ):
        if not chosen:
            continue
        shares = [agreement(r["hints"]) for r in chosen]
        mean_share = statistics.mean(s for s, _ in shares)
        unanimous = sum(s == 1.0 for s, _ in shares)
        matches = sum(move == r["best"] for (_, move), r in zip(shares, chosen, strict=True))
        print(
            f"{label:7} {name:18} positions {len(chosen):3}   agreement {mean_share:6.1%}"
            f"   every seed the same {unanimous:3}   the reference's best {matches:3}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--reference", type=int, default=300, help="worlds a move, reference")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--before", metavar="DIR", help="also the hints of this source tree")
    parser.add_argument("--reasons", type=int, default=0, help="print N reasons, checked")
    parser.add_argument("--old-hints", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reasons:
        reasons(args.reasons)
        return
    if args.old_hints:  # run inside the tree given by --before
        old_hints(args)
        return
    from server.bots import ismcts

    args.iterations = args.iterations or ismcts.ITERATIONS
    args.worlds = args.worlds or ismcts.WORLDS
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(judged, [args] * args.positions, range(args.positions)))
    print(
        f"{args.positions} positions, {PLAYERS} seats, {args.seeds} seeds, reference "
        f"{args.reference} worlds a move; search: {args.iterations} iterations, "
        f"{args.worlds} worlds; CPU a hint mean {statistics.mean(r['cpu'] for r in results):.3f} s"
    )
    report("now", results)
    if args.before:
        before = json.loads(
            subprocess.run(
                [
                    sys.executable,
                    "-S",
                    __file__,
                    "--old-hints",
                    "--positions",
                    str(args.positions),
                    "--seeds",
                    str(args.seeds),
                ],
                env={**os.environ, "PYTHONPATH": os.pathsep.join([args.before, *sys.path[1:]])},
                cwd=args.before,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        from protocol.moves import Move
        from server.bots.ismcts import signature
        from server.game import default_deck

        deck = default_deck()
        old = [
            {**r, "hints": [repr(signature(deck, msgspec.convert(m, Move))) for m in said]}
            for r, said in zip(results, before, strict=True)
        ]
        report("before", old)
    print(f"wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
