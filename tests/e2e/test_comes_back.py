"""A player who quits (^q) and runs the same command again is back in their seat, under
their name, with no step of their own: at each terminal door of a real `gother serve`, by
the system's own `gother join` and OpenSSH client in 80x24 tmux sessions. At the SSH door:
a listed key; the password with a key the door lists nowhere (the key names the person);
the password with no key at all (the token the door gave once, shown on the client's first
screen, sent back with SetEnv; back without it, the refusal says what to do).

Everything listens on 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from protocol.constants import SSH_TOKEN_ENV
from tests.e2e.e2ekit import (
    GOTHER,
    HAND,
    PLAYER_ROW,
    Tmux,
    accepts,
    create_table,
    free_port,
    gother_serve,
    terminal_env,
)
from tests.kits.poll import until_blocking

MISSING = [name for name in ("ssh", "ssh-keygen", "tmux") if shutil.which(name) is None]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(MISSING), reason=f"needs the OpenSSH client and tmux; missing: {', '.join(MISSING)}"
    ),
]
PASSWORD = "crypt-door"
GIVEN = re.compile(rf"{SSH_TOKEN_ENV}=([A-Za-z0-9_-]{{24}})")


@dataclass(frozen=True)
class Host:
    folder: Path
    port: int  # the game server's
    ssh_port: int
    listed_key: Path  # in the door's authorized_keys
    other_key: Path  # listed nowhere


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    """A `gother serve` with an SSH door that lets in its listed key, or the password; its
    lobby lists one table, the one Enter joins."""
    folder = tmp_path / "host"
    folder.mkdir()
    keys = {}
    for name in ("listed", "other"):
        keys[name] = folder / f"{name}_key"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys[name])], check=True
        )
    (folder / "authorized_keys").write_text(keys["listed"].with_suffix(".pub").read_text())
    (folder / "ssh-password").write_text(PASSWORD + "\n")
    askpass = folder / "askpass"  # OpenSSH's way to be given a password by a program
    askpass.write_text(f"#!/bin/sh\ncat {shlex.quote(str(folder / 'ssh-password'))}\n")
    askpass.chmod(0o700)
    ssh_port = free_port()
    serve_args = (
        *("--ssh", str(ssh_port), "--ssh-authorized-keys", str(folder / "authorized_keys")),
        *("--ssh-password-file", str(folder / "ssh-password")),
        *("--ssh-host-key", str(folder / "host_key"), "--bot-delay", "0.05"),
    )
    with gother_serve(folder, *serve_args) as port:
        until_blocking("the SSH front door to listen", lambda: accepts(ssh_port))
        yield Host(folder, port, ssh_port, keys["listed"], keys["other"])


def ssh(host: Host, name: str, *options: str) -> list[str]:
    return [
        "ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        *options, "-p", str(host.ssh_port), f"{name}@127.0.0.1",
    ]  # fmt: skip


def by_key(key: Path) -> tuple[str, ...]:
    return ("-i", str(key), "-o", "IdentitiesOnly=yes")


PASSWORD_TOO = ("-o", "PreferredAuthentications=publickey,password")


def door_command(host: Host, door: str, name: str, token: str | None) -> list[str]:
    """The command a player at `door` runs, each time the same (with the token they were
    given, at the SSH door with no key)."""
    if door == "terminal":
        return [str(GOTHER), "join", f"ws://127.0.0.1:{host.port}", "--name", name]
    if door == "ssh key":
        return ssh(host, name, *by_key(host.listed_key), "-o", "BatchMode=yes")
    if door == "ssh password and key":
        return ssh(host, name, *by_key(host.other_key), *PASSWORD_TOO)
    kept = () if token is None else ("-o", f"SetEnv={SSH_TOKEN_ENV}={token}")
    return ssh(host, name, "-o", "PubkeyAuthentication=no", *PASSWORD_TOO, *kept)


@pytest.mark.parametrize(
    ("door", "name"),
    [
        ("terminal", "Ann"),
        ("ssh key", "Kit"),
        ("ssh password and key", "Pat"),
        ("ssh password, no key", "Tok"),
    ],
)
def test_a_player_who_quits_and_runs_the_same_command_is_back_in_their_seat(
    host: Host, tmp_path: Path, door: str, name: str
) -> None:
    create_table(host.port, f"Back {name}", seats=3, bots=2)
    home = tmp_path / "home"  # the player's own: no config or keys of the runner's
    home.mkdir()
    env = terminal_env(
        home,
        PATH=os.environ.get("PATH", "/usr/bin:/bin"),
        SSH_ASKPASS=str(host.folder / "askpass"),
        SSH_ASKPASS_REQUIRE="force",  # the password from askpass, though a terminal is there
    )
    tmux = Tmux(env)

    def screen_of(session: str) -> str:
        return tmux.screen(session)

    def seated(session: str) -> tuple[str, str] | None:
        """The whole dealt table, this player's row among its rows: (seat, screen)."""
        text = screen_of(session)
        rows = {n: s for s, n in PLAYER_ROW.findall(text)}
        whole = len(rows) >= 3 and f"{name} (you)" in text and HAND.search(text)
        return (rows[name], text) if whole and name in rows else None

    def expect(session: str, what: str, check):
        try:
            return until_blocking(what, check)
        except AssertionError:
            log = (host.folder / "serve.log").read_text()[-3000:]
            raise AssertionError(
                f"{door}: timed out waiting for {what}; screen:\n{screen_of(session)}\n"
                f"serve.log (end):\n{log}"
            ) from None

    try:
        tmux.start("first", shlex.join(door_command(host, door, name, None)))
        listed = ("Enter joins", f"Back {name}")
        expect("first", "the lobby", lambda: all(n in screen_of("first") for n in listed))
        token = None
        if door == "ssh password, no key":  # on the client's own first screen
            given = GIVEN.findall(screen_of("first"))
            assert len(set(given)) == 1, screen_of("first")
            token = given[0]
        tmux.keys("first", "Enter")
        seat, _ = expect("first", "the dealt table", lambda: seated("first"))
        tmux.keys("first", "C-q")  # quit: the seat is kept for the player
        expect("first", "the client to end", lambda: tmux.pane("first", "pane_dead") == "1")
        if token is not None:
            assert set(GIVEN.findall(screen_of("first"))) == {token}  # the door's line too
            # back without it: someone new to the door, told at the refusal what to do
            tmux.start("without", shlex.join(door_command(host, door, name, None)))
            expect("without", "the lobby", lambda: all(n in screen_of("without") for n in listed))
            assert token not in screen_of("without")
            tmux.keys("without", "Enter")
            told = ("If it was yours: your seat", f"SetEnv={SSH_TOKEN_ENV}=TOKEN,")

            def refused() -> bool:
                """The lobby's status line says it (whole once the refusal's toast is gone)."""
                words = " ".join(screen_of("without").split())
                return all(part in words for part in told)

            expect("without", "the refusal", refused)
            tmux.keys("without", "C-q")

        began = time.monotonic()
        tmux.start("again", shlex.join(door_command(host, door, name, token)))
        back, text = expect("again", "the seat again, no key pressed", lambda: seated("again"))
        took = time.monotonic() - began
        assert back == seat, text
        assert "Traceback" not in text
        print(f"\n{door}: back in seat {back} {took:.1f} s after running the command again")
    finally:
        tmux.kill()
