"""An honest table while others flood what costs nothing to ask (issue 31 §4): figures,
never asserted.

    .venv/bin/python bench/floods.py [--seconds 20] [--flooders 8]

Starts `gother serve --web 0` as a process of its own, with an honest player at a table of
three (two bots, no bot delay) making a move 50 ms after it is asked (rematch after
rematch), and the round trip of each move (the `move` sent to its `state` back) measured.
Three runs of `--seconds` each:
- quiet: nobody else;
- /healthz: `--flooders` addresses (127.0.0.2, .3, …) each asking `GET /healthz` on the game
  port as fast as it is answered (a new connection each time);
- web churn: as many addresses each opening the web door's page and terminal, waiting for
  its client's first bytes, closing, and again.
The flooders run in a process of their own. Printed for each: the honest moves' p50 and p95
in ms, and what the flooders got a second (answers 200 and refusals 429; sessions started
and refused). Run it on an older checkout (PYTHONPATH) for the figures before.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
from websockets.asyncio.client import connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode

HOST = "127.0.0.1"
THINK = 0.05  # seconds the honest player takes a move: well under its connection's rate
Flood = Callable[[str, Counter[str]], Coroutine[None, None, None]]


def start(folder: Path) -> tuple[subprocess.Popen[bytes], int, int]:
    """`gother serve --web 0` (game port, web port), from whatever checkout is imported."""
    log = folder / "serve.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gother_tui", "serve", "--port", "0", "--web", "0",
             "--db", str(folder / "games.db"), "--bot-delay", "0", "--no-announce"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log.read_text()
        game = re.search(r"listening on ws://127\.0\.0\.1:(\d+)", text)
        web = re.search(r"web: listening on http://127\.0\.0\.1:(\d+)", text)
        if game and web:
            return proc, int(game.group(1)), int(web.group(1))
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gother serve did not start:\n" + log.read_text())


async def honest(port: int, seconds: float) -> list[float]:
    """Round trips (s) of an honest player's moves for `seconds`, game after game."""
    trips: list[float] = []
    async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as ws:
        rid, view = 0, None

        async def hear() -> dict[str, Any]:
            nonlocal view
            message = decode(await ws.recv())  # type: ignore[arg-type]
            if message["t"] == "state":
                view = message["view"]  # the newest, whoever's request it answers
            return message

        async def ask(request: dict[str, Any]) -> dict[str, Any]:
            nonlocal rid
            rid += 1
            await ws.send(encode({**request, "rid": rid}))
            while (message := await hear()).get("rid") != rid:
                pass
            return message

        await ask({"t": "hello", "v": PROTOCOL_VERSION, "name": "Honest"})
        made = await ask({"t": "create", "name": "Honest", "seats": 3, "bots": 2,
                          "variants": {"round_cap": 3}})  # fmt: skip
        await ask({"t": "join", "table": made["table"]})
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if view is not None and view["phase"] == "over":
                await ask({"t": "rematch"})  # game after game at the one table
                while view["phase"] == "over":
                    await hear()
            elif view is None or view["legal"] is None:
                await hear()
            else:
                await asyncio.sleep(THINK)
                began = time.perf_counter()
                reply = await ask({"t": "move", "move": first_legal(view["legal"])})
                if reply["t"] != "state":
                    raise RuntimeError(f"an honest move refused: {reply}")
                trips.append(time.perf_counter() - began)
        await ask({"t": "leave"})
    return trips


def first_legal(legal: dict[str, Any]) -> dict[str, Any]:
    kind = legal["kind"]
    if kind == "distribute":
        pairs = zip(legal["recipients"], legal["hand"][: legal["count"]], strict=False)
        return {"kind": kind, "give": [list(p) for p in pairs]}
    if kind == "draw":
        if legal["deck"]:
            return {"kind": kind, "source": "deck"}
        return {"kind": kind, "source": "discard", "card": legal["discard"][0]}
    return {"kind": kind, "card": legal["cards"][0]}


def healthz(port: int) -> Flood:
    async def flood(source: str, got: Counter[str]) -> None:
        while True:
            try:
                reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                status = (await reader.readline()).split()[1].decode()
                got[status] += 1
                writer.close()
            except (OSError, IndexError):
                got["failed"] += 1
                await asyncio.sleep(0.01)

    return flood


def web_churn(port: int) -> Flood:
    async def flood(source: str, got: Counter[str]) -> None:
        connector = aiohttp.TCPConnector(local_addr=(source, 0))
        jar = aiohttp.CookieJar(unsafe=True)
        origin = f"http://{HOST}:{port}"
        async with aiohttp.ClientSession(origin, connector=connector, cookie_jar=jar) as tab:
            while True:
                try:
                    async with tab.get("/") as page:
                        await page.read()
                    ws = await tab.ws_connect("/ws?width=80&height=24", origin=origin)
                    first = await ws.receive(timeout=30)
                    started = first.type == aiohttp.WSMsgType.BINARY
                    got["started" if started else "refused"] += 1
                    await ws.close()
                except (aiohttp.ClientError, TimeoutError, OSError):
                    got["failed"] += 1
                    await asyncio.sleep(0.01)

    return flood


async def flood_here(kind: str, port: int, flooders: int) -> None:
    """The flooders (in a process of their own, so the honest player's loop is its own):
    until stopped, then what they got, as one line on stdout."""
    got: Counter[str] = Counter()
    flood = healthz(port) if kind == "healthz" else web_churn(port)
    tasks = [asyncio.create_task(flood(f"127.0.0.{2 + n}", got)) for n in range(flooders)]
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    began = time.monotonic()
    await stop.wait()
    took = time.monotonic() - began
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(", ".join(f"{what} {n / took:.1f}/s" for what, n in sorted(got.items())), flush=True)


async def run(game: int, flood: tuple[str, int] | None, flooders: int, seconds: float) -> str:
    flooding = None
    if flood is not None:
        kind, port = flood
        flooding = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--flood", kind, "--port", str(port),
            "--flooders", str(flooders), stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        await asyncio.sleep(2.0)  # the flood under way
    trips = await honest(game, seconds)
    rates = ""
    if flooding is not None:
        flooding.terminate()
        out, _ = await flooding.communicate()
        rates = out.decode().strip()
    p50 = statistics.median(trips) * 1000
    p95 = statistics.quantiles(trips, n=20)[-1] * 1000
    return f"{len(trips)} honest moves, p50 {p50:.1f} ms, p95 {p95:.1f} ms; flooders: {rates}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--flooders", type=int, default=8)
    parser.add_argument("--flood", choices=("healthz", "web"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:  # the flooders' own process
        await flood_here(args.flood, args.port, args.flooders)
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, game, web = start(Path(tmp))
        try:
            for label, flood in (("quiet", None), ("/healthz", ("healthz", game)),
                                 ("web churn", ("web", web))):  # fmt: skip
                print(f"{label}: {await run(game, flood, args.flooders, args.seconds)}")
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    asyncio.run(main())
