"""How many connections and SSH sessions one host holds within 4 GB (docs/hosting.md).

    .venv/bin/python bench/capacity.py [--connections 2000]

Starts `gother serve` (database on a file), opens N websocket connections that say hello
and join tables as players would (4 to a table, games dealt), and reads the server's VmRSS
before and after: the memory one more connection costs the server. Then starts one full
client (`gother join`, the process the SSH door runs for each session) in an 80x24 tmux
pane, seated at a table with two bots, and reads its VmRSS once it shows the dealt table.
Prints both and what fits in 4 GiB. A benchmark on this machine, not a test; kernel socket
buffers are not in these figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_load import HOST, request, rss_mib, start_server

from protocol import MAX_FRAME, PROTOCOL_VERSION

GIB4 = 4 * 1024  # MiB


async def connections(count: int, db: str, log) -> tuple[float, float, int, str]:
    proc, port = await start_server(log, db)
    url = f"ws://{HOST}:{port}"
    sockets = []
    try:
        await asyncio.sleep(0.5)
        base = rss_mib(proc.pid)
        async with connect(url, max_size=MAX_FRAME) as host:
            await request(host, {"t": "hello", "v": PROTOCOL_VERSION, "name": "host"})
            tables = [
                (await request(host, {"t": "create", "name": f"T{i}", "seats": 4, "bots": 0}))[
                    "table"
                ]
                for i in range(count // 4)
            ]
            for i in range(count):
                ws = await connect(url, max_size=MAX_FRAME, compression=None)
                await request(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": f"P{i}"})
                await request(ws, {"t": "join", "table": tables[i // 4]})
                sockets.append(ws)
            await asyncio.sleep(1)
            full = rss_mib(proc.pid)
            return base, full, port, url
    finally:
        for ws in sockets:
            await ws.close()
        proc.terminate()
        proc.wait(10)


async def client_rss(log) -> float | None:
    """VmRSS (MiB) of one full client showing a dealt table, or None without tmux."""
    if shutil.which("tmux") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        proc, port = await start_server(log, os.path.join(folder, "g.db"))
        try:
            url = f"ws://{HOST}:{port}"
            async with connect(url, max_size=MAX_FRAME) as host:
                await request(host, {"t": "hello", "v": PROTOCOL_VERSION, "name": "host"})
                created = {"t": "create", "name": "Door", "seats": 3, "bots": 2}
                table = (await request(host, created))["table"]
            return await asyncio.to_thread(_client_in_tmux, url, table, folder)
        finally:
            proc.terminate()
            proc.wait(10)


def _client_in_tmux(url: str, table: str, home: str) -> float:
    gother = os.path.join(os.path.dirname(sys.executable), "gother")
    tmux = ["tmux", "-L", f"gother-capacity-{uuid.uuid4().hex[:8]}"]
    env = {**os.environ, "HOME": home, "XDG_STATE_HOME": home, "XDG_DATA_HOME": home}
    command = f"{gother} join {url} --table {table} --name Raven"
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "80", "-y", "24", command], env=env, check=True
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True
            ).stdout
            if "Raven (you)" in screen and "Your hand" in screen:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError("the client did not show the table")
        time.sleep(1)  # let it settle after the first frames
        pane_pid = subprocess.run(
            [*tmux, "display-message", "-p", "#{pane_pid}"], capture_output=True, text=True
        ).stdout.strip()
        return rss_mib(int(pane_pid))
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    args = parser.parse_args()
    with (
        tempfile.NamedTemporaryFile("w+", suffix=".log") as log,
        tempfile.TemporaryDirectory() as folder,
    ):
        base, full, _, _ = asyncio.run(
            connections(args.connections, os.path.join(folder, "g.db"), log)
        )
    with tempfile.NamedTemporaryFile("w+", suffix=".log") as log:  # a log of its own
        client = asyncio.run(client_rss(log))
    per = (full - base) / args.connections * 1024  # KiB
    print(f"server: {base:.1f} MiB at start, {full:.1f} MiB with {args.connections} players")
    print(f"  {per:.0f} KiB per connection (seated, game dealt)")
    print(f"  within 4 GiB: about {int((GIB4 - base) * 1024 / per):,} connections")
    if client is None:
        print("client: no tmux here, not measured")
        return
    print(f"client (gother join, what the SSH door runs per session): {client:.1f} MiB")
    print(f"  within 4 GiB: about {int((GIB4 - base) / (client + per / 1024)):,} SSH sessions")


if __name__ == "__main__":
    os.nice(10)
    main()
