"""How many connections and SSH sessions one host holds within 4 GB (docs/hosting.md).

    nice -n -5 .venv/bin/python bench/capacity.py [--connections 2000] [--sessions 8]

First each door, SSH then web, as `gother serve --ssh/--web` runs it (a process of its
own, in front of a game server in this process), twice: its clients as fresh processes
(the way before the zygote), then forked by its zygote (gother_tui/zygote/), and the
SSH door a third time with its zygote, its sessions opened by OpenSSH's `ssh -tt` in a
terminal of its own as a player opens them (timed from the command). Each time
`--sessions` sessions are opened one after another (asyncssh sessions; aiohttp tabs, each
its own browser; `ssh` commands); printed: each one's time from its connection to its
first screen drawn (the SSH lobby; the web door's name screen), median and max, each
client's CPU time by then (which the load does not stretch), the PSS
of the door's processes (smaps_rollup of the door and all its descendants: pages shared between them
counted once) idle and with all sessions open, the difference a session, and sessions
per GiB. Where the host runs KSM (/sys/kernel/mm/ksm/run is 1; the zygote offers its
pages and its children's to it), each PSS of a zygote's door is read once ksmd has made
two whole scans more (merged as far as it goes), and ksmd's CPU is printed.

Then `gother serve` (database on a file), N websocket connections that say hello and join
tables as players would (4 to a table, games dealt), and the server's VmRSS before and
after: the memory one more connection costs the server; and what fits in 4 GiB (not with
`--connections 0`). A benchmark on this machine, not a test; kernel socket buffers are not
in these figures. It runs at the priority it is given (`nice`), and prints the load
average at its start and end: on a shared machine the times follow it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import fcntl
import math
import os
import pickle
import pty
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import IO

import aiohttp
import asyncssh
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server_load import HOST, request, rss_mib, start_server

from gother_tui.zygote.zygote import KSM_RUN
from protocol import MAX_FRAME, PROTOCOL_VERSION
from server.doors.spec import DoorSpec
from server.doors.ssh import SshLimits, SshOptions, pipe_holding
from server.doors.web.door import WebOptions
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from tests.doors.web.doorkit import read_screen
from tests.doors.web.test_web_door import NAME_SCREEN
from tests.kits.sshkit import ANSI, close, open_session, read_until

LOBBY = re.compile(r"(?i)tables yet")  # the lobby drawn, no table made yet

GIB4 = 4 * 1024  # MiB
KSM = KSM_RUN.parent  # the host's samepage merging


async def connections(count: int, db: str, log: IO[str]) -> tuple[float, float, int, str]:
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


Times = list[tuple[float, float]]  # each session's: connected (nan: not seen), screen drawn
Opener = Callable[[int], Awaitable[tuple[float, float]]]


def door_options(kind: str, data: Path, sessions: int, zygote: bool) -> SshOptions | WebOptions:
    """The SSH door open to any key, or the web door with no password, holding `sessions`
    at once on a free port."""
    if kind == "web":
        return WebOptions(port=0, data_dir=data, max_sessions=sessions, per_address=sessions,
                          starts_per_minute=100_000, zygote=zygote)  # fmt: skip
    limits = SshLimits(sessions=sessions, per_address=sessions, per_key=sessions)
    return SshOptions(
        port=0,
        host_key=data / "ssh_host_key",
        data_dir=data,
        open_access=True,
        limits=replace(limits, per_connection=sessions),
        zygote=zygote,
    )


async def door_sessions(
    kind: str, sessions: int, zygote: bool, command: bool = False
) -> tuple[Times, float, float, list[float]]:
    """`sessions` sessions opened one after another on a door process of its own (its
    clients forked by its zygote, or fresh processes; SSH by asyncssh or, with `command`,
    by the `ssh` command): each one's seconds to its connection and to its first screen
    (the SSH door's lobby, the web door's name screen), the PSS (MiB) of the door's
    processes with none and all of them open, and each client's CPU seconds by then."""
    server = GotherServer(ServerConfig(host=HOST, port=0, announce=False))
    await server.start()
    with tempfile.TemporaryDirectory() as folder, open(Path(folder) / "door.log", "w+") as log:
        options = door_options(kind, Path(folder), sessions, zygote)
        url = f"ws://{HOST}:{server.port}"
        spec = DoorSpec(options=options, host=HOST, server=url, key=server.door_key.text)
        fd = pipe_holding(base64.b64encode(pickle.dumps(spec)).decode())
        argv = [sys.executable, "-m", "server.doors.door", "--spec-file", f"/dev/fd/{fd}"]
        door = subprocess.Popen(argv, stdin=subprocess.PIPE, stderr=log, pass_fds=(fd,))
        os.close(fd)
        try:
            scheme = "ssh" if kind == "ssh" else "http"
            port = int(await _logged(log, rf"listening on {scheme}://[\d.]+:(\d+)"))
            if zygote:
                await _logged(log, "zygote ready")
            await asyncio.sleep(1)  # the door settled
            idle = await settled_pss(door.pid, zygote)
            opener = web_tabs if kind == "web" else ssh_commands if command else ssh_sessions
            async with opener(port) as open_one:
                times = [await open_one(i) for i in range(sessions)]
                await asyncio.sleep(1)  # the screens drawn and idle
                held = descendants(door.pid)
                cpu = [cpu_seconds(pid) for pid in clients(door.pid, zygote)]
                full = await settled_pss(door.pid, zygote)
                if descendants(door.pid) != held:
                    raise RuntimeError("a session ended before its memory was read")
                return times, idle, full, cpu
        finally:
            door.terminate()
            door.wait(30)
            await server.close()


@contextlib.asynccontextmanager
async def ssh_sessions(port: int) -> AsyncIterator[Opener]:
    """Opens the session of player `i` (one key for all), until the lobby is drawn."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    opened = []

    async def open_one(i: int) -> tuple[float, float]:
        began = time.monotonic()
        opened.append(await open_session(port, key, user=f"P{i}"))
        logged_in = time.monotonic()
        await read_until(opened[-1][1], LOBBY)
        return logged_in - began, time.monotonic() - began

    try:
        yield open_one
    finally:
        for conn, process in opened:
            await close(conn, process)


@contextlib.asynccontextmanager
async def ssh_commands(port: int) -> AsyncIterator[Opener]:
    """Opens the session of player `i` as a player does: OpenSSH's `ssh -tt` in an 80x24
    terminal of its own, timed from the command's start until the lobby is drawn (its
    login is not seen from outside, so not timed apart)."""
    opened: list[tuple[subprocess.Popen[bytes], int]] = []
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "id_ed25519"
        asyncssh.generate_private_key("ssh-ed25519").write_private_key(key)
        key.chmod(0o600)

        async def open_one(i: int) -> tuple[float, float]:
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            began = time.monotonic()
            ssh = subprocess.Popen(
                ["ssh", "-tt", "-i", str(key), "-F", "/dev/null", "-p", str(port),
                 "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                 f"P{i}@{HOST}"],
                stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                env={**os.environ, "TERM": "xterm-256color"},
            )  # fmt: skip
            os.close(slave)
            opened.append((ssh, master))
            seen = bytearray()
            drawn = asyncio.Event()

            def readable() -> None:  # drained as long as it is open, the lobby or not
                try:
                    seen.extend(os.read(master, 65536))
                except OSError:
                    loop.remove_reader(master)
                    return
                if LOBBY.search(ANSI.sub(b"", seen).decode(errors="replace")):
                    drawn.set()

            loop.add_reader(master, readable)
            await asyncio.wait_for(drawn.wait(), 60)
            return math.nan, time.monotonic() - began

        try:
            yield open_one
        finally:
            for ssh, master in opened:
                loop.remove_reader(master)
                ssh.terminate()
                ssh.wait(10)
                os.close(master)


@contextlib.asynccontextmanager
async def web_tabs(port: int) -> AsyncIterator[Opener]:
    """Opens one more browser's tab (its own cookie), until the name screen is drawn."""
    origin = f"http://{HOST}:{port}"
    async with contextlib.AsyncExitStack() as stack:

        async def open_one(i: int) -> tuple[float, float]:
            began = time.monotonic()
            jar = aiohttp.CookieJar(unsafe=True)
            tab = await stack.enter_async_context(
                aiohttp.ClientSession(base_url=origin, cookie_jar=jar)
            )
            async with tab.get("/") as page:
                assert page.status == 200
            ws = await stack.enter_async_context(
                tab.ws_connect("/ws?width=80&height=24", origin=origin)
            )
            connected = time.monotonic()
            await read_screen(ws, NAME_SCREEN)
            drawn = time.monotonic()
            reader = asyncio.create_task(drain(ws))  # its pings answered: the tab stays open
            stack.callback(reader.cancel)
            return connected - began, drawn - began

        yield open_one


async def drain(ws: aiohttp.ClientWebSocketResponse) -> None:
    """Read a tab's frames, as its browser does, until it closes."""
    async for _ in ws:
        pass


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


def ksm() -> str | None:
    """How the host's ksmd merges pages (gother_tui/zygote/ offers it the zygote's
    and its children's), or None while it does not run."""
    try:
        if (KSM / "run").read_text().strip() != "1":
            return None
        pages, every = (
            (KSM / name).read_text().strip() for name in ("pages_to_scan", "sleep_millisecs")
        )
    except OSError:
        return None
    return f"{pages} pages every {every} ms"


def ksmd_seconds() -> float:
    """The CPU time (user + system) ksmd has used since the host started: what merging costs."""
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "ksmd":
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


async def settled_pss(pid: int, mergeable: bool) -> float:
    """The PSS of `pid` and its descendants (see pss_mib), once ksmd, if it runs and the
    pages are offered to it, has begun and finished two whole scans: a page is merged on
    the scan after the one that saw it unchanged (the scan going on may have passed it)."""
    if mergeable and ksm() is not None:
        scans = KSM / "full_scans"
        target, deadline = int(scans.read_text()) + 3, time.monotonic() + 600
        while int(scans.read_text()) < target:
            if time.monotonic() > deadline:
                raise RuntimeError("ksmd did not finish three scans in 10 minutes")
            await asyncio.sleep(0.2)
    return pss_mib(pid)


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


def clients(door: int, zygote: bool) -> list[int]:
    """The door's client processes: its zygote's children, or its own."""
    children = _children()
    if zygote:
        return [c for z in children.get(door, []) for c in children.get(z, [])]
    return children.get(door, [])


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time `pid` has used: on a shared machine its start is
    compared by this, which the load does not stretch as it does the wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> dict[int, list[int]]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                ppid = int(Path(entry, "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    return parents


def descendants(pid: int) -> list[int]:
    parents = _children()
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def report_door(
    label: str, screen: str, times: Times, idle: float, full: float, cpu: list[float]
) -> float:
    """Print one way of starting clients; its MiB per session."""
    per = (full - idle) / len(times)
    connected, drawn = (statistics.median(t) for t in zip(*times, strict=True))
    login = "" if math.isnan(connected) else f"; connecting {connected:.2f} of it"
    print(
        f"  {label}: to the {screen} median {drawn:.2f} s (max {max(t for _, t in times):.2f}"
        f"{login}; a client's CPU by then median {statistics.median(cpu):.2f} s); "
        f"door idle {idle:.1f} MiB PSS, {full:.1f} with "
        f"{len(times)} sessions: {per:.1f} MiB a session, {int(1024 / per)} sessions per GiB"
    )
    return per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=2000, help="0: the doors only")
    parser.add_argument("--sessions", type=int, default=8, help="sessions at once at each door")
    args = parser.parse_args()
    print(f"load average {load()}; KSM: {ksm() or 'off'}")
    ksmd_before = ksmd_seconds()
    forked: dict[str, float] = {}  # MiB a session, with the zygote
    for kind, screen in (("ssh", "lobby"), ("web", "name screen")):
        print(f"{kind} door, {args.sessions} sessions (PSS over the door's processes):")
        runs = {z: asyncio.run(door_sessions(kind, args.sessions, zygote=z)) for z in (False, True)}
        fresh = report_door("fresh processes", screen, *runs[False])
        forked[kind] = report_door("zygote's forks ", screen, *runs[True])
        if kind == "ssh":
            by_command = asyncio.run(door_sessions(kind, args.sessions, zygote=True, command=True))
            report_door("forks, `ssh -tt`", screen, *by_command)
        print(f"  the zygote: {fresh / forked[kind]:.1f}x the sessions in the same memory")
    if args.connections:
        server_capacity(args.connections, forked["ssh"])
    print(f"load average {load()}; ksmd's CPU in this run {ksmd_seconds() - ksmd_before:.1f} s")


def server_capacity(count: int, ssh_session: float) -> None:
    """The server's memory a connection, and what fits in 4 GiB with `ssh_session` MiB a
    session."""
    with (
        tempfile.NamedTemporaryFile("w+", suffix=".log") as log,
        tempfile.TemporaryDirectory() as folder,
    ):
        base, full, _, _ = asyncio.run(connections(count, os.path.join(folder, "g.db"), log))
    per = (full - base) / count * 1024  # KiB
    print(f"server: {base:.1f} MiB at start, {full:.1f} MiB with {count} players")
    print(f"  {per:.0f} KiB per connection (seated, game dealt)")
    print(f"  within 4 GiB: about {int((GIB4 - base) * 1024 / per):,} connections")
    ssh = int((GIB4 - base) / (ssh_session + per / 1024))
    print(f"  within 4 GiB: about {ssh:,} SSH sessions (forked by the zygote)")


def load() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


if __name__ == "__main__":
    main()
