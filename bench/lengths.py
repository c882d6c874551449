"""Write protocol/measured_lengths.json, the one home of how long games run (issue 32 §3),
from the games kept in bench/results/balance.jsonl.

    .venv/bin/python bench/lengths.py [--results FILE] [--hard-iterations N] [--out FILE]
        [--check]

For every table of one bot at every seat on the original deck (balance_runs.py's tables),
the games by the round they ended in, and how many the round cap ended, under (seats,
difficulty, trait, round cap). A searching bot's games are taken at N iterations a move
(the hard bot's budget) where there are at least MIN_GAMES of them, else at the count with
the most games; each entry says which. `--check` writes nothing and fails if the table is
not what the file gives.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from balance_runs import RESULTS, digest, game_key, records

from server.bots.ismcts import ITERATIONS
from server.game import default_deck

TABLE = Path(__file__).parents[1] / "protocol" / "measured_lengths.json"
HARD_ITERATIONS = ITERATIONS  # the hard bot's fixed budget a move (issue 30)
MIN_GAMES = 15  # fewer say too little; the entry keeps its count
Key = tuple[int, str, str, int | None]  # seats, difficulty, trait, round cap


def tables(path: Path) -> dict[tuple[Key, int], list[dict[str, Any]]]:
    """The games of each (key, iterations), each seed once."""
    original = digest(default_deck())
    found: defaultdict[tuple[Key, int], list[dict[str, Any]]] = defaultdict(list)
    seen = set()
    for record in records(path):
        (players, kinds, iterations, deck, cap), seed = game_key(record)
        if deck != original or len(kinds) != 1 or (kinds, players, iterations, cap, seed) in seen:
            continue
        seen.add((kinds, players, iterations, cap, seed))
        bot, trait = kinds[0].split(":")
        if bot not in ("easy", "normal", "hard"):
            continue
        found[((players, bot, trait, cap), iterations if bot == "hard" else 0)].append(record)
    return found


def chosen(found: dict[tuple[Key, int], list[dict[str, Any]]], hard: int) -> dict[Key, Any]:
    """Per key, the games that stand for it: the hard bot's at its budget if there are
    enough, else those of the iteration count with the most games."""
    by_key: defaultdict[Key, list[tuple[int, list[dict[str, Any]]]]] = defaultdict(list)
    for (key, iterations), games in found.items():
        by_key[key].append((iterations, games))
    best = {}
    for key, options in by_key.items():
        at_budget = [o for o in options if o[0] == hard and len(o[1]) >= MIN_GAMES]
        iterations, games = (at_budget or sorted(options, key=lambda o: (len(o[1]), o[0])))[-1]
        if len(games) >= MIN_GAMES:
            best[key] = (iterations, games)
    return best


def table(best: dict[Key, Any]) -> str:
    """The JSON table, an entry a line (protocol/lengths.py reads it): by "seats bots trait
    cap", the games, how many the cap ended, the searching bot's iterations a move (0: no
    search) and the games that ended after 1, 2, 3, ... rounds."""
    lines = []
    for key in sorted(best, key=lambda k: (k[0], k[1], k[2], k[3] or 0)):
        iterations, games = best[key]
        by_round = [0] * max(g["rounds"] for g in games)
        for g in games:
            by_round[g["rounds"] - 1] += 1
        entry = {
            "games": len(games),
            "capped": sum(g["capped"] for g in games),
            "iterations": iterations,
            "by_round": by_round,
        }
        name = " ".join(map(str, key))
        lines.append(f"{json.dumps(name)}: {json.dumps(entry)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--hard-iterations", type=int, default=HARD_ITERATIONS)
    parser.add_argument("--out", type=Path, default=TABLE, help="the table to write")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    text = table(chosen(tables(args.results), args.hard_iterations))
    if args.check:
        if args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} is not what {args.results} gives: run bench/lengths.py")
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
