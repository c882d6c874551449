"""Pairing time of a tournament round (server/tournament/pairing.py). Figures, never asserted.

    .venv/bin/python bench/tournament.py [--players 100] [--rounds 7] [--seats 4] [--seed 1]

A field of `--players` is seated round after round in tables of `--seats`; between rounds
the standings are shuffled by a seeded RNG (results of random strength), so each round
pairs a new order against every table-mate met so far. Printed per round: the time to seat
it and how many repeated table-mates it has (0 wherever the search found none).
"""

from __future__ import annotations

import argparse
import random
import time

from server.tournament.pairing import met_pairs, seat_round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ranked = list(range(args.players))
    past: list[tuple[int, ...]] = []
    print(f"{args.players} players, tables of {args.seats}, {args.rounds} rounds")
    for round_no in range(1, args.rounds + 1):
        met = met_pairs(past)
        began = time.perf_counter()
        seating = seat_round(ranked, args.seats, met)
        took = time.perf_counter() - began
        print(
            f"round {round_no}: {len(seating.tables)} tables seated in {took * 1000:.1f} ms,"
            f" {seating.repeats} repeated table-mates"
        )
        past += seating.tables
        # a new order: neighbours in the standings move a few places
        moved = {p: i + rng.gauss(0, 10) for i, p in enumerate(ranked)}
        ranked.sort(key=moved.__getitem__)


if __name__ == "__main__":
    main()
