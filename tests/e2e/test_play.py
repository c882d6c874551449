"""End to end: `gother play --players 3` in an 80x24 tmux pane (a private tmux socket, HOME
and XDG folders in a temp dir) deals a table, and Ctrl+Q (once its question is answered
yes) ends the process with status 0, no traceback, and its private server closed.

The server listens on 127.0.0.1 only; its port is read from `play.log`, where `gother play`
sends the server's log (never to the terminal)."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.e2ekit import GOTHER, HAND, LISTENING, PLAYER_ROW, Tmux, accepts, terminal_env
from tests.kits.poll import until_blocking

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(terminal_env(tmp_path, PATH="/usr/bin:/bin", USER="raven"))
    yield session
    session.kill()


def listening_port(state: Path) -> int | None:
    log = state / "gother" / "log" / "play.log"
    match = LISTENING.search(log.read_text(encoding="utf-8")) if log.exists() else None
    return int(match.group(1)) if match else None


def test_play_deals_a_table_and_ctrl_q_ends_everything(tmux: Tmux, tmp_path: Path):
    # tmux 3.3 sometimes reports no pane_dead_status for a pane that exited, so the shell
    # writes the exit status where the test can read it for certain
    exit_status = tmp_path / "exit-status"
    play = shlex.join([str(GOTHER), "play", "--players", "3", "--name", "Raven"])
    tmux.start("play", f"{play}; echo $? > {shlex.quote(str(exit_status))}")

    def dealt() -> str | None:
        screen = tmux.screen("play")
        rows = PLAYER_ROW.findall(screen)
        ok = [seat for seat, _ in rows] == ["1", "2", "3"] and HAND.search(screen)
        return screen if ok else None

    screen = until_blocking("the dealt table", dealt)
    assert "Raven (you)" in screen
    assert "Traceback" not in screen
    port = until_blocking(
        "the server's port in play.log", lambda: listening_port(tmp_path / "state")
    )
    assert accepts(port)

    # mid-game, Ctrl+Q asks first (the game's server runs inside this client): No keeps
    # the game, Yes ends it
    tmux.keys("play", "C-q")
    until_blocking("the question", lambda: "This ends the game" in tmux.screen("play"))
    tmux.keys("play", "n")
    until_blocking("the table again", lambda: "This ends the game" not in tmux.screen("play"))
    assert tmux.pane("play", "pane_dead") != "1" and accepts(port)
    tmux.keys("play", "C-q")
    until_blocking("the question again", lambda: "This ends the game" in tmux.screen("play"))
    tmux.keys("play", "y")
    until_blocking("the process to end", lambda: tmux.pane("play", "pane_dead") == "1")
    assert until_blocking(
        "its exit status", lambda: exit_status.exists() and exit_status.read_text()
    )
    assert exit_status.read_text().strip() == "0"
    after = tmux.screen("play")
    assert "Traceback" not in after and "Error" not in after
    assert not accepts(port)
    log = (tmp_path / "state" / "gother" / "log" / "play.log").read_text(encoding="utf-8")
    assert f"local server on port {port} closed" in log
    assert "Traceback" not in log
    # the private server's seat token was kept in memory, not in the user's seat file
    assert not list((tmp_path / "state").rglob("seats.json"))
