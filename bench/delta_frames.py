"""What a frame of what changed would save against a whole `state` (issue 34 §5), as
figures, never asserted: no such frame is in the protocol; this sizes the idea.

    .venv/bin/python bench/delta_frames.py [--games 20]

Heuristic bots play 4-seat games; after every move each seat's `state` is made as the
server makes it (fanout.py: its view, encoded whole by msgspec), and beside it a delta:
only the view's fields whose value changed since that seat's previous view, the log cut
to the events that seat has not seen. Printed: bytes a frame (median, p90), CPU to make
one (view + encode, or view + diff + encode: the server still builds the view to know what
changed), and a frame's write over a real loopback TCP socket at each size (a thread
drains the other end): together what a move's four frames would save.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import threading
import time
from collections import Counter
from typing import Any

import msgspec

from protocol import encode, server_messages
from server.bots.registry import make_bot
from server.game import Game, default_deck, view

DECK = default_deck()
SEATS = 4


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The fields of `after` that differ from `before`; the log only past what was seen
    (a field at its default is left out of both, as the wire leaves it out)."""
    changed = {k: v for k, v in after.items() if before.get(k) != v and k != "log"}
    seen_to = before.get("log_start", 0) + len(before.get("log", ()))
    new = [e for i, e in enumerate(after.get("log", ()), after.get("log_start", 0)) if i >= seen_to]
    if new:
        changed["log"] = new
    return changed


def frames(games: int) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """[(bytes, CPU s)] of every whole state and of every delta over `games` games."""
    fields: Counter[str] = Counter()  # how often each field is in a delta
    whole: list[tuple[int, float]] = []
    deltas: list[tuple[int, float]] = []
    for seed in range(games):
        game = Game.new(DECK, SEATS, seed)
        bots = [make_bot("heuristic", DECK, random.Random(seed * 8 + s)) for s in range(SEATS)]
        last: list[dict[str, Any] | None] = [None] * SEATS
        seq = 0
        while not game.over:
            mover = game.to_act()
            assert mover is not None
            game.apply(mover, bots[mover].choose(view(game, mover, log_size=0)))
            seq += 1
            for seat in range(SEATS):
                started = time.process_time()
                frame = encode(server_messages.State(seq=seq, view=view(game, seat)))
                whole.append((len(frame), time.process_time() - started))
                started = time.process_time()
                seen = msgspec.to_builtins(view(game, seat))
                previous = last[seat]
                if previous is not None:
                    changed = delta(previous, seen)
                    fields.update(changed.keys())
                    small = encode({"t": "delta", "seq": seq, "view": changed})
                    deltas.append((len(small), time.process_time() - started))
                last[seat] = seen
    print("fields in a delta, of", len(deltas), "deltas:", dict(fields.most_common()))
    return whole, deltas


def write_cost(size: int, count: int = 20000) -> float:
    """CPU seconds (this thread's) to write one frame of `size` bytes to a loopback socket."""
    server = socket.create_server(("127.0.0.1", 0))
    writer = socket.create_connection(server.getsockname())
    writer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's transports
    reader, _ = server.accept()

    def drain() -> None:
        while reader.recv(1 << 16):
            pass

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    payload = bytes(size)
    started = time.thread_time()
    for _ in range(count):
        writer.sendall(payload)
    spent = time.thread_time() - started
    writer.close()
    thread.join(5)
    reader.close()
    server.close()
    return spent / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    whole, deltas = frames(args.games)
    for name, made in (("whole state", whole), ("delta", deltas)):
        sizes = sorted(size for size, _ in made)
        print(
            f"{name:<12} {len(made)} frames: median {statistics.median(sizes):.0f} B,"
            f" p90 {sizes[len(sizes) * 9 // 10]} B;"
            f" made in {statistics.mean(t for _, t in made) * 1e6:.1f} µs (mean, hot)"
        )
    for size in (
        statistics.median(s for s, _ in whole),
        statistics.median(s for s, _ in deltas),
    ):
        print(f"a {size:.0f} B frame written to loopback: {write_cost(int(size)) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
