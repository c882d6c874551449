"""End to end through real terminals: a `gother serve` process, and one `gother join` per
seat, each in its own 80x24 tmux session on a private tmux server. The whole game (round
cap 3) is played by key presses only: `h` (the server's hint) then Enter, whenever a pane
says it is that seat's decision. Every pane must end on the game-over panel, and the
server's export of the table must agree with what the panes show."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import msgpack
import pytest
from websockets.sync.client import connect

from gother_tui.record import load_record
from protocol import PROTOCOL_VERSION, decode, encode

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

GOTHER = str(Path(sys.executable).with_name("gother"))
SEATS = 3
LISTENING = re.compile(r"listening on (ws://127\.0\.0\.1:\d+)")
HINTED = "The hint; Enter plays it"
POLL = 0.03  # seconds between screen reads inside a deadline loop
STEP_TIMEOUT = 15.0  # one hint, one move: generous on two busy cores
GAME_TIMEOUT = 120.0


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(POLL)


class Server:
    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [GOTHER, "serve", "--port", "0", "--bot-delay", "0.05", "--db", str(db)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.url = ""
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:  # drained to the end: the server never blocks on it
            self.lines.append(line.rstrip("\n"))
            match = LISTENING.search(line)
            if match and not self.url:
                self.url = match.group(1)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Tmux:
    def __init__(self, home: Path) -> None:
        self.socket = f"gother-e2e-{uuid.uuid4().hex[:12]}"
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=20,
            check=False,
        )
        assert done.returncode == 0, f"tmux {args[0]}: {done.stderr}"
        return done.stdout

    def start(self, name: str, command: list[str]) -> None:
        env = [f"{k}={v}" for k, v in self.env.items()]
        shell = " ".join(["exec", "env", *env, *command])
        self.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", shell)
        self.run("set-option", "-t", name, "remain-on-exit", "on")  # a crash stays readable

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20, check=False
        )


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    srv = Server(tmp_path / "games.db")
    try:
        wait_for(lambda: srv.url or srv.proc.poll() is not None, 60, "the server")
        assert srv.url, "gother serve did not start:\n" + "\n".join(srv.lines)
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def tmux(tmp_path) -> Iterator[Tmux]:
    home = tmp_path / "home"
    home.mkdir()
    mux = Tmux(home)
    try:
        yield mux
    finally:
        mux.kill()


def create_table(url: str) -> str:
    with connect(url) as ws:
        ws.send(encode({"t": "hello", "rid": 1, "v": PROTOCOL_VERSION, "name": "Host"}))
        assert decode(ws.recv(10))["t"] == "welcome"
        variants = {"round_cap": 3}
        ws.send(
            encode(
                {
                    "t": "create",
                    "rid": 2,
                    "name": "E2E",
                    "seats": SEATS,
                    "bots": 0,
                    "variants": variants,
                }
            )
        )
        reply = decode(ws.recv(10))
        assert reply["t"] == "created", reply
        return str(reply["table"])


def status(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def play_one(tmux: Tmux, pane: str) -> None:
    """h, wait until the hint is filled in, Enter, wait until the screen moves on."""
    tmux.keys(pane, "h")
    wait_for(lambda: HINTED in tmux.screen(pane), STEP_TIMEOUT, f"the hint in {pane}")
    before = tmux.screen(pane)
    tmux.keys(pane, "Enter")
    wait_for(lambda: tmux.screen(pane) != before, STEP_TIMEOUT, f"the move from {pane}")


def test_a_whole_game_in_three_terminals(server, tmux, tmp_path):
    table = create_table(server.url)
    panes = [f"p{i}" for i in range(SEATS)]
    for i, pane in enumerate(panes):  # one after the other: seat i is P{i}
        tmux.start(pane, [GOTHER, "join", server.url, "--name", f"P{i}", "--table", table])
        wait_for(lambda p=pane: "(you)" in tmux.screen(p), 60, f"{pane} at the table")

    over = set()
    moves = 0  # Enters sent
    deadline = time.monotonic() + GAME_TIMEOUT
    while len(over) < SEATS:
        assert time.monotonic() < deadline, "the game did not finish:\n" + tmux.screen("p0")
        acted = False
        for pane in panes:
            screen = tmux.screen(pane)
            if "WINNER" in screen:
                over.add(pane)
            elif "You: step" in status(screen):
                play_one(tmux, pane)
                moves += 1
                acted = True
        if not acted:
            time.sleep(POLL)  # nobody's decision showing yet: read the screens again

    screens = {pane: tmux.screen(pane) for pane in panes}
    out = tmp_path / "game.gother"
    done = subprocess.run(
        [GOTHER, "export", "--db", str(tmp_path / "games.db"), table, str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    record = msgpack.unpackb(out.read_bytes())
    final = record["views"][-1]
    assert record["players"] == [f"P{i}" for i in range(SEATS)]
    assert final["phase"] == "over" and final["winner"]
    # no bots and nobody left: every move came from an Enter in some pane (a few Enters may
    # have been refused, e.g. one sent just as the state moved on)
    assert 0 < len(record["moves"]) <= moves
    winners = {f"P{s}" for s in final["winner"]}
    for screen in screens.values():
        assert "Game over" in screen and "Goth Points by round, rounds 1-3" in screen, screen
        rows = [line for line in screen.splitlines() if "WINNER" in line]
        assert {re.search(r"P\d", row).group(0) for row in rows} == winners, screen
        for p in final["players"]:  # the final Goth in each pane's score table
            name = f"P{p['seat']}"
            row = next(line for line in screen.splitlines() if re.search(rf"\d {name}\b", line))
            assert row.strip("│| ").split()[-4] == str(p["scores"]["goth"]), row
    assert len(load_record(out).views) == len(record["moves"]) + 1  # `gother replay` reads it
