"""What the end-to-end tests share: polling with a deadline, 80x24 sessions on a private tmux
server, a real `gother serve` process on 127.0.0.1, and a table created over the wire.

Everything listens on 127.0.0.1 only; every process started here is stopped here."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from tests.kits.poll import until_blocking

GOTHER = Path(sys.executable).with_name("gother")  # the venv's, wherever this clone lives
LISTENING = re.compile(r"listening on wss?://127\.0\.0\.1:(\d+)")
PLAYER_ROW = re.compile(r"^\W{0,3}([1-9]) (\w+).*?\s\d+/\d+\s", re.MULTILINE)  # seat, name, hand
HAND = re.compile(r"Your hand.*\n.*[+-]\d+ +[+-]\d+ +[+-]\d+")  # heading, then a card row


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port: int) -> bool:
    """Whether something listens on 127.0.0.1:`port`."""
    try:
        socket.create_connection(("127.0.0.1", port), 1).close()
        return True
    except OSError:
        return False


def stop(proc: subprocess.Popen) -> None:
    """Terminate `proc` (kill it if it will not go) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def terminal_env(home: Path, **extra: str) -> dict[str, str]:
    """A terminal's environment with HOME and the XDG folders under `home`, plus `extra`."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        **extra,
    }


class Tmux:
    """80x24 sessions on a private tmux server (its own socket, no user config), run with
    `env` (None: this process's environment). With `remain_on_exit` (set before any session
    starts) a pane stays after its process ends, so its last screen and status are readable."""

    def __init__(self, env: dict[str, str] | None = None, *, remain_on_exit: bool = True) -> None:
        self.socket = f"gother-e2e-{uuid.uuid4().hex[:12]}"
        self.env = env
        self.remain_on_exit = remain_on_exit

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
            env=self.env,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def __call__(self, *args: str) -> str:
        """Run one tmux command on this server; it must succeed. Returns its output."""
        done = self._tmux(*args)
        assert done.returncode == 0, f"tmux {args[0]}: {done.stderr}"
        return done.stdout

    def start(self, name: str, command: str) -> None:
        """A detached 80x24 session `name` running the shell command `command`."""
        remain = "on" if self.remain_on_exit else "off"
        self(
            *("start-server", ";", "set-option", "-g", "remain-on-exit", remain, ";"),
            *("set-option", "-g", "status", "off", ";"),
            *("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command),
        )

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self("send-keys", "-t", name, *keys)

    def pane(self, name: str, field: str) -> str:
        """One of the pane's format fields, e.g. `pane_dead`."""
        return self("display-message", "-p", "-t", name, f"#{{{field}}}").strip()

    def kill(self) -> None:
        self._tmux("kill-server")


@contextmanager
def gother_running(
    log: Path, *argv: str, ready: re.Pattern[str], prefix: Sequence[str] = ()
) -> Iterator[re.Match[str]]:
    """`gother ARGV…` run after `prefix` (e.g. `ip netns exec NAME`), its log (stderr)
    written to `log`; yields what `ready` found in the log once it is there, and stops the
    process on the way out."""
    with log.open("w") as sink:  # a file, never an unread pipe: gother cannot block on it
        proc = subprocess.Popen(
            [*prefix, str(GOTHER), *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    try:
        match = until_blocking(
            f"gother {argv[0]} to be ready",
            lambda: proc.poll() is not None or ready.search(log.read_text()),
        )
        assert proc.poll() is None, f"gother {argv[0]} did not start:\n" + log.read_text()
        yield match
    finally:
        stop(proc)


@contextmanager
def gother_serve(
    folder: Path, *args: str, host: str = "127.0.0.1", prefix: Sequence[str] = ()
) -> Iterator[int]:
    """`gother serve` on `host` (127.0.0.1 unless a test made its own network), port 0, its
    database `folder/games.db`, its log written to `folder/serve.log`, with `args` added,
    run after `prefix`; yields the port it logged."""
    argv = ("serve", "--host", host, "--port", "0", "--db", str(folder / "games.db"), *args)
    listening = re.compile(rf"listening on wss?://{re.escape(host)}:(\d+)")
    with gother_running(folder / "serve.log", *argv, ready=listening, prefix=prefix) as match:
        yield int(match.group(1))


def create_table(port: int, name: str, seats: int, bots: int = 0, **create: Any) -> str:
    """Say hello as Host to the server on 127.0.0.1:`port` and create a table; returns its id."""
    with connect(f"ws://127.0.0.1:{port}", max_size=MAX_FRAME, compression=None) as ws:

        def ask(**request: Any) -> dict[str, Any]:
            ws.send(encode({**request, "rid": 1}))
            while True:
                reply = decode(ws.recv(timeout=10))
                if reply.get("rid") == 1:
                    return reply

        assert ask(t="hello", v=PROTOCOL_VERSION, name="Host")["t"] == "welcome"
        created = ask(t="create", name=name, seats=seats, bots=bots, **create)
        assert created["t"] == "created", created
        return str(created["table"])
