"""Bot speed (issue 12), printed as figures, never asserted.

    nice -n 10 .venv/bin/python bench/bots.py [--moves 400] [--searches 30] [--before DIR]

- time a move of the heuristic (normal), against today's heuristic frozen in
  `bench/baseline_heuristic.py`, measured in the same run on the same positions;
- ISMCTS iterations a second at 4 and 5 seats (the search's strength is its speed: the
  engine's speed-up shows here), and its think time a move at its default; with
  `--before DIR` (a checkout of an earlier commit, e.g. `git worktree add DIR main`) its
  search is measured too, position by position in the same run, and the ratio printed;
- a hint's wall time (`advise`: search and reason).

Positions come from games of four heuristic bots, seeds fixed, so runs compare.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from baseline_heuristic import BaselineHeuristicBot

from server.bots.advise import advise
from server.bots.heuristic import HeuristicBot
from server.bots.ismcts import IsmctsBot
from server.game import Game, View, default_deck, view

DECK = default_deck()
FIXED_ITERATIONS = 40  # for comparing the trees of two searches


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
            game.apply(seat, bots[seat].choose(here))
        seed += 1
    return seen


def bots_of(checkout: Path) -> ModuleType:
    """The `ismcts` module of another checkout's `server/bots`, loaded as a package of its
    own (its relative imports stay in it; the engine is this checkout's)."""
    root = checkout / "server" / "bots"
    spec = importlib.util.spec_from_file_location(
        "before_bots", root / "__init__.py", submodule_search_locations=[str(root)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["before_bots"] = package
    spec.loader.exec_module(package)
    return importlib.import_module("before_bots.ismcts")


def fixed(search: type[IsmctsBot], seed: int, iterations: int) -> IsmctsBot:
    """A search bounded by its iterations alone: today's, or an older one's (which also
    took a think time: none)."""
    if "think_time" in inspect.signature(search).parameters:  # before issue 30
        old = search  # its signature then, not today's
        return old(DECK, random.Random(seed), iterations=iterations, think_time=None)  # type: ignore[call-arg]
    return search(DECK, random.Random(seed), iterations=iterations)


def same_trees(searches: dict[str, type[IsmctsBot]], positions: list[View]) -> str:
    """Whether the searches grow the same trees and choose the same moves from the same
    seeds at a fixed iteration count (a pure speed-up must)."""
    alike = 0
    for seed, seen in enumerate(positions):
        grown = []
        for search in searches.values():
            bot = fixed(search, seed, FIXED_ITERATIONS)
            move = bot.choose(seen)
            root = bot.last_root
            tree = (
                None
                if root is None
                else {k: (c.visits, c.reward) for k, c in root.children.items()}
            )
            grown.append((move, tree))
        alike += all(other == grown[0] for other in grown)
    return (
        f"{alike}/{len(positions)} the same move and root visits and rewards"
        f" at {FIXED_ITERATIONS} iterations"
    )


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
    parser.add_argument("--before", type=Path, help="a checkout whose search to compare")
    args = parser.parse_args()

    positions = views(4, args.moves)
    baseline = BaselineHeuristicBot(DECK)
    normal = HeuristicBot(DECK)
    print(f"baseline heuristic a move   {describe(timed(baseline.choose, positions))}")
    print(f"heuristic (normal) a move   {describe(timed(normal.choose, positions))}")
    searches: dict[str, type[IsmctsBot]] = {"ismcts": IsmctsBot}
    if args.before:
        searches["before"] = bots_of(args.before).IsmctsBot
    for players in (4, 5):
        searched = views(players, 4 * args.searches)
        bots = {name: search(DECK, random.Random(1)) for name, search in searches.items()}
        done = dict.fromkeys(bots, 0.0)
        spent = dict.fromkeys(bots, 0.0)
        cpu = dict.fromkeys(bots, 0.0)  # this process's CPU time: what a quiet core would give
        think: dict[str, list[float]] = {name: [] for name in bots}
        for seen in searched[::4]:
            for name, bot in bots.items():  # in turn on each position: the same load
                started, started_cpu = time.perf_counter(), time.process_time()
                bot.choose(seen)
                elapsed = time.perf_counter() - started
                if bot.last_iterations:
                    done[name] += bot.last_iterations
                    spent[name] += elapsed
                    cpu[name] += time.process_time() - started_cpu
                    think[name].append(elapsed)
        rate = {name: done[name] / spent[name] for name in bots}
        for name in bots:
            print(
                f"{name} {players} seats: {rate[name]:6.0f} iterations/s, default think a move"
                f" {describe(think[name])}"
            )
            print(
                f"{name} {players} seats: {done[name] / len(think[name]):6.0f} iterations a"
                f" move at the default think; {done[name] / cpu[name]:6.0f} a CPU second"
            )
        if args.before:
            print(f"ismcts {players} seats: x{rate['ismcts'] / rate['before']:.2f} the iterations")
            print(f"ismcts {players} seats: {same_trees(searches, searched[1::4])}")
    hints = positions[:: max(1, len(positions) // args.searches)]
    print(f"hint (advise) wall time     {describe(timed(lambda v: advise(v, DECK), hints))}")


if __name__ == "__main__":
    main()
