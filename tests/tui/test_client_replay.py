"""`gother replay FILE`: a record exported by the real server, stepped through on the
read-only table screen; bad files give one line and exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from textual.widgets import Input

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import load_record
from gother_tui.tui.replay_app import ReplayApp
from gother_tui.tui.screens.game_over import GameOverScreen
from protocol import requests as rq
from protocol.view import Variants
from server.tables.export import export_game
from tests.kits import poll
from tests.tui.clientkit import screen_text, shown, until, widget_text

GOTHER = str(Path(sys.executable).with_name("gother"))


@pytest.fixture
async def record_file(live_server, tmp_path) -> Path:
    """A 3-bot game with a round cap of 3, played to the end and exported."""
    request = rq.Create(name="Replay Crypt", seats=3, bots=3, variants=Variants(round_cap=3))
    table = live_server.lobby.create(request)
    table.start_if_full()
    # the bots play on this loop, between two looks
    await poll.until("the bots to finish", lambda: table.game is not None and table.game.over)
    path = tmp_path / "game.gother"
    export_game(live_server.config.db, table.id, path)
    return path


def replay_app(path: Path, **options) -> ReplayApp:
    return ReplayApp(load_record(path), ClientOptions(url=f"file:{path}", **options))


async def test_step_through_a_record_with_the_arrow_keys(record_file):
    app = replay_app(record_file)
    views = app.record.views
    total = len(views) - 1
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "replay", "the replay")
        await pilot.pause()
        assert widget_text(pilot, "#replay-pos").startswith(f"move 0/{total} the deal")
        assert "Replay Crypt" in widget_text(pilot, "#status") and "replay" in screen_text(pilot)
        first_hand = app.catalogue.name(views[0].players[0].hand[0])
        assert first_hand in widget_text(pilot, "#hands")  # every hand is shown
        await pilot.press("left")  # already at the deal: stays
        assert app.position == 0
        await pilot.press("right", "right")
        assert app.position == 2 and app.view is views[2]
        await pilot.pause()
        assert widget_text(pilot, "#replay-pos").startswith(f"move 2/{total} ")
        await pilot.press("end")
        await pilot.pause()
        assert app.view is views[-1] and app.view.phase == "over"
        assert widget_text(pilot, "#replay-pos").startswith(f"move {total}/{total} ")
        assert "game over" in widget_text(pilot, "#status")
        assert not isinstance(app.screen, GameOverScreen)  # a replay does not pop it up
        await pilot.press("home")
        assert app.position == 0 and app.view is views[0]


async def test_a_replay_is_read_only_and_shows_the_results_at_the_end(record_file):
    app = replay_app(record_file, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "replay", "the replay")
        await pilot.press("c", "h", "enter", "d", "1")
        assert not app.screen.query_one("#chat-input", Input).has_focus
        assert app.position == 0 and app.view is app.record.views[0]
        assert app.workers._workers == set()  # no network worker, nothing sent
        await pilot.press("end", "o")
        rounds = app.record.views[-1].round
        chart = f"Goth Points by round, rounds 1-{rounds}"
        text = await shown(pilot, GameOverScreen, chart, "WINNER", "Table")
        assert "Rematch" not in text and "Leave" not in text
        assert all(ch.isascii() for ch in text)


def test_the_command_line_opens_the_record(record_file, monkeypatch):
    runs: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: runs.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    assert cli.main(["replay", str(record_file), "--ascii"]) == 0
    (app,) = runs
    assert app.options.ascii and len(app.record.views) == len(app.record.moves) + 1


BAD = {
    "not msgpack": b"\xc1 this is not msgpack",
    "a list": msgpack.packb([1, 2, 3]),
    "no views": msgpack.packb(  # every other field of a record (protocol/record.py)
        {
            "record": 1,
            "table": {"id": "t1", "name": "Crypt"},
            "variants": {},
            "players": ["Ann", "Bo", "Cy"],
            "cards": [],
            "seed": 7,
            "game": 1,
            "moves": [],
            "chat": [],
            "ended": None,
        }
    ),
    "bad player": msgpack.packb(
        {"views": [{"phase": "draw", "round": 1, "discard": [], "players": [{"seat": "x"}]}]}
    ),
}


@pytest.mark.parametrize("kind", [*BAD, "missing"])
def test_a_bad_file_is_one_line_and_exit_code_2(kind, tmp_path, capsys):
    path = tmp_path / "bad.gother"
    if kind != "missing":
        path.write_bytes(BAD[kind])
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gother replay: cannot read {path}"[:15]), err
    assert str(path) in err[0]


def test_the_installed_command_reports_a_bad_file_without_a_traceback(tmp_path):
    path = tmp_path / "bad.gother"
    path.write_bytes(BAD["no views"])
    done = subprocess.run(
        [GOTHER, "replay", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"gother replay: {path} is not a game record: record: Object missing required field `views`"
    )
    assert "Traceback" not in done.stderr and done.stdout == ""
