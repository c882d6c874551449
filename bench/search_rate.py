"""ISMCTS work a checkout does on fixed positions, for comparing searches across engine
changes (issue 23 §3): `bots.py --before` loads an older search beside today's engine,
which works only while the two share the engine's API; this runs each checkout whole, in a
process of its own, on its own engine.

    .venv/bin/python bench/search_rate.py [--checkout DIR] [--players 4] [--positions 6]
        [--iterations 40] [--rounds 5]

Each run plays the same games of heuristic bots from fixed seeds in the checkout's own
engine, takes every tenth decision, and searches each with a fixed iteration count and
seed. It prints the searches' CPU seconds per 1,000 iterations for each of `--rounds`
repetitions, and a digest of the trees (every root child's visits and reward, and the
move chosen, as text without its seat): two checkouts that print the same digest grew
the same trees, so a speed-up between them kept the strength. With `--checkout`, the
checkout's files come first on the path (so its engine and bots are the ones imported),
whether its moves carry their seat (`apply(move)`, before issue 20) or not
(`apply(seat, move)`). Under valgrind's callgrind, `--rounds 1` counts instructions where
wall clocks are too noisy.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import random
import sys
import time
from pathlib import Path
from typing import Any


def load(checkout: Path | None) -> Any:
    """The checkout's engine and bots (a module namespace of the names used here)."""
    if checkout is not None:
        sys.path.insert(0, str(checkout.resolve()))
        for name in [m for m in sys.modules if m.split(".")[0] in {"server", "protocol"}]:
            del sys.modules[name]
    import server.game as game
    from server.bots.heuristic import HeuristicBot
    from server.bots.ismcts import IsmctsBot

    vars(game).update(HeuristicBot=HeuristicBot, IsmctsBot=IsmctsBot)
    return game


def positions(engine: Any, players: int, count: int, seed: int = 11) -> list[Any]:
    """Every tenth decision of games between heuristic bots, each with its whole log."""
    deck = engine.default_deck()
    seat_first = len(inspect.signature(engine.Game.apply).parameters) > 2  # (self, seat, move)
    seen: list[Any] = []
    decisions = 0
    while len(seen) < count:
        bots = [engine.HeuristicBot(deck, random.Random(seed * 8 + s)) for s in range(players)]
        game = engine.Game.new(deck, players, seed)
        while not game.over and len(seen) < count:
            seat = game.to_act()
            here = engine.view(game, seat, log_size=len(game.events))
            if decisions % 10 == 0:
                seen.append(here)
            decisions += 1
            move = bots[seat].choose(here)
            game.apply(seat, move) if seat_first else game.apply(move)
        seed += 1
    return seen


def older_bound(older: bool) -> dict[str, Any]:
    """A search before issue 30 also took a think time: none, so it is bounded by its
    iterations alone (as today's always is)."""
    return {"think_time": None} if older else {}


def seatless(move: object) -> str:
    """A move as text without its seat: the same move in both APIs."""
    fields = getattr(type(move), "__struct_fields__", None) or vars(move)
    values = ", ".join(str(getattr(move, f)) for f in fields if f != "seat")
    return f"{type(move).__name__}({values})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", type=Path, help="run this checkout's engine and search")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    engine = load(args.checkout)
    deck = engine.default_deck()
    seen = positions(engine, args.players, args.positions)
    for _ in range(args.rounds):
        digest = hashlib.sha256()
        done, spent = 0, 0.0
        for seed, here in enumerate(seen):
            older = "think_time" in inspect.signature(engine.IsmctsBot).parameters
            bot = engine.IsmctsBot(
                deck, random.Random(seed), iterations=args.iterations, **older_bound(older)
            )
            started = time.process_time()
            move = bot.choose(here)
            spent += time.process_time() - started
            done += bot.last_iterations
            root = bot.last_root  # None where the move was forced: no search
            tree = root and sorted((c.visits, c.reward) for c in root.children.values())
            digest.update(f"{seatless(move)} {tree}".encode())
        print(
            f"{args.players} seats: {1000 * spent / done:7.3f} CPU s per 1,000 iterations"
            f" ({done} on {len(seen)} positions) trees {digest.hexdigest()[:16]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
