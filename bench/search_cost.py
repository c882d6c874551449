"""A fixed ISMCTS workload, for counting its instructions where wall clocks are too noisy
(a shared machine: ±10 % run to run). Prints what it ran; the count is valgrind's:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python bench/search_cost.py [--players 4] [--before DIR] [--setup-only]

`--before DIR` runs the search of another checkout's `server/bots` (as `bots.py --before`
loads it), `--setup-only` everything but the searches (with the same `--before`: loading a
second package costs instructions too): take each setup's count off its run, and the ratio
of what is left compares the two searches' work. Same positions, seeds and iterations
each time, so the counts repeat.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bots import bots_of, fixed, views

from server.bots.ismcts import IsmctsBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--before", type=Path, help="a checkout whose search to run")
    parser.add_argument("--setup-only", action="store_true")
    args = parser.parse_args()
    search = bots_of(args.before).IsmctsBot if args.before else IsmctsBot
    positions = views(args.players, 10 * args.positions, seed=11)[::10]
    done = 0
    if not args.setup_only:
        for seed, seen in enumerate(positions):
            bot = fixed(search, seed, args.iterations)
            bot.choose(seen)
            done += bot.last_iterations
    print(f"{done} iterations on {len(positions)} positions at {args.players} seats")


if __name__ == "__main__":
    main()
