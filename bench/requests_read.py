"""What reading a request costs (issue 33 §3): figures, never asserted.

    .venv/bin/python bench/requests_read.py [--rounds 20000]

Reads decoded frames into typed requests with `validate_request`, the server's one reader,
and prints the microseconds per request for each kind of frame: the three a game sends most
(a move, a chat line, a hello) and a `create` with every optional field, then two refused
ones (a fault found deep in a move, an unknown field). Run it on an older checkout
(PYTHONPATH) for the figures before; both runs on one machine, one after the other.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

from protocol import PROTOCOL_VERSION, ProtocolError, validate_request

FRAMES: dict[str, dict[str, Any]] = {
    "move distribute": {
        "t": "move",
        "rid": 7,
        "move": {"kind": "distribute", "give": [[0, 22], [1, 3], [2, 51], [3, 9]]},
    },
    "move draw": {"t": "move", "rid": 8, "move": {"kind": "draw", "source": "discard", "card": 3}},
    "chat": {"t": "chat", "rid": 9, "text": "nice swoon, Lenore"},
    "hello": {"t": "hello", "v": PROTOCOL_VERSION, "name": "Morticia", "password": "lan-party"},
    "create (all fields)": {
        "t": "create",
        "name": "The Crypt",
        "seats": 4,
        "bots": 2,
        "variants": {"fate_discard": "top", "overflow": "immediate", "round_cap": 50},
        "deck": "standard",
        "password": "hunter2",
        "clock": {"initial": 300, "increment": 5},
        "bot": "hard",
        "trait": "steady",
    },
    "refused: move card out of range": {
        "t": "move",
        "move": {"kind": "distribute", "give": [[0, 22], [1, 300]]},
    },
    "refused: unknown field": {"t": "join", "table": "t1", "colour": "black"},
}


def cost(frame: dict[str, Any], rounds: int) -> float:
    """Microseconds per read, the best of five runs of `rounds` reads."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(rounds):
            with contextlib.suppress(ProtocolError):
                validate_request(frame)
        best = min(best, time.perf_counter() - start)
    return best / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    args = parser.parse_args()
    for name, frame in FRAMES.items():
        print(f"{name:34} {cost(frame, args.rounds):7.2f} µs")


if __name__ == "__main__":
    main()
