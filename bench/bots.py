"""Bot speed (issue 12), printed as figures, never asserted.

    nice -n 10 .venv/bin/python bench/bots.py [--moves 400] [--searches 30]

- time a move of the heuristic (normal), against today's heuristic frozen in
  `bench/baseline_heuristic.py`, measured in the same run on the same positions;
- ISMCTS iterations a second at 4 and 5 seats (the search's strength is its speed: the
  engine's speed-up shows here), and its think time a move at its default;
- a hint's wall time (`advise`: search and reason; the target is 0.3 s).

Positions come from games of four heuristic bots, seeds fixed, so runs compare.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from baseline_heuristic import BaselineHeuristicBot

from server.bots.advise import advise
from server.bots.heuristic import HeuristicBot
from server.bots.ismcts import IsmctsBot
from server.game import Game, View, default_deck, view

DECK = default_deck()


def views(players: int, count: int, seed: int = 3) -> list[View]:
    """`count` decisions of games between heuristic bots, each with its whole log."""
    seen: list[View] = []
    while len(seen) < count:
        bots = [HeuristicBot(DECK, random.Random(seed * 8 + s)) for s in range(players)]
        game = Game.new(DECK, players, seed)
        while not game.over and len(seen) < count:
            seat = game.to_act()
            assert seat is not None
            here = view(game, seat, log_size=len(game.events))
            seen.append(here)
            game.apply(bots[seat].choose(here))
        seed += 1
    return seen


def describe(times: list[float]) -> str:
    ordered = sorted(t * 1000 for t in times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"mean {statistics.mean(ordered):8.2f} ms   p50 {statistics.median(ordered):8.2f} ms"
        f"   p99 {p99:8.2f} ms   max {ordered[-1]:8.2f} ms   (n={len(ordered)})"
    )


def timed(choose: Callable[[View], object], positions: list[View]) -> list[float]:
    times = []
    for seen in positions:
        started = time.perf_counter()
        choose(seen)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--searches", type=int, default=30)
    args = parser.parse_args()

    positions = views(4, args.moves)
    baseline = BaselineHeuristicBot(DECK)
    normal = HeuristicBot(DECK)
    print(f"baseline heuristic a move   {describe(timed(baseline.choose, positions))}")
    print(f"heuristic (normal) a move   {describe(timed(normal.choose, positions))}")
    for players in (4, 5):
        searched = views(players, 4 * args.searches)
        bot = IsmctsBot(DECK, random.Random(1))
        done = spent = 0.0
        think = []
        for seen in searched[::4]:
            started = time.perf_counter()
            bot.choose(seen)
            elapsed = time.perf_counter() - started
            if bot.last_iterations:
                done += bot.last_iterations
                spent += elapsed
                think.append(elapsed)
        print(
            f"ismcts {players} seats: {done / spent:6.0f} iterations/s, default think a move"
            f" {describe(think)}"
        )
    hints = positions[:: max(1, len(positions) // args.searches)]
    print(f"hint (advise) wall time     {describe(timed(lambda v: advise(v, DECK), hints))}")


if __name__ == "__main__":
    main()
