"""Are the moments a review tells real mistakes? (issue 30 §3) Printed, never asserted.

    nice -n 10 .venv/bin/python bench/review_truth.py [--games 10] [--play-outs 300]
        [--told 10] [--jobs 2] [--before DIR]

Plays `--games` 4-seat games (seeded: the same games on every run and version) where seat
0 is the easy bot, a player who mostly plays sensibly and sometimes gives away what a
careful player keeps, against three normal bots, and reviews seat 0 of each, as the server
does (`server.bots.review`). Of every
moment told, the `--told` dearest (by the review's own price) are then played out
`--play-outs` times each from the seat's own information: the cards it could not see dealt
again (`worlds.determinize`, from a seed of the bench's own), once with the advised move and
once with the move played, the same deal and the same bots' random numbers for both (common
random numbers), every seat then played by the normal bot to the game's end. A moment is a
*real mistake* when the advised move's share of wins is above the played one's by more
than the 95 % interval of the difference, the *advice is worse* when it is below by as much,
and otherwise *no measurable difference*; "no chance" when neither move won a game.

`--before DIR`: the same for the review of the source tree DIR (e.g. `git archive main`
unpacked), whose told moments are its three costliest a game, for before/after figures in
one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import msgspec

PLAYERS = 4
SEAT = 0


def games(count: int) -> list[Any]:
    """`count` finished games (seeds 1…), as a review replays them: seat 0 easy, the
    others normal."""
    from server.bots.gentle import GentleBot
    from server.bots.heuristic import HeuristicBot
    from server.bots.review import FinishedGame
    from server.game import Game, Variants, default_deck, view

    deck = default_deck()
    played = []
    for seed in range(1, count + 1):
        bots = [
            (GentleBot if s == SEAT else HeuristicBot)(deck, random.Random(seed * 8 + s))
            for s in range(PLAYERS)
        ]
        game = Game.new(deck, PLAYERS, seed)
        while not game.over:
            seat = game.to_act()
            assert seat is not None
            game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))
        names = tuple(f"P{s + 1}" for s in range(PLAYERS))
        played.append(FinishedGame(deck, Variants(), names, seed, 0, tuple(game.moves)))
    return played


def told_now(index: int) -> list[dict[str, Any]]:
    """The moments this tree's review tells for seat 0 of game `index`, with its price."""
    from server.bots import review

    played = games(index + 1)[index]
    moments = [
        review.judge(seen, played.deck, move, step) for seen, move, step in played.decisions(SEAT)
    ]
    checks = []
    for moment in review.candidates(moments):
        seen, _ = played.decision(SEAT, moment.step)
        checks.append(review.check(seen, played.deck, moment))
    by_step = {m.step: m for m in moments}
    return [
        {
            "game": index,
            "step": c.step,
            "played": msgspec.to_builtins(by_step[c.step].played),
            "advised": msgspec.to_builtins(by_step[c.step].advised),
            "price": c.given_up,
        }
        for c in review.told(checks)
    ]


def told_before(count: int) -> None:
    """In the tree given by --before: its three costliest moments of each game, as JSON."""
    from server.bots import review

    found = []
    for index, played in enumerate(games(count)):
        moments = [
            review.judge(seen, played.deck, move, step)
            for seen, move, step in played.decisions(SEAT)
        ]
        found += [
            {
                "game": index,
                "step": m.step,
                "played": msgspec.to_builtins(m.played),
                "advised": msgspec.to_builtins(m.advised),
                "price": m.cost,
            }
            for m in review.costliest(moments)  # type: ignore[attr-defined]
        ]
    print(json.dumps(found))


def truth(moment: dict[str, Any], play_outs: int) -> dict[str, Any]:
    """The moment's two moves played out from the seat's information, paired."""
    from protocol.moves import Move
    from server.bots.heuristic import HeuristicBot
    from server.bots.worlds import determinize
    from server.game import view

    index = moment["game"]
    played = games(index + 1)[index]
    seen, _ = played.decision(SEAT, moment["step"])
    moves = [msgspec.convert(moment[k], Move) for k in ("advised", "played")]
    diffs, wins = [], [0.0, 0.0]
    for i in range(play_outs):
        shares = []
        for move in moves:
            world = determinize(seen, played.deck, random.Random(f"truth/{i}"))
            world.apply(SEAT, move)
            bots = [HeuristicBot(played.deck, random.Random(i * 8 + s)) for s in range(PLAYERS)]
            while not world.over:
                seat = world.to_act()
                assert seat is not None
                world.apply(seat, bots[seat].choose(view(world, seat, log_size=0)))
            assert world.winners is not None
            shares.append(1 / len(world.winners) if SEAT in world.winners else 0.0)
        diffs.append(shares[0] - shares[1])
        wins[0] += shares[0]
        wins[1] += shares[1]
    mean = sum(diffs) / play_outs
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (play_outs - 1) / play_outs)
    return {
        **moment,
        "advised_wins": wins[0] / play_outs,
        "played_wins": wins[1] / play_outs,
        "diff": mean,
        "interval": 1.96 * spread,
    }


def verdict(result: dict[str, Any]) -> str:
    if result["advised_wins"] == result["played_wins"] == 0:
        return "no chance"
    if result["diff"] - result["interval"] > 0:
        return "real mistake"
    if result["diff"] + result["interval"] < 0:
        return "advice worse"
    return "no measurable difference"


def report(label: str, told: list[dict[str, Any]], args: argparse.Namespace) -> None:
    dearest = sorted(told, key=lambda m: -m["price"])[: args.told]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(truth, dearest, [args.play_outs] * len(dearest)))
    print(f"{label}: {len(told)} moments told in {args.games} games; the {len(dearest)} dearest:")
    counts: dict[str, int] = {}
    for r in results:
        said = verdict(r)
        counts[said] = counts.get(said, 0) + 1
        print(
            f"  game {r['game'] + 1:2} step {r['step']:3}  price {r['price']:6.2f}   advised "
            f"{r['advised_wins']:6.1%}  played {r['played_wins']:6.1%}   difference "
            f"{100 * r['diff']:+5.1f} ± {100 * r['interval']:4.1f} points   {said}"
        )
    print(f"  {label}: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--play-outs", type=int, default=300)
    parser.add_argument("--told", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--before", metavar="DIR", help="also the review of this source tree")
    parser.add_argument("--old-review", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.old_review:  # run inside the tree given by --before
        told_before(args.games)
        return
    started = time.perf_counter()
    if args.before:
        before = subprocess.run(
            [sys.executable, "-S", __file__, "--old-review", "--games", str(args.games)],
            env={**os.environ, "PYTHONPATH": os.pathsep.join([args.before, *sys.path[1:]])},
            cwd=args.before,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        report("before", json.loads(before), args)
    with ProcessPoolExecutor(args.jobs) as pool:
        told = [m for found in pool.map(told_now, range(args.games)) for m in found]
    report("now", told, args)
    print(f"wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
