"""Client start-up, redraw, memory and frame sizes, printed as figures, never asserted.

    nice -n 10 .venv/bin/python bench/client.py [--runs 5]

- launch to first table frame (target: at most 2.5x a bare Textual app, issue 9), each in a
  pseudo-terminal (80x24), measured in the same run:
  * `gother join URL --table ID` against a real `gother serve` process, from spawning the
    process until the table's players header appears in what it writes to the terminal
    (ANSI codes stripped);
  * a bare Textual app (one Static) in the same Python, from spawning until its text shows;
  * in-process: `App.run_test` start until the table screen shows a view (fake transport);
- redraw after a `state` (target: median <= 20 ms at 80x24 and at 140x44, the card table):
  in-process with Pilot on a fake transport, from feeding the frame until every widget has
  handled its messages, the screen's frame update has run and the whole screen is rendered
  (forced: the headless driver draws nothing); the table alternates between two positions
  so every state changes the screen. Wall time and this process's CPU time: on a shared
  machine the CPU time is the steadier figure;
- RSS of the real `gother join` process at the table (target <= 120 MB), from /proc;
- `state` frame sizes (the frame limit is 64 KiB): the view's 30-event log window against
  the whole game's log, for 4 and 5 heuristic bots playing a whole game.
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
sys.path.insert(0, str(ROOT))  # the kits they use
sys.path.insert(0, str(ROOT / "tests" / "tui"))  # the scripted fake server and views

from clientkit import FakeServer, until  # noqa: E402
from viewkit import distribute_game, draw_game, join_with, state, wire_view  # noqa: E402

from gother_tui.core.options import ClientOptions  # noqa: E402
from gother_tui.core.seat_store import SeatStore  # noqa: E402
from gother_tui.tui.app import GotherApp  # noqa: E402
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
        decode(ws.recv(10))  # type: ignore[arg-type]
        ws.send(encode({"t": "create", "rid": 2, "name": "Bench", "seats": 3, "bots": 2}))
        return str(decode(ws.recv(10))["table"])  # type: ignore[arg-type]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("BARE TEXTUAL READY")
Bare().run()
"""


def launch_to_table(url: str, home: Path) -> tuple[float, float]:
    """(seconds to the first table frame, RSS in MB once there) for one real client."""
    table = create_table(url)
    command = [GOTHER, "join", url, "--name", "Bench", "--table", table]
    return launch_in_pty(command, TABLE_MARK, home)


def launch_bare(home: Path) -> float:
    """Seconds from spawning a bare Textual app in a pty until its one line shows."""
    return launch_in_pty([sys.executable, "-c", BARE_APP], b"BARE TEXTUAL READY", home)[0]


def launch_in_pty(command: list[str], mark: bytes, home: Path) -> tuple[float, float]:
    """(seconds until `mark` shows on the terminal, RSS in MB a moment later)."""
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
        command,
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
                if mark in ANSI.sub(b"", seen):
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


async def redraw_times(
    home: Path, count: int, size: tuple[int, int] = (80, 24)
) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds of this process) per redraw: on a shared machine the CPU
    time is the steadier figure of the two."""
    fake = FakeServer()
    views = [wire_view(distribute_game()), wire_view(draw_game())]
    fake.handlers["join"] = join_with(views[0])
    app = make_app(fake, home)
    times: list[float] = []
    cpu: list[float] = []
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.current_mode == "table" and app.view is not None)
        await pilot.pause()
        for i in range(count):
            seq = 10 + i
            start, start_cpu = time.perf_counter(), time.process_time()
            fake.conn.feed(state(seq, views[(i + 1) % 2]))
            while app.core._seq != seq:  # the network worker hands the frame to the core
                await asyncio.sleep(0)
            await pilot._wait_for_screen()  # every widget has handled its messages
            app.screen._on_timer_update()  # the screen's next frame: layout and update
            app.screen._compositor.render_strips()  # every cell of 80x24 rendered
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"gother-bench-{os.getpid()}"
    home.mkdir(parents=True, exist_ok=True)

    server, url = start_server()
    try:
        real, bare = [], []
        for _ in range(args.runs):  # interleaved: both see the same load
            real.append(launch_to_table(url, home))
            bare.append(launch_bare(home))
    finally:
        server.terminate()
        server.wait(10)
    launches = [t for t, _ in real]
    memory = [m for _, m in real]
    ratio = statistics.median(launches) / statistics.median(bare)
    print(
        f"launch to first table frame, real `gother join` in a pty ({args.runs} runs): "
        f"median {statistics.median(launches):.2f} s, max {max(launches):.2f} s; a bare "
        f"Textual app: median {statistics.median(bare):.2f} s; ratio {ratio:.2f}x "
        "(target <= 2.5x)"
    )
    inproc = [asyncio.run(in_process_startup(home)) for _ in range(args.runs)]
    print(
        f"launch to first table frame, in-process run_test: median "
        f"{statistics.median(inproc) * 1000:.0f} ms, max {max(inproc) * 1000:.0f} ms"
    )
    for size in ((80, 24), (140, 44)):
        wall, cpu = asyncio.run(redraw_times(home, 40, size))
        print(
            f"redraw after a state at {size[0]}x{size[1]} (in-process, 40 states): median "
            f"{statistics.median(wall) * 1000:.1f} ms wall ({statistics.median(cpu) * 1000:.1f}"
            f" ms CPU), max {max(wall) * 1000:.1f} ms (target: median <= 20 ms)"
        )
    print(
        f"client RSS at the table (real process): median {statistics.median(memory):.0f} MB, "
        f"max {max(memory):.0f} MB (target <= 120 MB)"
    )

    for players in (4, 5):
        window, whole, events = frame_sizes(players)
        print(
            f"state frame, {players} heuristic bots, a whole game ({events} events): largest "
            f"{window / 1024:.1f} KiB with the 30-event log, {whole / 1024:.1f} KiB with the "
            "whole log (frame limit 64 KiB)"
        )


def frame_sizes(players: int, seed: int = 1) -> tuple[int, int, int]:
    """(largest `state` frame with the 30-event log, with the whole game's log, events) over
    a whole game of heuristic bots, as a spectator sees it."""
    from protocol import server_messages
    from server.bots.heuristic import HeuristicBot
    from server.game import SPECTATOR, Game, Variants, default_deck, view

    deck = default_deck()
    game = Game.new(deck, players, seed, Variants())
    bot = HeuristicBot(deck)
    largest = [0, 0]
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, bot.choose(view(game, seat)))
        for i, size in enumerate((30, len(game.events))):
            frame = server_messages.State(seq=1, view=view(game, SPECTATOR, log_size=size))
            largest[i] = max(largest[i], len(encode(frame)))
    return largest[0], largest[1], len(game.events)


if __name__ == "__main__":
    main()
