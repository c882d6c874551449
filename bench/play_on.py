"""Play on from here (issue 22 §3): how long the searches' job takes, replaying a finished
game to a turn and sampling the seat's world, beside replaying the whole game (the
baseline, which any record or review pays). Printed, never asserted.

    .venv/bin/python bench/play_on.py [--games 20] [--seats 4]

Games of heuristic bots, played to the end; for each, `PlayOnDeal.run` from the first turn,
the middle turn and the last turn before the end, timed. Reported: p50 and max of each in
ms, and each p50's ratio to the whole game's replay. The job's expected thinking time
(`jobs.PLAY_ON_TIME`, what the pool's queue counts it as) is printed beside them.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable

from server.bots.heuristic import HeuristicBot
from server.bots.jobs import PLAY_ON_TIME, PlayOnDeal
from server.bots.play_on import turn_start
from server.bots.review import FinishedGame
from server.game import Game, Variants, default_deck, view

DECK = default_deck()


def played(seed: int, seats: int) -> FinishedGame:
    bots = [HeuristicBot(DECK, random.Random(seed + s)) for s in range(seats)]
    game = Game.new(DECK, seats, seed)
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))
    names = tuple(f"Seat {s}" for s in range(seats))
    return FinishedGame(DECK, Variants(), names, seed, 0, tuple(game.moves))


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"whole replay": [], "turn 1": [], "middle": [], "last": []}
    for seed in range(args.games):
        game = played(seed, args.seats)
        turns = turn_start(game, 1_000_000)
        assert isinstance(turns, int)
        last = turns - 1  # the last turn's start before the game's end
        times["whole replay"].append(
            timed(functools.partial(Game.replay, DECK, args.seats, game.seed, game.moves))
        )
        for label, turn in (("turn 1", 1), ("middle", max(1, last // 2)), ("last", last)):
            job = PlayOnDeal(game, 0, turn, seed)
            times[label].append(timed(job.run))
    base = statistics.median(times["whole replay"])
    expected = PLAY_ON_TIME * 1000
    print(f"{args.games} games of {args.seats} heuristic bots; PLAY_ON_TIME {expected:g} ms")
    for label, values in times.items():
        p50 = statistics.median(values)
        print(f"  {label:13} p50 {p50:7.2f} ms  max {max(values):7.2f} ms  x{p50 / base:5.2f}")


if __name__ == "__main__":
    main()
