"""The bot ladder (issue 12): one bot against three of another, four seats, seats rotating.

    nice -n 10 .venv/bin/python bench/ladder.py HERO FIELD [--games 400] [--seed 1]
        [--iterations N] [--seats 4] [--jobs 1]

HERO and FIELD are bot names (easy, normal, hard or a kind), each with its trait after a
colon ("hard:steady") or alone for the trait a table of that many seats gets by default, or
`baseline`, today's heuristic frozen in `bench/baseline_heuristic.py`. Game i is dealt from
seed S+i with the hero in seat i mod the seats, so every seat is played equally. A
searching bot searches its fixed budget (the one judge of the hints, issue 30) unless
`--iterations` sets its tree's. Prints the hero's share of wins (a shared win counts 1/k;
fair is one in the seats) with its standard error and 95 % interval, game lengths, and for
a searching hero its time and iterations per move. Figures, never asserted:
docs/balance.md keeps them.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple

from balance_runs import wilson
from baseline_heuristic import BaselineHeuristicBot

from server.bots.registry import make_bot, named
from server.game import Deck, Game, default_deck, view


def bot(name: str, deck: Deck, seed: int, iterations: int | None, seats: int) -> Any:
    if name == "baseline":
        return BaselineHeuristicBot(deck, random.Random(seed))
    kind, trait = named(name, seats)
    return make_bot(kind, deck, random.Random(seed), iterations=iterations, trait=trait)


class GameFigures(NamedTuple):
    """One game's figures: the hero's share of the win, the rounds, and for a searching
    hero each searched move's think time and iterations."""

    won: float
    rounds: int
    think: list[float]
    iterations: list[int]


def play(args: argparse.Namespace, i: int) -> GameFigures:
    """Game i: dealt from seed S+i, the hero in seat i mod the seats."""
    deck = default_deck()
    hero = i % args.seats
    seed = args.seed + i
    bots = [
        bot(args.hero if s == hero else args.field, deck, seed * 8 + s, args.iterations, args.seats)
        for s in range(args.seats)
    ]
    think: list[float] = []
    iterations: list[int] = []
    game = Game.new(deck, args.seats, seed)
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        player = bots[seat]
        seen = view(game, seat, log_size=0)  # no bot reads the log
        before = time.perf_counter()
        move = player.choose(seen)
        if seat == hero and getattr(player, "last_iterations", 0):
            think.append(time.perf_counter() - before)
            iterations.append(player.last_iterations)
        game.apply(seat, move)
    assert game.winners is not None
    won = 1 / len(game.winners) if hero in game.winners else 0.0
    return GameFigures(won, game.round, think, iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hero")
    parser.add_argument("field")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--seats", type=int, default=4, choices=range(3, 6))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args()

    started = time.perf_counter()
    games = range(args.games)
    if args.jobs > 1:  # each game is dealt from its own seed: the same figures, sooner
        with ProcessPoolExecutor(args.jobs) as pool:
            played = list(pool.map(play, [args] * args.games, games))
    else:
        played = [play(args, i) for i in games]
    won = sum(g.won for g in played)
    rounds = sorted(g.rounds for g in played)
    think = [t for g in played for t in g.think]
    iterations = [n for g in played for n in g.iterations]
    n = args.games
    rate = won / n
    error = math.sqrt(rate * (1 - rate) / n)
    low, high = wilson(rate, n)
    traits = " / ".join(
        name if name == "baseline" else ":".join(map(str, named(name, args.seats)))
        for name in (args.hero, args.field)
    )
    print(
        f"{args.hero} vs {args.seats - 1} {args.field} ({traits}), {n} games, seats rotating,"
        f" seeds {args.seed}.."
    )
    print(
        f"hero wins          {rate:6.1%} +- {error:.1%}, 95% [{low:.1%}, {high:.1%}]"
        f" (fair {1 / args.seats:.1%})"
    )
    print(f"rounds             median {statistics.median(rounds)}, p90 {rounds[int(0.9 * n)]}")
    if think:
        ordered = sorted(think)
        print(
            f"hero think a move  mean {statistics.mean(think):.3f} s, p90 "
            f"{ordered[int(0.9 * len(ordered))]:.3f} s, max {ordered[-1]:.3f} s "
            f"(searched moves: {len(think)})"
        )
        print(f"iterations a move  mean {statistics.mean(iterations):.0f}")
    print(f"wall time          {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
