"""The plain line mode (issues 11 and 19): start-up, memory, the cost of a placement's
options, and how long a round takes to hear, printed as figures, never asserted.

    .venv/bin/python bench/plain.py [--runs 5] [--games 40] [--only ear]

- launch to the table: `gother join URL --plain --table ID` on pipes against a real
  `gother serve` process, from spawning it until it writes "You sit at"; and its RSS
  there, from /proc. Beside them, in the same run against the same server, the
  full-screen client's (bench/client.py's launch to the first table frame) as the
  baseline (the plain mode runs no Textual app, draws no screen);
- a placement's numbered options (`choices.decision`: every placement ranked for each
  aim) for every placement decision of random 3- to 6-seat games: median and slowest;
  beside them, as the baseline, the narrator telling the same view's whole log;
- a round heard (your turn to your next): one seeded 4-seat game (tests/plain/earkit.py)
  from a pipe against a real server in this process, the player taking the first option
  and drawing all at once; its words per round and espeak-ng's seconds to say a round, by
  default (the ear's telling) and, as the baseline, with `--verbose` (the whole story,
  which was the only telling before issue 19).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import client as full_screen  # noqa: E402  (bench/client.py)

from gother_tui.core.catalogue import Catalogue  # noqa: E402
from gother_tui.core.glyphs import ASCII  # noqa: E402
from gother_tui.core.narrator import Narrator  # noqa: E402
from gother_tui.plain.choices import decision  # noqa: E402
from protocol import PROTOCOL_VERSION, decode, encode  # noqa: E402
from protocol.view import LegalDistribute, Variants  # noqa: E402
from server.edge.app import GotherServer  # noqa: E402
from server.edge.config import ServerConfig  # noqa: E402
from server.game import Game, default_deck, view  # noqa: E402
from tests.game.enginekit import random_move  # noqa: E402
from tests.plain.earkit import play_seeded, rounds, seconds, seeded_deals, words  # noqa: E402

GOTHER = str(Path(sys.executable).with_name("gother"))
LISTENING = re.compile(r"listening on (ws://127\.0\.0\.1:\d+)")


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [GOTHER, "serve", "--port", "0", "--no-announce"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if found := LISTENING.search(line):
            return proc, found.group(1)
    raise RuntimeError("gother serve did not start")


def new_table(url: str) -> str:
    with connect(url) as ws:
        ws.send(encode({"t": "hello", "v": PROTOCOL_VERSION, "name": "Bench", "rid": 1}))
        ws.recv()
        ws.send(encode({"t": "create", "name": "Bench", "seats": 3, "bots": 2, "rid": 2}))
        while (reply := decode(ws.recv()))["t"] != "created":  # type: ignore[arg-type]
            pass
        return str(reply["table"])


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    kb = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]
    return kb / 1024


def launch(url: str, home: Path) -> tuple[float, float]:
    """Seconds from spawn to "You sit at", and the RSS (MB) then."""
    env = {"HOME": str(home), "XDG_STATE_HOME": str(home / "state"), "LANG": "C.UTF-8"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [GOTHER, "join", url, "--plain", "--table", new_table(url), "--name", "Bench"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdin is not None
    for line in proc.stdout:
        if line.startswith("You sit at"):
            break
    took = time.perf_counter() - start
    memory = rss_mb(proc.pid)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait(30)
    return took, memory


def options(games: int) -> tuple[list[float], list[float]]:
    """Seconds to make each placement's options, and to tell the same view's log."""
    deck = default_deck()
    catalogue = Catalogue(deck.catalogue())
    made, told = [], []
    for seed in range(games):
        players = 3 + seed % 4
        game = Game.new(deck, players, seed, Variants(two_or_six=players == 6), 0)
        rng = random.Random(seed)
        for _ in range(300):
            if game.over:
                break
            seat = game.to_act()
            assert seat is not None
            seen = view(game, seat)
            if isinstance(seen.legal, LegalDistribute):
                start = time.perf_counter()
                decision(seen, catalogue, ASCII)
                made.append(time.perf_counter() - start)
                start = time.perf_counter()
                narrator = Narrator.for_view(seen, catalogue, ASCII)
                for event in seen.log:
                    narrator.tell(event)
                told.append(time.perf_counter() - start)
            game.apply(*random_move(game, rng))
    return made, told


async def heard(home: Path) -> dict[str, list[list[str]]]:
    """The rounds of one seeded game, told by default and with --verbose."""
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, announce=False)
    server = GotherServer(config)
    await server.start()
    try:
        url = f"ws://127.0.0.1:{server.port}"
        told = {}
        with seeded_deals():
            for name, extra in (("--plain", ()), ("--plain --verbose", ("--verbose",))):
                told[name] = rounds(await play_seeded(url, home / name.replace(" ", ""), *extra))
        return told
    finally:
        await server.close()


def ear(home: Path) -> None:
    for name, told in asyncio.run(heard(home)).items():
        counts = [words(lines) for lines in told]
        spoken = [seconds("\n".join(lines)) for lines in told]
        print(
            f"a round heard ({name}): median {statistics.median(counts):.0f} words, most "
            f"{max(counts)}, mean {statistics.mean(counts):.0f}; espeak-ng median "
            f"{statistics.median(spoken):.0f} s, longest {max(spoken):.0f} s, over "
            f"{len(told)} rounds of one seeded 4-seat game"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--only", choices=("ear",), help="only the rounds heard")
    args = parser.parse_args()
    home = Path("/tmp") / f"gother-bench-plain-{time.time_ns()}"
    ear(home)
    if args.only:
        return
    server, url = start_server()
    try:
        plain = [launch(url, home) for _ in range(args.runs)]
        screen = [full_screen.launch_to_table(url, home) for _ in range(args.runs)]
    finally:
        server.terminate()
        server.wait(30)
    for name, runs in (("--plain", plain), ("baseline, full-screen", screen)):
        took = statistics.median(t for t, _ in runs)
        memory = statistics.median(m for _, m in runs)
        print(
            f"launch to the table ({name}): median {took:.2f} s of {args.runs} runs, "
            f"RSS there {memory:.0f} MB"
        )
    made, told = options(args.games)
    print(
        f"a placement's options: median {statistics.median(made) * 1000:.1f} ms, slowest "
        f"{max(made) * 1000:.1f} ms, over {len(made)} placements of {args.games} games"
    )
    print(
        f"  baseline, the narrator telling the same view's log: median "
        f"{statistics.median(told) * 1000:.1f} ms, slowest {max(told) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
