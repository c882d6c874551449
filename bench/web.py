"""The web door's figures (issue 10), printed, never asserted.

    nice -n 10 .venv/bin/python bench/web.py [--runs 5] [--sessions 20] [--screenshot PNG]

Against a real `gother serve --web` process, in Debian's chromium driven by Playwright
(tests/doors/web/browserkit.py), each figure beside a baseline measured in the same run:

- page load to first table frame: a browser that holds a seat reloads the page; from the
  navigation's start to the first animation frame whose xterm.js buffer shows the whole
  table (its header and its footer). Beside it, in the same navigation, the page's own
  load event (what any page costs), and the terminal client's launch to its first table
  frame in a pty (bench/client.py);
- key press to redraw: from the keydown in the page to the first xterm.js render whose
  buffer differs (f opens the Fate piles, or closes them), through the door, the client
  process and back; the next key waits for the whole screen (a key pressed while a
  screen is still closing goes to the closing screen);
- memory per web session: the client process's RSS and PSS (its own share of pages it
  shares with the others) at the table, and what the door process adds per session;
  beside it, the terminal client's RSS in a pty;
- sessions held at once: --sessions more browsers open the door at once and reach the
  lobby; the time that takes on this machine, the memory they hold, and how many sessions
  4 GB would hold at that rate.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client import launch_to_table  # noqa: E402

from tests.doors.web.browserkit import SCREEN_JS, launch, wait_screen  # noqa: E402
from tests.doors.web.doorkit import clients_behind  # noqa: E402
from tests.e2e.e2ekit import create_table  # noqa: E402

GOTHER = str(Path(sys.executable).with_name("gother"))
TABLE_MARK = "Fate pile: cards, top"
FOOTER_MARK = "? Help"  # the footer, the table frame's last line
VIEWER_MARK = "Every Fate pile"
VIEWPORT = {"width": 860, "height": 520}
# Playwright's per-frame polling evaluates its predicate as a string, which the door's
# Content-Security-Policy forbids (no 'unsafe-eval'): lifted for the measuring only.
CONTEXT: dict[str, Any] = {"viewport": VIEWPORT, "bypass_csp": True}
# Set before each key: the time of its keydown, and of the first render after it whose
# buffer differs from the screen before.
KEY_JS = (
    "() => { const screenText = "
    + SCREEN_JS
    + """, terminal = window.gotherTerminal;
  const bench = (window.gotherBench = { key: null, drawn: null, before: screenText() });
  terminal.textarea.addEventListener("keydown", () => { bench.key ??= performance.now(); },
    { capture: true, once: true });
  const watch = terminal.onRender(() => {
    if (bench.key !== null && screenText() !== bench.before) {
      bench.drawn = performance.now();
      watch.dispose();
    }
  });
}"""
)


def start_server(folder: Path) -> tuple[subprocess.Popen[str], int, int]:
    """`gother serve --web 0`: (process, game port, web port)."""
    log = folder / "serve.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [
                *(GOTHER, "serve", "--port", "0", "--db", str(folder / "games.db")),
                *("--web", "0", "--web-max", "200", "--bot-delay", "0.4"),
                *("--web-per-address", "200"),  # every tab here is on 127.0.0.1
                *("--web-starts-per-minute", "100000"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            text=True,
        )
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


def memory_kb(pid: int, field: str, source: str = "status") -> int:
    for line in Path(f"/proc/{pid}/{source}").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def sit_down(page: Page, url: str, name: str) -> None:
    page.goto(url)
    wait_screen(page, "the name screen", "Your name at the table")
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    wait_screen(page, "the lobby", "New table")


def play_a_little(page: Page, moves: int) -> None:
    """Play `moves` decisions by keys (h for the hint, Enter), then let the bots move."""
    for _ in range(moves):
        wait_screen(page, "our turn", lambda text: "You: step" in text.splitlines()[0], 120)
        page.keyboard.press("h")
        wait_screen(page, "the hint", "The hint; Enter plays it")
        page.keyboard.press("Enter")
        wait_screen(page, "the move", lambda text: "The hint; Enter plays it" not in text)
    wait_screen(page, "our turn again", lambda text: "You: step" in text.splitlines()[0], 120)


def page_load_to_table(page: Page, runs: int) -> tuple[list[float], list[float]]:
    """(ms to the first table frame, ms to the load event) for `runs` reloads."""
    frames, loads = [], []
    check = (
        f"() => {{ const text = ({SCREEN_JS})(); "
        f"return text?.includes({TABLE_MARK!r}) && text.includes({FOOTER_MARK!r}); }}"
    )
    for _ in range(runs):
        page.reload(wait_until="commit")
        page.wait_for_function(check, polling="raf", timeout=60_000)
        frames.append(page.evaluate("performance.now()"))
        page.wait_for_load_state("load")
        loads.append(page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
    return frames, loads


def settled(shown: str, text: str) -> bool:
    """The whole screen of the viewer (`shown` its mark) or of the table is up."""
    return shown in text and (shown == VIEWER_MARK or VIEWER_MARK not in text)


def key_to_redraw(page: Page, presses: int) -> list[float]:
    times = []
    for i in range(presses):
        page.evaluate(KEY_JS)
        page.keyboard.press("f")  # opens the Fate piles, or closes them: always a redraw
        page.wait_for_function("window.gotherBench.drawn !== null", timeout=30_000)
        # the whole screen of the viewer (or of the table) before the next key: a key
        # pressed while a screen is still closing goes to the screen that is closing
        shown = VIEWER_MARK if i % 2 == 0 else FOOTER_MARK
        wait_screen(page, "the screen to settle", functools.partial(settled, shown))
        times.append(page.evaluate("gotherBench.drawn - gotherBench.key"))
    return times


def summary(values: list[float], unit: str) -> str:
    return f"median {statistics.median(values):.0f} {unit}, max {max(values):.0f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--screenshot", type=Path, help="save the table in the browser here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gother-bench-web-"))
    server, game, web = start_server(folder)
    url = f"http://127.0.0.1:{web}/"
    try:
        create_table(game, "Bench table", seats=3, bots=2)
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                page = browser.new_context(**CONTEXT).new_page()
                sit_down(page, url, "Lydia")
                page.keyboard.press("Enter")  # the only table
                wait_screen(page, "the table", TABLE_MARK)
                if args.screenshot is not None:
                    play_a_little(page, 6)  # a table with cards on it makes a better picture
                    page.screenshot(path=str(args.screenshot))
                frames, loads = page_load_to_table(page, args.runs)
                keys = key_to_redraw(page, 4 * args.runs)
                (pid,) = clients_behind(server.pid)
                rss, pss = memory_kb(pid, "VmRSS"), memory_kb(pid, "Pss", "smaps_rollup")

                door_before = memory_kb(server.pid, "VmRSS")
                start = time.perf_counter()
                pages = [browser.new_context(**CONTEXT).new_page() for _ in range(args.sessions)]
                for other in pages:
                    other.goto(url)
                for number, other in enumerate(pages):
                    wait_screen(other, "the name screen", "Your name at the table", 120)
                    other.keyboard.type(f"Guest{number}")
                    other.keyboard.press("Enter")
                for other in pages:
                    wait_screen(other, "the lobby", "New table", 120)
                opened = time.perf_counter() - start
                held = clients_behind(server.pid)
                total_pss = sum(memory_kb(p, "Pss", "smaps_rollup") for p in held)
                door_added = memory_kb(server.pid, "VmRSS") - door_before
            finally:
                browser.close()
        baseline = [launch_to_table(f"ws://127.0.0.1:{game}", folder) for _ in range(args.runs)]
    finally:
        server.terminate()
        server.wait(20)

    print(
        f"page load to first table frame, a seated browser reloading ({args.runs} runs): "
        f"{summary(frames, 'ms')}; the page's own load event {summary(loads, 'ms')}; "
        f"baseline `gother join` in a pty to its first table frame "
        f"{summary([1000 * t for t, _ in baseline], 'ms')}"
    )
    print(f"key press to redraw in the browser ({len(keys)} presses): {summary(keys, 'ms')}")
    per_session = total_pss / len(held) + door_added / max(args.sessions, 1)
    print(
        f"memory per web session at the table: client RSS {rss / 1024:.0f} MB, "
        f"PSS {pss / 1024:.0f} MB; baseline `gother join` in a pty RSS "
        f"{statistics.median(m for _, m in baseline):.0f} MB"
    )
    print(
        f"sessions held at once: {len(held)} (1 at the table + {args.sessions} opened "
        f"together, all at the lobby in {opened:.1f} s); their clients' PSS "
        f"{total_pss / 1024:.0f} MB ({total_pss / 1024 / len(held):.0f} MB each), the door "
        f"+{door_added / 1024:.1f} MB; about {4096 / (per_session / 1024):.0f} sessions "
        "in 4 GB at that rate"
    )
    print(f"(machine: {os.cpu_count()} cores; server log in {folder / 'serve.log'})")


if __name__ == "__main__":
    main()
