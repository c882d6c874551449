"""End to end in a real terminal: a whole game (one person, two bots, round cap 2) played
in an 80x24 tmux pane where, at every decision, the player first says something in the
chat and only then takes the hint and presses Enter. Before issue 9's fix the chat line
kept the keys after a line was sent: the `h` and the Enter went into the chat instead of
playing the move. Every move must still go through, and every chat line be shown."""

from __future__ import annotations

import shutil
import subprocess
import time

import msgpack
import pytest

from tests.e2e.e2ekit import GOTHER, create_table
from tests.e2e.playkit import Pane, play_by_hint

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

POLL = 0.03
GAME_TIMEOUT = 150.0


def chat_then_move(p0: Pane, n: int) -> None:
    """c, a line, Enter; wait for the line in the chat; then the move, by the hint."""
    line = f"move {n} coming"
    p0.press("c")
    p0.type(line)
    p0.press("Enter")
    p0.wait(f"chat line {n}", f"P0: {line}")
    play_by_hint(p0)


def test_chat_mid_turn_and_every_move_still_goes_through(quick_bots_server, utf8_tmux, tmp_path):
    server, tmux = quick_bots_server, utf8_tmux
    url = f"ws://127.0.0.1:{server}"
    table = create_table(server, "Chatty", seats=3, bots=2, variants={"round_cap": 2})
    env = [f"{k}={v}" for k, v in tmux.env.items()]
    command = [str(GOTHER), "join", url, "--name", "P0", "--table", table]
    tmux.start("p0", " ".join(["exec", "env", *env, *command]))
    p0 = Pane("P0", tmux, "p0")
    p0.wait("the table", "(you)")

    moves = 0
    deadline = time.monotonic() + GAME_TIMEOUT
    while "WINNER" not in (screen := p0.screen()):
        assert time.monotonic() < deadline, "the game did not finish:\n" + screen
        if "You: step" in screen.splitlines()[0]:
            moves += 1
            chat_then_move(p0, moves)
        else:
            time.sleep(POLL)

    out = tmp_path / "game.gother"
    done = subprocess.run(
        [str(GOTHER), "export", "--db", str(tmp_path / "games.db"), table, str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    record = msgpack.unpackb(out.read_bytes())
    assert record["views"][-1]["phase"] == "over"
    mine = [move for seat, move in record["moves"] if seat == 0]
    assert moves > 0 and len(mine) == moves  # each decision: one chat line, then its move
    said = [text for _name, text in record["chat"]]
    assert said == [f"move {n} coming" for n in range(1, moves + 1)]
