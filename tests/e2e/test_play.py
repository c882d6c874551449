"""End to end: `gother play --players 3` in an 80x24 tmux pane (a private tmux socket, HOME
and XDG folders in a temp dir) deals a table, and Ctrl+Q ends the process with status 0,
no traceback, and its private server closed.

The server listens on 127.0.0.1 only; its port is read from `play.log`, where `gother play`
sends the server's log (never to the terminal)."""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

GOTHER = Path(sys.executable).with_name("gother")
STARTUP = 60.0  # seconds: a cold start on two busy cores can be slow
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)")
PLAYER_ROW = re.compile(r"^\W{0,3}([1-9]) (\w+).*?\s\d+/\d+\s", re.MULTILINE)  # seat, name, hand
HAND = re.compile(r"Your hand.*\n.*[+-]\d+ +[+-]\d+ +[+-]\d+")  # heading, then a card row

T = TypeVar("T")


def wait_for(what: str, check: Callable[[], T], timeout: float = STARTUP) -> T:
    """Poll `check()` until it returns something truthy; fail with `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


class Tmux:
    """One 80x24 session on a private tmux server; panes stay after their process ends."""

    def __init__(self, home: Path) -> None:
        self.socket = f"gother-play-{uuid.uuid4().hex[:8]}"
        self.config = home / "tmux.conf"
        self.config.write_text("set -g remain-on-exit on\nset -g status off\n")
        self.env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "USER": "raven",
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
        }

    def __call__(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            timeout=30,
            env=self.env,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "play")

    def pane(self, field: str) -> str:
        return self("display-message", "-p", "-t", "play", f"#{{{field}}}").strip()

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"],
            capture_output=True,
            timeout=30,
            env=self.env,
            stdin=subprocess.DEVNULL,
        )


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(tmp_path)
    yield session
    session.kill()


def listening_port(state: Path) -> int | None:
    log = state / "gother" / "log" / "play.log"
    match = LISTENING.search(log.read_text(encoding="utf-8")) if log.exists() else None
    return int(match.group(1)) if match else None


def accepts(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_play_deals_a_table_and_ctrl_q_ends_everything(tmux: Tmux, tmp_path: Path):
    command = shlex.join([str(GOTHER), "play", "--players", "3", "--name", "Raven"])
    tmux("new-session", "-d", "-s", "play", "-x", "80", "-y", "24", command)

    def dealt() -> str | None:
        screen = tmux.screen()
        rows = PLAYER_ROW.findall(screen)
        ok = [seat for seat, _ in rows] == ["1", "2", "3"] and HAND.search(screen)
        return screen if ok else None

    screen = wait_for("the dealt table", dealt)
    assert "Raven (you)" in screen
    assert "Traceback" not in screen
    port = wait_for("the server's port in play.log", lambda: listening_port(tmp_path / "state"))
    assert accepts(port)

    tmux("send-keys", "-t", "play", "C-q")
    wait_for("the process to end", lambda: tmux.pane("pane_dead") == "1")
    assert tmux.pane("pane_dead_status") == "0"
    after = tmux.screen()
    assert "Traceback" not in after and "Error" not in after
    assert not accepts(port)
    log = (tmp_path / "state" / "gother" / "log" / "play.log").read_text(encoding="utf-8")
    assert f"local server on port {port} closed" in log
    assert "Traceback" not in log
    # the private server's seat token was kept in memory, not in the user's seat file
    assert not list((tmp_path / "state").rglob("seats.json"))
