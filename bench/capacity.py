"""How many connections and SSH sessions one host holds within 4 GB (docs/hosting.md).

    .venv/bin/python bench/capacity.py [--connections 2000] [--sessions 8]

First the SSH door, as `gother serve --ssh` runs it (a process of its own, in front of a
game server in this process), twice: its clients as fresh processes (the way before the
zygote), then forked by its zygote (server/zygote.py). Each time `--sessions` asyncssh
sessions are opened one after another; printed: each one's time from the ssh connection
to its lobby drawn (median and max), the PSS of the door's processes (smaps_rollup of the
door and all its descendants: pages shared between them counted once) idle and with all
sessions open, the difference a session, and sessions per GiB.

Then `gother serve` (database on a file), N websocket connections that say hello and join
tables as players would (4 to a table, games dealt), and the server's VmRSS before and
after: the memory one more connection costs the server; and what fits in 4 GiB. A
benchmark on this machine, not a test; kernel socket buffers are not in these figures.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import IO

import asyncssh
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server_load import HOST, request, rss_mib, start_server

from protocol import MAX_FRAME, PROTOCOL_VERSION
from server.app import GotherServer, ServerConfig
from server.doors import DoorSpec
from server.ssh import SshLimits, SshOptions, pipe_holding
from tests.server.sshkit import close, open_session, read_until

LOBBY = re.compile(r"(?i)tables yet")  # the lobby drawn, no table made yet

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


def door_spec(data: Path, url: str, key: str, sessions: int, zygote: bool) -> DoorSpec:
    """An SSH door on a free port, open to any key, holding `sessions` at once."""
    limits = SshLimits(sessions=sessions, per_address=sessions, per_key=sessions)
    options = SshOptions(
        port=0,
        host_key=data / "ssh_host_key",
        data_dir=data,
        open_access=True,
        limits=replace(limits, per_connection=sessions),
        zygote=zygote,
    )
    return DoorSpec(options=options, host=HOST, server=url, key=key)


async def ssh_door(sessions: int, zygote: bool) -> tuple[list[tuple[float, float]], float, float]:
    """`sessions` SSH sessions opened one after another on a door process of its own (its
    clients forked by its zygote, or fresh processes): each one's seconds from the ssh
    connection to its session open and to the lobby drawn, and the PSS (MiB) of the
    door's processes with none and with all of them open."""
    server = GotherServer(ServerConfig(host=HOST, port=0, announce=False))
    await server.start()
    with tempfile.TemporaryDirectory() as folder, open(Path(folder) / "door.log", "w+") as log:
        spec = door_spec(Path(folder), f"ws://{HOST}:{server.port}", server.door_key.text,
                         sessions, zygote)  # fmt: skip
        fd = pipe_holding(base64.b64encode(pickle.dumps(spec)).decode())
        argv = [sys.executable, "-m", "server.doors", "--spec-file", f"/dev/fd/{fd}"]
        door = subprocess.Popen(argv, stdin=subprocess.PIPE, stderr=log, pass_fds=(fd,))
        os.close(fd)
        opened = []
        try:
            ready = r"zygote ready" if zygote else r"listening on ssh://"
            port = int(await _logged(log, r"listening on ssh://[\d.]+:(\d+)"))
            await _logged(log, ready)
            await asyncio.sleep(1)  # the door settled
            idle = pss_mib(door.pid)
            key = asyncssh.generate_private_key("ssh-ed25519")
            times = []
            for i in range(sessions):
                began = time.monotonic()
                opened.append(await open_session(port, key, user=f"P{i}"))
                logged_in = time.monotonic()
                await read_until(opened[-1][1], LOBBY)
                times.append((logged_in - began, time.monotonic() - began))
            await asyncio.sleep(1)  # the lobbies drawn and idle
            return times, idle, pss_mib(door.pid)
        finally:
            for conn, process in opened:
                await close(conn, process)
            door.terminate()
            door.wait(30)
            await server.close()


async def _logged(log: IO[str], pattern: str, timeout: float = 60) -> str:
    """The first group (or all) of `pattern` once the door's log shows it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log.seek(0)
        if found := re.search(pattern, log.read()):
            return found.group(1) if found.re.groups else found.group()
        await asyncio.sleep(0.05)
    log.seek(0)
    raise RuntimeError(f"the door did not log {pattern!r}:\n{log.read()}")


def pss_mib(pid: int) -> float:
    """PSS of `pid` and all its descendants (smaps_rollup): what they cost this host,
    each page shared between them counted once in all."""
    total = 0
    for each in [pid, *descendants(pid)]:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024


def descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                ppid = int(Path(entry, "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def report_door(label: str, times: list[tuple[float, float]], idle: float, full: float) -> float:
    """Print one way of starting clients; its MiB per session."""
    per = (full - idle) / len(times)
    login, lobby = (statistics.median(t) for t in zip(*times, strict=True))
    print(
        f"  {label}: to the lobby median {lobby:.2f} s (max {max(t for _, t in times):.2f}; "
        f"the ssh login {login:.2f} of it); door idle {idle:.1f} MiB PSS, {full:.1f} with "
        f"{len(times)} sessions: {per:.1f} MiB a session, {int(1024 / per)} sessions per GiB"
    )
    return per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=8, help="SSH sessions at once")
    args = parser.parse_args()
    print(f"SSH door, {args.sessions} sessions (PSS over the door's processes):")
    fresh = report_door("fresh processes", *asyncio.run(ssh_door(args.sessions, zygote=False)))
    forked = report_door("zygote's forks ", *asyncio.run(ssh_door(args.sessions, zygote=True)))
    print(f"  the zygote: {fresh / forked:.1f}x the sessions in the same memory")
    with (
        tempfile.NamedTemporaryFile("w+", suffix=".log") as log,
        tempfile.TemporaryDirectory() as folder,
    ):
        base, full, _, _ = asyncio.run(
            connections(args.connections, os.path.join(folder, "g.db"), log)
        )
    per = (full - base) / args.connections * 1024  # KiB
    print(f"server: {base:.1f} MiB at start, {full:.1f} MiB with {args.connections} players")
    print(f"  {per:.0f} KiB per connection (seated, game dealt)")
    print(f"  within 4 GiB: about {int((GIB4 - base) * 1024 / per):,} connections")
    print(f"  within 4 GiB: about {int((GIB4 - base) / (forked + per / 1024)):,} SSH sessions")


if __name__ == "__main__":
    os.nice(10)
    main()
