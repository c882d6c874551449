"""Engine and bot speed (issue 2 targets), printed as figures, never asserted.

    .venv/bin/python bench/engine.py [--games 300] [--ismcts-positions 12] [--ismcts-moves 20]

- random-bot 4-player games per second on one core, through `view()` as in play
  (target >= 500), against a baseline measured in the same run: the same games with the
  bots handed `legal()` straight from the engine, so the ratio is the cost of the view;
- the search's play-outs per second (its tree's iterations and its weighed worlds), at its
  fixed budget on fixed positions (search strength is engine speed: every play-out samples
  a world and plays it on through `apply` and `legal`), and its CPU time a decision (a hint,
  a hard bot's move: what the budget costs);
- heuristic and ismcts time per move.

Rates are per CPU second of this process (`time.process_time`), so other work on a shared
machine does not skew them; the time per move is wall-clock, what a player waits.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from server.bots.ismcts import IsmctsBot, only_move
from server.bots.registry import kind_of, make_bot
from server.game import Game, Legal, View, default_deck, legal, view

DECK = default_deck()


@dataclass
class BareView:
    """Only what RandomBot reads: the baseline skips building the rest of the view."""

    seat: int
    legal: Legal | None


def random_games(games: int, through_view: bool) -> float:
    started = time.process_time()
    for seed in range(games):
        game = Game.new(DECK, 4, seed)
        bots = [make_bot("random", DECK, random.Random(seed * 8 + s)) for s in range(4)]
        while not game.over:
            seat = game.to_act()
            assert seat is not None
            seen = (
                view(game, seat, log_size=0) if through_view else BareView(seat, legal(game, seat))
            )
            game.apply(seat, bots[seat].choose(seen))  # type: ignore[arg-type]  # a BareView
    return games / (time.process_time() - started)


def ismcts_positions(count: int, seed: int = 7) -> list[View]:
    """`count` decisions of seat 0 that need a search, from games of heuristic bots (which
    are deterministic, so the positions are the same in every run and on every version)."""
    positions: list[View] = []
    while len(positions) < count:
        game = Game.new(DECK, 4, seed)
        bots = [make_bot("heuristic", DECK, random.Random(seed * 8 + s)) for s in range(4)]
        decision = 0
        while not game.over and len(positions) < count:
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat)
            if seat == 0 and only_move(seen) is None:
                decision += 1
                if decision % 5 == 1:  # spread over the game: every phase, early and late
                    positions.append(seen)
            game.apply(seat, bots[seat].choose(seen))
        seed += 1
    return positions


def search_rate(positions: list[View]) -> tuple[float, list[float]]:
    """The search's play-outs per CPU second over `positions`, each judged at the budget,
    and the CPU seconds each took."""
    played, times = 0, []
    bot = IsmctsBot(DECK)
    for seen in positions:
        started = time.process_time()
        verdict = bot.judge(seen)
        times.append(time.process_time() - started)
        played += verdict.iterations + sum(len(w.outcomes) for w in verdict.weighed)
    return played / sum(times), times


def move_times(kind: str, moves: int, seed: int = 7) -> list[float]:
    """Seconds per decision of `kind` in seat 0 against heuristic bots."""
    times: list[float] = []
    while len(times) < moves:
        game = Game.new(DECK, 4, seed)
        kinds = [kind, "heuristic", "heuristic", "heuristic"]
        bots = [
            make_bot(kind_of(k), DECK, random.Random(seed * 8 + s)) for s, k in enumerate(kinds)
        ]
        while not game.over and len(times) < moves:
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat, log_size=0)
            started = time.perf_counter()
            move = bots[seat].choose(seen)
            if seat == 0:
                times.append(time.perf_counter() - started)
            game.apply(seat, move)
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
    parser.add_argument("--ismcts-positions", type=int, default=12)
    parser.add_argument("--heuristic-moves", type=int, default=2000)
    parser.add_argument("--ismcts-moves", type=int, default=20)
    args = parser.parse_args()

    baseline = random_games(args.games, through_view=False)
    viewed = random_games(args.games, through_view=True)
    print(f"random 4p games/s, through view()      {viewed:8.1f}   (target >= 500)")
    print(f"random 4p games/s, baseline (no view)  {baseline:8.1f}")
    print(f"ratio view/baseline                    {viewed / baseline:8.2f}")
    if args.ismcts_positions:
        rate, times = search_rate(ismcts_positions(args.ismcts_positions))
        print(
            f"search play-outs/s                     {rate:8.1f}   "
            f"({args.ismcts_positions} positions, at the budget)"
        )
        print(f"search CPU a decision {describe(times)}")
    print(f"heuristic per move   {describe(move_times('heuristic', args.heuristic_moves))}")
    if args.ismcts_moves:
        print(f"ismcts per move      {describe(move_times('ismcts', args.ismcts_moves))}")


if __name__ == "__main__":
    main()
