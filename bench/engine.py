"""Engine and bot speed (issue 2 targets), printed as figures, never asserted.

    .venv/bin/python bench/engine.py [--games 300] [--ismcts-moves 20]

- random-bot 4-player games per second on one core, through `view()` as in play
  (target >= 500), against a baseline measured in the same run: the same games with the
  bots handed `legal()` straight from the engine, so the ratio is the cost of the view;
- heuristic and ismcts time per move (ismcts default think time <= 1 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from server.bots.registry import make_bot
from server.game import Game, Legal, default_deck, legal, view

DECK = default_deck()


@dataclass
class BareView:
    """Only what RandomBot reads: the baseline skips building the rest of the view."""

    seat: int
    legal: Legal | None


def random_games(games: int, through_view: bool) -> float:
    started = time.perf_counter()
    for seed in range(games):
        game = Game.new(DECK, 4, seed)
        bots = [make_bot("random", DECK, random.Random(seed * 8 + s)) for s in range(4)]
        while not game.over:
            seat = game.to_act()
            seen = (
                view(game, seat, log_size=0) if through_view else BareView(seat, legal(game, seat))
            )
            game.apply(bots[seat].choose(seen))  # type: ignore[arg-type]
    return games / (time.perf_counter() - started)


def move_times(kind: str, moves: int, seed: int = 7) -> list[float]:
    """Seconds per decision of `kind` in seat 0 against heuristic bots."""
    times: list[float] = []
    while len(times) < moves:
        game = Game.new(DECK, 4, seed)
        kinds = [kind, "heuristic", "heuristic", "heuristic"]
        bots = [make_bot(k, DECK, random.Random(seed * 8 + s)) for s, k in enumerate(kinds)]
        while not game.over and len(times) < moves:
            seat = game.to_act()
            seen = view(game, seat, log_size=0)
            started = time.perf_counter()
            move = bots[seat].choose(seen)
            if seat == 0:
                times.append(time.perf_counter() - started)
            game.apply(move)
        seed += 1
    return times


def describe(times: list[float]) -> str:
    ordered = [t * 1000 for t in sorted(times)]
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"mean {statistics.mean(ordered):8.2f} ms   p50 {statistics.median(ordered):8.2f} ms"
        f"   p99 {p99:8.2f} ms   max {ordered[-1]:8.2f} ms   (n={len(ordered)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--heuristic-moves", type=int, default=2000)
    parser.add_argument("--ismcts-moves", type=int, default=20)
    args = parser.parse_args()

    baseline = random_games(args.games, through_view=False)
    viewed = random_games(args.games, through_view=True)
    print(f"random 4p games/s, through view()      {viewed:8.1f}   (target >= 500)")
    print(f"random 4p games/s, baseline (no view)  {baseline:8.1f}")
    print(f"ratio view/baseline                    {viewed / baseline:8.2f}")
    print(f"heuristic per move   {describe(move_times('heuristic', args.heuristic_moves))}")
    if args.ismcts_moves:
        print(f"ismcts per move      {describe(move_times('ismcts', args.ismcts_moves))}")


if __name__ == "__main__":
    main()
