"""What the SSH door holds at once, and what a remote player never sees (server/doors/ssh.py,
server/doors/ssh_client.py, server/edge/caps.py): sessions capped per connection, key, address and
overall, logins in progress capped like OpenSSH's MaxStartups, each with a clear message;
a burst of window changes that once crashed the client; and no traceback on a player's
screen, whatever fails (it is logged on the host)."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import asyncssh
import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.host import ssh_options
from gother_tui.core.logs import TOLD_PLAYER
from server.doors.ssh import SshLimits
from server.doors.ssh_client import WindowSize
from server.edge.caps import Caps
from tests.kits.poll import until
from tests.kits.sshkit import (
    SCREEN_TIMEOUT,
    close,
    log_in,
    open_session,
    read_to_end,
    read_until,
)

pytestmark = pytest.mark.slow

LOBBY = re.compile(r"(?i)tables yet")


async def refusal(conn: asyncssh.SSHClientConnection) -> tuple[str, int | None]:
    """A session the door turns away: what it said, and its exit status."""
    process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
    said = await asyncio.wait_for(process.stderr.read(), SCREEN_TIMEOUT)
    await asyncio.wait_for(process.wait_closed(), SCREEN_TIMEOUT)
    return said.decode(), process.exit_status


# -- sessions -----------------------------------------------------------------------------


def test_caps_count_each_label_and_give_places_back():
    caps = Caps(3, key=2, address=10)
    assert caps.admit("a", key="k1", address="h") is None
    assert caps.admit("b", key="k1", address="h") is None
    assert caps.admit("c", key="k1", address="h") == "key"
    assert caps.admit("c", key=None, address="h") is None  # no key: that cap does not apply
    assert caps.admit("d", key="k2", address="h") == "overall"
    caps.release("a")
    caps.release("a")  # twice is once
    assert caps.admit("d", key="k1", address="h") is None
    assert len(caps) == 3


@pytest.mark.parametrize(
    ("limits", "second", "said"),
    [
        (
            SshLimits(per_connection=1),
            "same connection",
            "this connection has 1 session open already",
        ),
        (SshLimits(per_key=1), "same key", "1 session is open with your key already"),
        (SshLimits(per_address=1), "other key", "1 session is open from your address already"),
        (SshLimits(sessions=1), "other key", "this server is full (1 session): try again later"),
    ],
    ids=["per connection", "per key", "per address", "overall"],
)
async def test_a_session_over_a_cap_is_told_so(make_door, keys, limits, second, said):
    door = await make_door(open_access=True, limits=limits)
    conn, first = await open_session(door.port, keys["good"])
    try:
        await read_until(first, LOBBY)  # one session running
        if second == "same connection":
            other = conn
        else:
            other = await log_in(door.port, keys["good" if second == "same key" else "bad"])
        text, status = await refusal(other)
        assert text == f"gother: {said}\r\n" and status == 1
        if other is not conn:
            other.close()
    finally:
        await close(conn, first)
    await until("no session running", lambda: len(door.running) == 0)
    conn, again = await open_session(door.port, keys["good"])  # its place is free again
    try:
        await read_until(again, LOBBY)
    finally:
        await close(conn, again)


@pytest.mark.parametrize(
    ("limits", "said"),
    [
        (SshLimits(startups=2), "too many logins in progress: try again in a moment"),
        (SshLimits(startups_per_address=2), "too many logins in progress from your address"),
    ],
)
async def test_logins_in_progress_are_capped(make_door, keys, limits, said):
    door = await make_door(open_access=True, limits=limits)
    silent = [await asyncio.open_connection("127.0.0.1", door.port) for _ in range(2)]
    try:
        with pytest.raises(asyncssh.DisconnectError, match=re.escape(said)):
            await log_in(door.port, keys["good"])
    finally:
        for _, writer in silent:
            writer.close()
    await until("the silent ones gone, their places too", lambda: len(door.startups) == 0)
    conn = await log_in(door.port, keys["good"])
    conn.close()


async def test_a_connection_that_never_logs_in_is_dropped(make_door, keys):
    door = await make_door(open_access=True, limits=SshLimits(login_timeout=0.5))
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    try:
        async with asyncio.timeout(SCREEN_TIMEOUT):
            while await reader.read(4096):  # the server's version line, then the end
                pass
    finally:
        writer.close()


# -- window changes -----------------------------------------------------------------------


async def test_a_burst_of_window_sizes_reaches_the_pty_as_a_few_the_last_one_last():
    applied: list[tuple[int, int]] = []
    done = asyncio.Event()

    def apply(width: int, height: int) -> None:
        applied.append((width, height))
        if (width, height) == (97, 31):
            done.set()

    window = WindowSize(apply, gap=0.05)
    loop = asyncio.get_running_loop()
    began = loop.time()
    for i in range(10_000):
        window.change(60 + i % 50, 20 + i % 20)
    window.change(97, 31)
    await asyncio.wait_for(done.wait(), SCREEN_TIMEOUT)
    took = loop.time() - began
    assert applied[-1] == (97, 31)
    assert len(applied) <= 2 + took / 0.05  # one at once, then at most one per gap
    window.close()


async def test_the_client_outlives_a_burst_of_window_changes(make_door, keys):
    """Sent straight on as SIGWINCH, 20,000 window changes nested the client's signal
    handler until a RecursionError ended it, its traceback on the player's screen."""
    door = await make_door(open_access=True)
    conn, process = await open_session(door.port, keys["good"])
    try:
        await read_until(process, LOBBY)
        for i in range(20_000):
            process.change_terminal_size(60 + i % 50, 20 + i % 20)
        process.change_terminal_size(97, 31)
        seen = await read_until(process, re.compile(r"\x1b\[31;\d+H"), raw=True)  # row 31
        assert "Traceback" not in seen and "RecursionError" not in seen
        process.stdin.write(b"?")  # still answering keys
        assert "Help" in await read_until(process, re.compile(r"(?i)help.*\n(.*\n){3}"))
    finally:
        await close(conn, process)


# -- nothing but one line for the player --------------------------------------------------

FAULT = """
import gother_tui.core.flow

def welcomed(self, challenge=None):
    raise RuntimeError("injected fault in /srv/secret/host/path")

gother_tui.core.flow.Flow.welcomed = welcomed
"""


async def test_a_client_that_fails_says_one_line_and_the_host_logs_why(
    make_door, keys, tmp_path: Path, monkeypatch, caplog
):
    """A fault put into the client (through sitecustomize) crashes it once the server
    welcomes it: the player reads one line; the traceback is in the host's log."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(FAULT)
    monkeypatch.setenv("PYTHONPATH", str(site))  # the door's clients inherit it
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    with caplog.at_level(logging.ERROR, logger="gother.ssh"):
        conn, process = await open_session(door.port, keys["good"])
        try:
            seen = await read_to_end(process)
            await asyncio.wait_for(process.wait_closed(), SCREEN_TIMEOUT)
        finally:
            await close(conn, process)
    assert TOLD_PLAYER in seen
    assert "Traceback" not in seen and "/srv/secret" not in seen and ".py" not in seen
    assert process.exit_status == 1
    assert "Traceback" in caplog.text and "injected fault in /srv/secret/host/path" in caplog.text


async def test_a_session_the_server_cannot_run_says_one_line(make_door, keys, tmp_path, caplog):
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    players = tmp_path / "data" / "ssh-players"
    players.rmdir()
    players.write_text("not a folder")  # the key's folder cannot be made
    with caplog.at_level(logging.ERROR, logger="gother.ssh"):
        conn = await log_in(door.port, keys["good"])
        text, status = await refusal(conn)
        conn.close()
    assert text == "gother: the server could not run this session; its log says why\r\n"
    assert status == 1
    assert "Traceback" in caplog.text and "FileExistsError" in caplog.text


async def test_a_user_name_the_game_refuses_is_told_why(make_door, keys, tmp_path):
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    conn = await log_in(door.port, keys["good"], user="Vlad (you)")  # would fake the (you) mark
    text, status = await refusal(conn)
    conn.close()
    assert text.startswith("gother: name: ") and "connect as another user" in text
    assert status == 1


def test_serve_takes_the_caps_and_its_defaults_are_the_doors(capsys):
    parser = build_parser()
    chosen = ssh_options(parser.parse_args(["serve", "--ssh", "2222", "--ssh-open"]), parser)
    assert chosen is not None
    defaults = SshLimits()
    assert chosen["limits"] == {name: getattr(defaults, name) for name in chosen["limits"]}
    args = parser.parse_args(["serve", "--ssh", "1", "--ssh-open", "--ssh-max-sessions", "5"])
    assert ssh_options(args, parser)["limits"]["sessions"] == 5
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for flag in ("--ssh-max-sessions N", "--ssh-sessions-per-key N", "--ssh-max-startups N"):
        assert flag in shown
    assert f"(default {defaults.sessions})" in shown
