"""What each piece of a door zygote's warm-up spares its children (issue 33 §5): figures,
never asserted.

    nice -n 10 .venv/bin/python bench/warmup.py [--children 5]

For each way of warming (all of it; without the shared CSS, gother_tui/tui/stylesheet.py,
the one piece that leans on Textual's internals; without the rehearsal; without either),
a fresh process warms as a zygote does (gother_tui/zygote/zygote.py's `warm`, the piece
left out replaced by nothing), then forks `--children` clients one after another, each
run headless to the lobby of a scripted server (the rehearsal's). Printed: each child's
CPU time to the lobby drawn (CPU, not wall time: on a shared machine that moves with the
load) and its PSS (smaps_rollup) with all of them open.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WAYS = ("all of it", "without the shared CSS", "without the rehearsal", "without either")


def warm(way: str) -> None:
    """The zygote's warm-up, less what `way` leaves out."""
    if way in ("without the shared CSS", "without either"):
        from textual.css.stylesheet import Stylesheet

        import gother_tui.tui.client_app as client_app
        import gother_tui.tui.stylesheet as stylesheet

        client_app.SharedStylesheet = Stylesheet  # type: ignore[attr-defined,assignment]
        stylesheet.parse_ahead = lambda app: 0
    if way in ("without the rehearsal", "without either"):
        import gother_tui.zygote.rehearsal as rehearsal

        rehearsal.rehearse = lambda: None
    from gother_tui.zygote.zygote import warm as zygote_warm

    zygote_warm()


async def to_the_lobby(said: int) -> None:
    """A client to the lobby, headless; its CPU seconds written to `said`; then it stays."""
    from gother_tui.core.options import ClientOptions
    from gother_tui.core.seat_store import SeatStore
    from gother_tui.tui.app import GotherApp
    from gother_tui.zygote.rehearsal import EmptyLobby

    start = time.process_time()
    seats = SeatStore(Path(tempfile.mkdtemp(), "seats.json"))
    app = GotherApp(ClientOptions(url="ws://bench.invalid", name="Raven"), EmptyLobby, seats)
    run = asyncio.create_task(app.run_async(headless=True, size=(80, 24)))
    while not (app.screen_stack and app.current_mode == "lobby"):
        await asyncio.sleep(0.002)
    drawn = asyncio.get_running_loop().create_future()
    app.call_after_refresh(drawn.set_result, None)
    await drawn
    os.write(said, f"{time.process_time() - start:.4f}\n".encode())
    await asyncio.sleep(3600)  # until its zygote kills it
    run.cancel()


def pss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no Pss for {pid}")


def zygote(way: str, children: int) -> None:
    """One way, in this process: warm, fork the children, print their figures."""
    warm(way)
    heard, said = os.pipe()
    pids, cpu = [], []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            try:
                asyncio.run(to_the_lobby(said))
            finally:
                os._exit(0)
        pids.append(pid)
        line = b""
        while not line.endswith(b"\n"):
            line += os.read(heard, 1)
        cpu.append(float(line))
    pss = [pss_mib(pid) for pid in pids]
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    print(
        f"{way:24}: a child's CPU to the lobby {min(cpu):.3f}-{max(cpu):.3f} s "
        f"(median {statistics.median(cpu):.3f}); its PSS {statistics.median(pss):.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=5)
    parser.add_argument("--way", choices=WAYS, help="one way, in this process")
    args = parser.parse_args()
    if args.way is not None:
        zygote(args.way, args.children)
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for way in WAYS:  # each in a fresh process: a warm-up cannot be undone
        command = [sys.executable, __file__, "--way", way, "--children", str(args.children)]
        subprocess.run(command, cwd=ROOT, check=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
