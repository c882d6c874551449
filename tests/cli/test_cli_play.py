"""`gother play` (a private server in a thread, a table of bots, the client seated) and the
start menu `gother` opens with no arguments."""

from __future__ import annotations

import argparse
import logging
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from gother_tui import cli
from gother_tui.cli import build_parser
from gother_tui.cli import client as cli_client
from gother_tui.cli import play as cli_play
from gother_tui.cli.play import LocalServer, MemorySeatStore
from gother_tui.core import logs
from gother_tui.core.address import address_problem
from gother_tui.core.discovery import Found
from gother_tui.plain.listening import Listener
from gother_tui.tui.app import GotherApp
from gother_tui.tui.start_menu import (
    ENTRIES,
    AddressScreen,
    FindScreen,
    HostScreen,
    RecordScreen,
    StartApp,
    host_instructions,
)
from protocol import PROTOCOL_VERSION, decode, encode
from protocol import requests as rq

GOTHER = str(Path(sys.executable).with_name("gother"))
PLAY_LOGGERS = ("gother.server", "gother.play", "websockets")


@pytest.fixture(autouse=True)
def restore_loggers():
    """`gother play` points the server's loggers at a file: undo it after each test."""
    saved = {}
    for name in PLAY_LOGGERS:
        logger = logging.getLogger(name)
        saved[name] = (list(logger.handlers), logger.propagate, logger.level)
    yield
    for name, (handlers, propagate, level) in saved.items():
        logger = logging.getLogger(name)
        for handler in logger.handlers:
            if handler not in handlers:
                handler.close()
        logger.handlers[:] = handlers
        logger.propagate, logger.level = propagate, level


def refuses(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def server_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "gother-play-server"]


# -- arguments ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", ["2", "6", "7", "three"])
def test_players_outside_3_to_5_are_argparse_errors(players, capsys, monkeypatch):
    monkeypatch.setattr(cli_play, "play", lambda args: pytest.fail("must not start"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "--players", players])
    assert exc.value.code == 2
    assert "argument --players" in capsys.readouterr().err


def test_the_console_script_refuses_seven_players_with_exit_2():
    result = subprocess.run(
        [GOTHER, "play", "--players", "7"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert "the game is for 3-5 players, got 7" in result.stderr


def test_an_unknown_bot_kind_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "--bots", "oracle"])
    assert exc.value.code == 2 and "invalid choice: 'oracle'" in capsys.readouterr().err


def subcommands() -> list[str]:
    parser = cli.build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(action.choices)


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: gother {command}")


def test_plays_help_says_each_traits_seat_counts_once(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    said = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    assert "(default: vengeful at 3 and 4 seats, steady at 5 seats)" in said


def test_play_and_the_menu_are_known_subcommands():
    assert "play" in subcommands()


# -- the private server -------------------------------------------------------------------------


def test_the_local_server_seats_a_player_at_a_table_of_bots_then_closes():
    with LocalServer(bot_delay=0.0) as local:
        port = local.port
        assert port and local.url == f"ws://127.0.0.1:{port}"
        table = local.create_table("t", seats=4, bots=3, bot_kind="random")
        with connect(local.url, open_timeout=10) as ws:
            ws.send(encode(rq.Hello(v=PROTOCOL_VERSION, name="Raven")))
            assert decode(ws.recv(10))["t"] == "welcome"
            ws.send(encode(rq.Join(table=table)))
            joined = decode(ws.recv(10))
            assert (joined["t"], joined["table"], joined["seat"]) == ("joined", table, 0)
            frame = decode(ws.recv(10))
            while frame["t"] != "state" or frame["view"]["phase"] == "lobby":
                frame = decode(ws.recv(10))
            view = frame["view"]
            assert [p["bot"] for p in view["players"]] == [False, True, True, True]
            assert view["you"]["seat"] == 0
        assert server_threads()
    assert server_threads() == []
    assert refuses(port)


def test_closing_twice_is_harmless():
    local = LocalServer()
    local.start()
    port = local.port
    local.close()
    local.close()
    assert port is not None and refuses(port) and server_threads() == []


def test_a_server_that_cannot_start_is_a_clear_error(monkeypatch):
    async def broken(self):
        raise OSError("no sockets today")

    monkeypatch.setattr(LocalServer, "_serve", broken)
    logging.getLogger("gother.play").addHandler(logging.NullHandler())
    with pytest.raises(cli_play.LocalServerError, match="no sockets today"):
        LocalServer().start()
    assert server_threads() == []


def test_the_memory_seat_store_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    store = MemorySeatStore()
    store.save("ws://127.0.0.1:1", "t1", "secret", "Raven")
    assert store.find("ws://127.0.0.1:1") == ("t1", "secret")
    assert list(tmp_path.rglob("*")) == []


def test_play_runs_the_client_at_the_new_table_and_cleans_up(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    seen: dict[str, Any] = {}

    def run(app: GotherApp, **kwargs: Any) -> None:
        seen.update(app=app, kwargs=kwargs, port=int(app.options.url.rsplit(":", 1)[1]))
        seen["listening"] = not refuses(seen["port"])
        seen["threads"] = len(server_threads())

    monkeypatch.setattr(GotherApp, "run", run)
    code = cli.main(["play", "--players", "3", "--bots", "random", "--name", "Raven", "--ascii"])
    assert code == 0
    options = seen["app"].options
    assert options.url.startswith("ws://127.0.0.1:") and options.table
    assert (options.name, options.watch, options.ascii) == ("Raven", False, True)
    assert isinstance(seen["app"].flow.store, MemorySeatStore)
    assert seen["listening"] and seen["threads"] == 1 and seen["kwargs"] == {"mouse": True}
    assert refuses(seen["port"]) and server_threads() == []
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")  # the server logs to a file, never to the terminal
    play_logs = list((tmp_path / "state").rglob("play.log"))
    assert len(play_logs) == 1
    text = play_logs[0].read_text(encoding="utf-8")
    assert f"listening on ws://127.0.0.1:{seen['port']}" in text
    assert f"table {options.table} created" in text


def test_play_module_does_not_import_the_server_until_it_runs():
    code = (
        "import sys, gother_tui.cli, gother_tui.cli.play, gother_tui.cli.host;"
        " print('server' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr


# -- the start menu ----------------------------------------------------------------------------


async def choose(*keys: str) -> tuple[list[str] | None, StartApp]:
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
    return app.return_value, app


@pytest.mark.parametrize(
    ("keys", "argv"),
    [
        (("p", "5"), ["play", "--players", "5"]),
        (("p", "enter"), ["play", "--players", "4"]),
        (("down",) * 5 + ("enter",), None),  # to "Quit"
        (("q",), None),
        (("escape",), None),
    ],
)
async def test_the_menu_returns_the_chosen_command(keys, argv):
    chosen, _ = await choose(*keys)
    assert chosen == argv


async def test_join_asks_for_an_address_and_refuses_a_bad_one():
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("j")
        await pilot.pause()
        assert isinstance(app.screen, AddressScreen)
        await pilot.press(*"http://x", "enter")
        await pilot.pause()
        assert isinstance(app.screen, AddressScreen)  # still asking
        assert "starts with ws://" in str(app.screen.query_one("#address-error").render())
        await pilot.press(*["backspace"] * 8, *"ws://10.0.0.5:8765", "enter")
        await pilot.pause()
    assert app.return_value == ["join", "ws://10.0.0.5:8765"]


async def test_watch_and_back_out_with_escape():
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, AddressScreen) and app.screen.watching
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AddressScreen)
        await pilot.press("w", *"wss://games.example:443", "enter")
        await pilot.pause()
    assert app.return_value == ["watch", "wss://games.example:443"]


async def test_host_shows_the_serve_command_and_the_address():
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HostScreen)
        text = str(app.screen.query_one("#host-text").render())
        assert "gother serve --host 0.0.0.0 --port 8765" in text
        assert f"gother join ws://{socket.gethostname()}:8765" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HostScreen)


@pytest.mark.parametrize("entry", ["p", "j", "w", "h", "r"])
async def test_ctrl_q_quits_from_every_dialog_of_the_menu(entry):
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(entry)
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]  # a dialog is open
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code == 0  # the app is exiting
    assert app.return_value is None


async def test_replay_asks_for_a_record_file_and_refuses_one_that_is_not_there(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # short names to type: a key press each
    Path("game.gother").write_bytes(b"")
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r", *"nothing", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)  # still asking
        assert "No file" in str(app.screen.query_one("#record-error").render())
        await pilot.press("ctrl+u", *"game.gother", "enter")
        await pilot.pause()
    assert app.return_value == ["replay", "game.gother"]


def test_the_help_names_the_menus_entries():
    described = build_parser().description or ""
    listed = described[described.index("(") + 1 : described.index(")")]
    words = {word.strip() for word in listed.replace("play against bots", "play").split(",")}
    assert words == {id_ for id_, _, _ in ENTRIES if id_ != "quit"}


def test_the_host_box_shows_no_markdown():
    assert "`" not in host_instructions("attic")


def fake_browse(found: list[Found]) -> tuple[Any, threading.Event]:
    """A browse() that sends nothing: it waits until released, then "hears" `found`."""
    release = threading.Event()

    def browse() -> list[Found]:
        assert release.wait(10)
        return found

    return browse, release


async def test_find_lists_the_servers_heard_and_joins_the_chosen_one():
    servers = [
        Found("attic", "ws://10.0.0.5:8765", "1.2"),
        Found("crypt", "wss://10.0.0.9:443", "1.2"),
    ]
    browse, release = fake_browse(servers)
    app = StartApp(browse=browse)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FindScreen)
        # still listening, and the UI answers meanwhile
        assert "listening…" in str(app.screen.query_one("#find-status").render())
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "heard 2 servers" in str(app.screen.query_one("#find-status").render())
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.return_value == ["join", "wss://10.0.0.9:443"]


async def test_find_with_no_servers_says_so_and_goes_back_to_the_menu():
    browse, release = fake_browse([])
    release.set()
    app = StartApp(browse=browse)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, FindScreen)
        note = str(app.screen.query_one("#start-note").render())
        assert note == "no servers heard on this network in 2 s"
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value is None


@pytest.mark.parametrize(
    ("url", "ok"),
    [("ws://h:1", True), ("wss://h", True), ("h:1", False), ("ws://", False), ("ws://h:x", False)],
)
def test_address_problem(url, ok):
    assert (address_problem(url) is None) is ok


def test_no_arguments_on_a_terminal_runs_the_chosen_command(monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(cli_client, "start_menu", lambda: ["play", "--players", "3"])
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    calls: list[argparse.Namespace] = []
    monkeypatch.setattr(cli_play, "play", lambda args: calls.append(args) or 0)  # its status
    assert cli.main([]) == 0
    assert [c.players for c in calls] == [3]


def test_no_arguments_and_quit_does_nothing(monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(cli_client, "start_menu", lambda: None)
    monkeypatch.setattr(cli_play, "play", lambda args: pytest.fail("must not start"))
    assert cli.main([]) == 0


def test_no_arguments_without_a_terminal_prints_help():
    for command in ([GOTHER], [sys.executable, "-m", "gother_tui"]):
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        assert result.returncode == 0
        assert result.stdout.startswith("usage: gother") and "play" in result.stdout


def test_play_takes_the_house_rules_and_the_bot_speed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    made: list[LocalServer] = []

    class Recorded(LocalServer):
        def __init__(self, bot_delay: float, heard_by: Any = None) -> None:
            super().__init__(bot_delay, heard_by)
            made.append(self)

    monkeypatch.setattr(cli_play, "LocalServer", Recorded)
    seen: dict[str, Any] = {}

    def run(app: GotherApp, **kwargs: Any) -> None:  # ask the private server what it made
        with connect(app.options.url, open_timeout=10) as ws:
            ws.send(encode(rq.Hello(v=PROTOCOL_VERSION, name="Eve")))
            assert decode(ws.recv(10))["t"] == "welcome"
            ws.send(encode(rq.List()))
            frame = decode(ws.recv(10))
            while frame["t"] != "tables":
                frame = decode(ws.recv(10))
            seen["tables"] = frame["tables"]

    monkeypatch.setattr(GotherApp, "run", run)
    argv = ["play", "--players", "6", "--two-or-six", "--round-cap", "2", "--fate-discard", "top"]
    assert cli.main([*argv, "--overflow", "immediate", "--bot-speed", "fast"]) == 0
    ((table,),) = [seen["tables"]]
    assert table["seats"] == 6 and table["bots"] == 5
    variants = table["variants"]
    assert (variants["two_or_six"], variants["round_cap"]) == (True, 2)
    assert (variants["fate_discard"], variants["overflow"]) == ("top", "immediate")
    assert made[0]._server.bot_delay == cli_play.BOT_SPEEDS["fast"] < cli_play.BOT_SPEEDS["normal"]
    assert made[0]._server.heard_by is None  # the full screen: no listener to wait for


def test_play_plain_paces_its_bots_by_what_the_listener_has_heard(tmp_path, monkeypatch):
    """Issue 29 §7: under --plain the bots' default pace follows the reader: the private
    server's bots wait until the lines written so far were heard at 175 words a minute."""
    from gother_tui import plain

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    made: list[LocalServer] = []
    listeners: list[Listener | None] = []

    class Recorded(LocalServer):
        def __init__(self, bot_delay: float, heard_by: Any = None) -> None:
            super().__init__(bot_delay, heard_by)
            made.append(self)

    def run(options: Any, seat_store: Any = None, listener: Listener | None = None) -> int:
        listeners.append(listener)
        return 0

    monkeypatch.setattr(cli_play, "LocalServer", Recorded)
    monkeypatch.setattr(plain, "run", run)
    assert cli.main(["play", "--plain"]) == 0
    assert cli.main(["play", "--plain", "--bot-speed", "fast"]) == 0
    listener, fast = listeners
    assert listener is not None and fast is None
    assert made[0]._server.heard_by == listener.heard_by
    assert made[0]._server.bot_delay == cli_play.BOT_SPEEDS["normal"]
    assert made[1]._server.heard_by is None and made[1]._server.bot_delay == 0.1


def test_the_listener_is_behind_by_the_words_still_to_be_heard():
    now = [100.0]
    listener = Listener(wpm=120, clock=lambda: now[0])  # two words a second
    listener.said("Vlad gave you Stomach Bug.")  # five words: 2.5 s
    assert listener.heard_by() == 102.5
    now[0] = 101.0
    listener.said("Your turn.")  # after what is still being said
    assert listener.heard_by() == 103.5
    now[0] = 110.0
    listener.said("Round 2.")  # heard long ago: from now
    assert listener.heard_by() == 111.0


def test_six_players_without_the_house_rule_are_refused(capsys, monkeypatch):
    monkeypatch.setattr(cli_play, "play", lambda args: pytest.fail("must not start"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "--players", "6"])
    assert exc.value.code == 2
    assert "6 only with --two-or-six" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("ws://host:8765", "A server address alone names no game"),
        ("ws://host:8765/t1/x#seat2", "is not a replay reference"),
    ],
)
async def test_replay_takes_a_pasted_reference_and_refuses_a_broken_one(typed, problem):
    pasted = "ws://host:8765/t1/2#seat2-turn31"
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r", *typed, "enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)  # still asking
        assert problem in str(app.screen.query_one("#record-error").render())
        await pilot.press("ctrl+u", *pasted, "enter")
        await pilot.pause()
    assert app.return_value == ["replay", pasted]


def test_every_line_written_is_told_to_the_listener():
    import io

    from gother_tui.plain.terminal import Output

    now = [0.0]
    listener = Listener(wpm=60, clock=lambda: now[0])  # a word a second
    Output(io.StringIO(), ascii_only=True, listener=listener).lines(["Round 1: your turn.", "Hi."])
    assert listener.heard_by() == 5.0
