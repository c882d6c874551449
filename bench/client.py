"""Client start-up, redraw and memory (issue 4 targets), printed as figures, never asserted.

    .venv/bin/python bench/client.py [--runs 5]

- launch to first table frame (target <= 1.0 s), two ways:
  * real: `gother join URL --table ID` in a pseudo-terminal (80x24) against a real
    `gother serve` process, from spawning the process until the table's players header
    appears in what it writes to the terminal (ANSI codes stripped);
  * in-process: `App.run_test` start until the table screen shows a view (fake transport);
- redraw after a `state` (target <= 50 ms): in-process with Pilot on a fake transport, from
  feeding the frame until every widget has handled its messages, the screen's frame update
  has run and the whole 80x24 screen is rendered (forced: the headless driver draws
  nothing); the table alternates between two positions so every state changes the screen;
- RSS of the real `gother join` process at the table (target <= 120 MB), from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "client"))  # the scripted fake server and views

from clientkit import FakeServer, until  # noqa: E402
from viewkit import distribute_game, draw_game, join_with, state, wire_view  # noqa: E402

from gother_tui.app import GotherApp  # noqa: E402
from gother_tui.options import ClientOptions  # noqa: E402
from gother_tui.seat_store import SeatStore  # noqa: E402
from protocol import PROTOCOL_VERSION, decode, encode  # noqa: E402

GOTHER = str(Path(sys.executable).with_name("gother"))
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
TABLE_MARK = b"Fate pile: cards, top"


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [GOTHER, "serve", "--port", "0", "--bot-delay", "0.4"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        match = re.search(r"listening on (ws://127\.0\.0\.1:\d+)", line)
        if match:
            return proc, match.group(1)
    raise RuntimeError("gother serve did not start")


def create_table(url: str) -> str:
    with connect(url) as ws:
        ws.send(encode({"t": "hello", "rid": 1, "v": PROTOCOL_VERSION, "name": "Bench"}))
        decode(ws.recv(10))
        ws.send(encode({"t": "create", "rid": 2, "name": "Bench", "seats": 3, "bots": 2}))
        return str(decode(ws.recv(10))["table"])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def launch_to_table(url: str, home: Path) -> tuple[float, float]:
    """(seconds to the first table frame, RSS in MB once there) for one real client."""
    table = create_table(url)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }
    start = time.perf_counter()
    proc = subprocess.Popen(
        [GOTHER, "join", url, "--name", "Bench", "--table", table],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    elapsed = float("nan")
    try:
        deadline = start + 30
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                if TABLE_MARK in ANSI.sub(b"", seen):
                    elapsed = time.perf_counter() - start
                    break
        # settle a moment at the table before reading memory (keep draining the pty)
        until_t = time.perf_counter() + 1.0
        while time.perf_counter() < until_t:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        memory = rss_mb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
    return elapsed, memory


def make_app(fake: FakeServer, home: Path) -> GotherApp:
    options = ClientOptions(url="ws://fake.invalid:1", name="Raven", table="t1")
    return GotherApp(
        options,
        transport=fake.transport,
        seat_store=SeatStore(home / f"seats-{time.perf_counter_ns()}.json"),
    )


async def in_process_startup(home: Path) -> float:
    fake = FakeServer()
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(fake, home)
    start = time.perf_counter()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "table" and app.view is not None)
        await pilot.pause()
        return time.perf_counter() - start


async def redraw_times(home: Path, count: int) -> list[float]:
    fake = FakeServer()
    views = [wire_view(distribute_game()), wire_view(draw_game())]
    fake.handlers["join"] = join_with(views[0])
    app = make_app(fake, home)
    times: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "table" and app.view is not None)
        await pilot.pause()
        for i in range(count):
            seq = 10 + i
            start = time.perf_counter()
            fake.conn.feed(state(seq, views[(i + 1) % 2]))
            while app._seq != seq:  # the network worker hands the frame to the app
                await asyncio.sleep(0)
            await pilot._wait_for_screen()  # every widget has handled its messages
            app.screen._on_timer_update()  # the screen's next frame: layout and update
            app.screen._compositor.render_strips()  # every cell of 80x24 rendered
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"gother-bench-{os.getpid()}"
    home.mkdir(parents=True, exist_ok=True)

    server, url = start_server()
    try:
        real = [launch_to_table(url, home) for _ in range(args.runs)]
    finally:
        server.terminate()
        server.wait(10)
    launches = [t for t, _ in real]
    memory = [m for _, m in real]
    print(
        f"launch to first table frame, real `gother join` in a pty ({args.runs} runs): "
        f"median {statistics.median(launches):.2f} s, max {max(launches):.2f} s "
        "(target <= 1.0 s)"
    )
    inproc = [asyncio.run(in_process_startup(home)) for _ in range(args.runs)]
    print(
        f"launch to first table frame, in-process run_test: median "
        f"{statistics.median(inproc) * 1000:.0f} ms, max {max(inproc) * 1000:.0f} ms"
    )
    redraws = asyncio.run(redraw_times(home, 40))
    print(
        f"redraw after a state (in-process, 40 states): median "
        f"{statistics.median(redraws) * 1000:.1f} ms, max {max(redraws) * 1000:.1f} ms "
        "(target <= 50 ms)"
    )
    print(
        f"client RSS at the table (real process): median {statistics.median(memory):.0f} MB, "
        f"max {max(memory):.0f} MB (target <= 120 MB)"
    )


if __name__ == "__main__":
    main()
