"""`gother join` / `gother watch`: arguments, refusals, and what the app is started with."""

from __future__ import annotations

import logging

import pytest

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.tui.app import GotherApp


@pytest.fixture
def started(monkeypatch) -> list[tuple[GotherApp, dict]]:
    """Record the app the command would run, instead of taking over the terminal."""
    runs: list[tuple[GotherApp, dict]] = []
    monkeypatch.setattr(GotherApp, "run", lambda self, **kw: runs.append((self, kw)))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    return runs


def test_join_starts_the_client_with_its_options(started, monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    code = cli.main(["join", "ws://127.0.0.1:8765", "--name", "Raven", "--table", "t1"])
    assert code == 0
    ((app, kwargs),) = started
    options = app.options
    assert (options.url, options.name, options.table, options.watch) == (
        "ws://127.0.0.1:8765",
        "Raven",
        "t1",
        False,
    )
    assert options.ascii is False and kwargs == {"mouse": True}


def test_watch_no_mouse_and_ascii(started):
    cli.main(["watch", "wss://games.example:443", "--no-mouse", "--ascii", "--theme", "nord"])
    ((app, kwargs),) = started
    assert app.options.watch and app.options.ascii and app.options.theme == "nord"
    assert kwargs == {"mouse": False}


def test_ascii_is_automatic_on_a_linux_console(started, monkeypatch):
    monkeypatch.setenv("TERM", "linux")
    cli.main(["join", "ws://h:1"])
    assert started[0][0].options.ascii is True


def test_the_default_name_comes_from_the_user(monkeypatch):
    monkeypatch.setenv("USER", "lydia")
    assert cli.build_parser().parse_args(["join", "ws://h:1"]).name == "lydia"
    monkeypatch.setenv("USER", "x" * 40)
    assert cli.build_parser().parse_args(["join", "ws://h:1"]).name == "Player"


def test_the_parser_is_built_once_for_each_default_name(monkeypatch):
    """A door's zygote builds it before it forks, so its sessions (whose $USER is the
    door's) parse with that one; another $USER gets a parser of its own."""
    monkeypatch.setenv("USER", "lydia")
    built = cli.build_parser()
    assert cli.build_parser() is built
    monkeypatch.setenv("USER", "raven")
    assert cli.build_parser() is not built
    assert cli.build_parser().parse_args(["play"]).name == "raven"
    assert built.parse_args(["play"]).name == "lydia"


@pytest.mark.parametrize(
    "url", ["http://h:1", "h:1", "ws://", "ws://h:99999", "ws://h:port", "wss:///path"]
)
def test_bad_urls_are_argparse_errors(url, capsys, started):
    with pytest.raises(SystemExit) as exc:
        cli.main(["join", url])
    assert exc.value.code == 2
    assert f"argument URL: {url!r}" in capsys.readouterr().err
    assert started == []


def test_an_unknown_theme_is_refused(capsys, started):
    with pytest.raises(SystemExit):
        cli.main(["join", "ws://h:1", "--theme", "neon-pink"])
    assert "choose from" in capsys.readouterr().err and started == []


def test_a_bad_name_is_refused(capsys, started):
    with pytest.raises(SystemExit):
        cli.main(["join", "ws://h:1", "--name", "   "])
    assert "argument --name: name: must be 1 to 24 characters, got 0" in capsys.readouterr().err


def test_the_client_logs_to_a_file_not_the_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(logs, "user_log_dir", lambda app: str(tmp_path / "logs"))
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.log_client_to_file()
        logging.getLogger("gother.client").warning("a warning for the file")
        assert all(isinstance(h, logging.FileHandler) for h in root.handlers)
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
    assert "a warning for the file" in (tmp_path / "logs" / "client.log").read_text()
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_the_bell_is_off_unless_asked_for(started):
    cli.main(["join", "ws://127.0.0.1:8765"])
    cli.main(["watch", "ws://127.0.0.1:8765", "--bell"])
    (quiet, _), (loud, _) = started
    assert quiet.options.bell is False and loud.options.bell is True
    assert cli.build_parser().parse_args(["play"]).bell is False
    assert cli.build_parser().parse_args(["play", "--bell"]).bell is True


def test_gother_help_says_that_gother_alone_opens_the_start_menu():
    assert "`gother` alone opens the start menu" in " ".join(
        cli.build_parser().format_help().split()
    )


def test_every_serve_option_has_a_help_line_and_its_default():
    serve = cli.build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    text = " ".join(serve.format_help().split())
    for action in serve._actions:
        assert action.help, action.option_strings
        if action.default not in (None, False, "==SUPPRESS=="):
            assert f"default: {action.default}" in text or "default" in action.help, action
