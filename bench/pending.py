"""Newcomers under a never-hello attack (issue 31): figures, never asserted.

    .venv/bin/python bench/pending.py [--addresses 26] [--tries 22] [--every 1.0]

`--addresses` attackers (127.0.0.2, .3, …: the whole of 127/8 is this host's) each keep as
many connections open as the server lets one address hold before hello (4), never say
hello, and open another the moment one is closed (by the hello deadline, or turned out).
Meanwhile an honest newcomer from an address of its own connects and says hello, `--tries`
times, one every `--every` seconds. Printed: how many of the newcomer's tries got a
`welcome`, and the time each took. Run it on an older checkout (PYTHONPATH) for the
figure before.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from server.edge.app import GotherServer
from server.edge.config import ServerConfig

HOST = "127.0.0.1"


async def silent(url: str, source: str, stop: asyncio.Event) -> None:
    """One of an attacker's connections: opened, never a word, opened again once closed."""
    while not stop.is_set():
        try:
            async with connect(url, max_size=MAX_FRAME, local_addr=(source, 0)) as ws:
                await ws.wait_closed()
        except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
            await asyncio.sleep(0.01)


async def newcomer(url: str, source: str) -> float | None:
    """Seconds to a `welcome`, or None when turned away."""
    began = time.perf_counter()
    try:
        async with connect(url, max_size=MAX_FRAME, local_addr=(source, 0)) as ws:
            await ws.send(encode({"t": "hello", "v": PROTOCOL_VERSION, "name": "New", "rid": 1}))
            frame = await asyncio.wait_for(ws.recv(), 10)
            reply = decode(frame)  # type: ignore[arg-type]
    except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
        return None
    return time.perf_counter() - began if reply.get("t") == "welcome" else None


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--addresses", type=int, default=26)
    parser.add_argument("--tries", type=int, default=22)
    parser.add_argument("--every", type=float, default=1.0)
    args = parser.parse_args()
    server = GotherServer(ServerConfig(host=HOST, port=0))
    await server.start()
    url = f"ws://{HOST}:{server.port}"
    per_address = server.config.pending_per_address
    stop = asyncio.Event()
    attack = [
        asyncio.create_task(silent(url, f"127.0.0.{2 + a}", stop))
        for a in range(args.addresses)
        for _ in range(per_address)
    ]
    await asyncio.sleep(2.0)  # every place taken
    times = []
    for n in range(args.tries):
        times.append(await newcomer(url, f"127.0.1.{n % 250}"))
        await asyncio.sleep(args.every)
    stop.set()
    await server.close()
    for task in attack:
        task.cancel()
    await asyncio.gather(*attack, return_exceptions=True)
    got = [t for t in times if t is not None]
    median = f"{statistics.median(got) * 1000:.1f} ms" if got else "-"
    print(
        f"{args.addresses} addresses x {per_address} never-hello connections, reopening: "
        f"the newcomer got in {len(got)} of {args.tries} (median {median} to its welcome)"
    )


if __name__ == "__main__":
    asyncio.run(main())
