"""End to end over a real OpenSSH: a private `sshd` on 127.0.0.1 (its own config, host key
and authorized_keys in a temp dir), a real `gother serve`, and `ssh -tt … gother join` in an
80x24 tmux session on a private socket. The screen tmux shows must be the dealt table.

Everything listens on 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
MISSING = [name for name, path in (("sshd", SSHD), *((n, shutil.which(n)) for n in (
    "ssh", "ssh-keygen", "tmux"))) if path is None]  # fmt: skip
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"needs OpenSSH server/client and tmux; missing: {', '.join(MISSING)}"
)

BIN = Path(sys.executable).parent  # the venv's bin dir, wherever this clone lives
ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60.0
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)")
PLAYER_ROW = re.compile(r"^\W{0,3}([1-9]) (\w+).*?\s\d+/\d+\s", re.MULTILINE)  # seat, name, hand
HAND = re.compile(r"Your hand.*\n.*[+-]\d+ +[+-]\d+ +[+-]\d+")  # heading, then a card row


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, check, timeout: float = STARTUP):
    """Poll `check()` until it returns something truthy; fail with `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A private sshd on 127.0.0.1:PORT; yields (port, client private key)."""
    d = tmp_path / "sshd"
    d.mkdir()
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation dir
    for key in ("host_key", "client_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)], check=True
        )
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    port = free_port()
    config = d / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\nPidFile {d / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin yes\n"
        "PermitUserEnvironment no\nX11Forwarding no\nAllowTcpForwarding no\n"
    )
    log = (d / "sshd.log").open("w")
    proc = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config), "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for("sshd to listen", lambda: proc.poll() is not None or _accepts(port), 20)
        assert proc.poll() is None, (d / "sshd.log").read_text()
        yield port, d / "client_key"
    finally:
        stop(proc)
        log.close()


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def gother_server(tmp_path: Path) -> Iterator[int]:
    """`gother serve` on 127.0.0.1, port 0; yields the port it logged."""
    err = tmp_path / "serve.log"
    with err.open("w") as sink:
        proc = subprocess.Popen(
            [
                *(str(BIN / "gother"), "serve", "--host", "127.0.0.1", "--port", "0"),
                *("--bot-delay", "0.05", "--db", str(tmp_path / "games.db")),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    try:
        match = wait_for(
            "gother serve to listen",
            lambda: proc.poll() is not None or LISTENING.search(err.read_text()),
        )
        assert proc.poll() is None, err.read_text()
        yield int(match.group(1))
    finally:
        stop(proc)


def create_table(port: int, seats: int, bots: int) -> str:
    with connect(f"ws://127.0.0.1:{port}", max_size=MAX_FRAME, compression=None) as ws:

        def ask(**request) -> dict:
            ws.send(encode({**request, "rid": 1}))
            while True:
                reply = decode(ws.recv(timeout=10))
                if reply.get("rid") == 1:
                    return reply

        assert ask(t="hello", v=PROTOCOL_VERSION, name="Host")["t"] == "welcome"
        created = ask(t="create", name="Over SSH", seats=seats, bots=bots)
        assert created["t"] == "created", created
        return str(created["table"])


class Tmux:
    """An 80x24 tmux session on a private server socket."""

    def __init__(self, label: str) -> None:
        self.base = ["tmux", "-L", label, "-f", "/dev/null"]

    def start(self, command: str) -> None:
        subprocess.run(
            [*self.base, "new-session", "-d", "-s", "main", "-x", "80", "-y", "24", command],
            check=True,
        )
        subprocess.run([*self.base, "set-option", "-g", "remain-on-exit", "on"], check=False)

    def screen(self) -> str:
        done = subprocess.run(
            [*self.base, "capture-pane", "-p", "-t", "main"], capture_output=True, text=True
        )
        return done.stdout

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, check=False)


def test_join_over_a_real_ssh_session_shows_the_dealt_table(sshd, gother_server, tmp_path):
    ssh_port, key = sshd
    table = create_table(gother_server, seats=3, bots=2)
    home = tmp_path / "home"  # fresh HOME: no saved seat, no config of the runner's
    home.mkdir()
    remote = (
        f"cd {shlex.quote(str(ROOT))}"
        f" && TERM=xterm-256color HOME={shlex.quote(str(home))} LANG=C.UTF-8"
        f" {shlex.quote(str(BIN / 'gother'))} join ws://127.0.0.1:{gother_server}"
        f" --name Ssh --table {shlex.quote(table)}"
    )
    ssh = [
        "ssh", "-tt", "-i", str(key), "-F", "/dev/null",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
        "-p", str(ssh_port), "root@127.0.0.1", remote,
    ]  # fmt: skip
    tmux = Tmux(f"gother-e2e-{os.getpid()}-{ssh_port}")
    try:
        tmux.start(shlex.join(ssh))

        def table_shown() -> str | None:
            text = tmux.screen()
            return text if len(PLAYER_ROW.findall(text)) >= 3 and HAND.search(text) else None

        try:
            screen = wait_for("the table over ssh", table_shown)
        except AssertionError:
            raise AssertionError("screen was:\n" + tmux.screen()) from None
        rows = PLAYER_ROW.findall(screen)
        assert sorted(seat for seat, _ in rows)[:3] == ["1", "2", "3"]
        assert ("1", "Ssh") in rows, rows  # this seat, by the name given on the ssh command
        assert "(you)" in screen
        lines = screen.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    finally:
        tmux.kill()
