"""The bot ladder (issue 12): one bot against three of another, four seats, seats rotating.

    nice -n 10 .venv/bin/python bench/ladder.py HERO FIELD [--games 400] [--seed 1]
        [--iterations N | --think SECONDS]

HERO and FIELD are bot names (easy, normal, hard or a kind) or `baseline`, today's heuristic
frozen in `bench/baseline_heuristic.py`. Game i is dealt from seed S+i with the hero in seat
i mod 4, so every seat is played equally. A searching bot thinks for its default time
unless `--iterations` fixes its work per move or `--think` sets the hero's time. Prints the
hero's share of wins (a shared win counts 1/k; fair is 25 %) with its standard error, game
lengths, and for a searching hero its time and iterations per move. Figures, never
asserted: docs/balance.md keeps them.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import Any

from baseline_heuristic import BaselineHeuristicBot

from server.bots.registry import kind_of, make_bot
from server.game import Deck, Game, default_deck, view

SEATS = 4


def bot(name: str, deck: Deck, seed: int, iterations: int | None) -> Any:
    if name == "baseline":
        return BaselineHeuristicBot(deck, random.Random(seed))
    return make_bot(kind_of(name), deck, random.Random(seed), iterations=iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hero")
    parser.add_argument("field")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--think", type=float, default=None)
    args = parser.parse_args()

    deck = default_deck()
    won = 0.0
    rounds: list[int] = []
    think: list[float] = []
    iterations: list[int] = []
    started = time.perf_counter()
    for i in range(args.games):
        hero = i % SEATS
        seed = args.seed + i
        bots = [
            bot(args.hero if s == hero else args.field, deck, seed * 8 + s, args.iterations)
            for s in range(SEATS)
        ]
        if args.think is not None:
            bots[hero].think_time = args.think
        game = Game.new(deck, SEATS, seed)
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
        if hero in game.winners:
            won += 1 / len(game.winners)
        rounds.append(game.round)
    n = args.games
    rate = won / n
    error = math.sqrt(rate * (1 - rate) / n)
    rounds.sort()
    print(f"{args.hero} vs three {args.field}, {n} games, seats rotating, seeds {args.seed}..")
    print(f"hero wins          {rate:6.1%} +- {error:.1%} (fair 25.0%)")
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
