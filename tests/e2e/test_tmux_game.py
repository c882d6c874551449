"""End to end through real terminals: a `gother serve` process, and one `gother join` per
seat, each in its own 80x24 tmux session on a private tmux server. The whole game (round
cap 3) is played by key presses only: `h` (the server's hint) then Enter, whenever a pane
says it is that seat's decision. Every pane must end on the game-over panel, and the
server's export of the table must agree with what the panes show."""

from __future__ import annotations

import re
import shutil
import subprocess
import time

import msgpack
import pytest

from gother_tui.core.record import load_record
from tests.e2e.e2ekit import GOTHER, Tmux, create_table
from tests.e2e.playkit import Pane, play_by_hint

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

SEATS = 3
POLL = 0.03  # seconds between screen reads inside a deadline loop
GAME_TIMEOUT = 120.0


def join(tmux: Tmux, pane: str, command: list[str]) -> None:
    """Run `command` in a new session `pane`, with the terminal's environment made explicit."""
    env = [f"{k}={v}" for k, v in tmux.env.items()]
    tmux.start(pane, " ".join(["exec", "env", *env, *command]))


def status(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def test_a_whole_game_in_three_terminals(quick_bots_server, utf8_tmux, tmp_path):
    server, tmux = quick_bots_server, utf8_tmux
    url = f"ws://127.0.0.1:{server}"
    table = create_table(server, "E2E", seats=SEATS, variants={"round_cap": 3})
    panes = [Pane(f"P{i}", tmux, f"p{i}") for i in range(SEATS)]
    for pane in panes:  # one after the other: seat i is P{i}
        command = [str(GOTHER), "join", url, "--name", pane.name, "--table", table]
        join(tmux, pane.session, command)
        pane.wait("at the table", "(you)")

    over = set()
    moves = 0  # Enters sent
    deadline = time.monotonic() + GAME_TIMEOUT
    while len(over) < SEATS:
        assert time.monotonic() < deadline, "the game did not finish:\n" + panes[0].screen()
        acted = False
        for pane in panes:
            screen = pane.screen()
            if "WINNER" in screen:
                over.add(pane.session)
            elif "You: step" in status(screen):
                play_by_hint(pane)
                moves += 1
                acted = True
        if not acted:
            time.sleep(POLL)  # nobody's decision showing yet: read the screens again

    screens = {pane.session: pane.screen() for pane in panes}
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
            # the first number after the name (a "Games won" column may follow Fate)
            goth = rf"\d {name}\b(?: \(you\))?\s+(-?\d+)"
            row = next(line for line in screen.splitlines() if re.search(goth, line))
            assert re.search(goth, row).group(1) == str(p["scores"]["goth"]), row
    assert len(load_record(out).views) == len(record["moves"]) + 1  # `gother replay` reads it
