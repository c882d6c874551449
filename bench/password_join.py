"""`gother join` to the lobby on a server with a password, typing it: figures, never asserted.

    nice -n 10 .venv/bin/python bench/password_join.py [--runs 5]

Against a real `gother serve` process (its password from a file), each run spawns
`gother join URL` in a pseudo-terminal (80x24) and measures, from the terminal's output
(ANSI codes stripped): spawning until the password dialog shows; the password typed (at
once, as if by a fast typist) until the lobby's footer shows; and the two together, which
is the whole wait but the typing. Beside them, in the same run, the baseline: spawning
until the lobby shows on a server without a password.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

GOTHER = str(Path(sys.executable).with_name("gother"))
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
SECRET = "crypt-7"
ASKED = b"This server needs a password."
LOBBY = b"New table"  # the lobby's footer
TIMEOUT = 30.0


def start_server(home: Path, password: bool) -> tuple[subprocess.Popen[str], str]:
    command = [GOTHER, "serve", "--port", "0"]
    if password:
        secret = home / "password"
        secret.write_text(SECRET + "\n")
        secret.chmod(0o600)
        command += ["--password-file", str(secret)]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        match = re.search(r"listening on (ws://127\.0\.0\.1:\d+)", line)
        if match:
            return proc, match.group(1)
    raise RuntimeError("gother serve did not start")


class Terminal:
    """One `gother join` in a pseudo-terminal, its output kept (ANSI stripped)."""

    def __init__(self, command: list[str], home: Path) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
        }
        env.pop("GOTHER_PASSWORD", None)
        self.proc = subprocess.Popen(
            command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.seen = b""

    def until(self, mark: bytes) -> float:
        """Wait until `mark` shows (after what was seen so far); the time it showed."""
        self.seen = b""
        deadline = time.perf_counter() + TIMEOUT
        while time.perf_counter() < deadline:
            if select.select([self.master], [], [], 0.05)[0]:
                self.seen += os.read(self.master, 65536)
                if mark in ANSI.sub(b"", self.seen):
                    return time.perf_counter()
        raise RuntimeError(f"{mark!r} did not show in {TIMEOUT:g} s")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def one_run(url: str, home: Path) -> tuple[float, float]:
    """(seconds from spawning to the dialog, from the password typed to the lobby)."""
    start = time.perf_counter()
    terminal = Terminal([GOTHER, "join", url, "--name", "Bench"], home)
    try:
        asked = terminal.until(ASKED)
        terminal.type(SECRET + "\r")
        typed = time.perf_counter()
        lobby = terminal.until(LOBBY)
    finally:
        terminal.close()
    return asked - start, lobby - typed


def open_run(url: str, home: Path) -> float:
    """Seconds from spawning to the lobby, on a server without a password."""
    start = time.perf_counter()
    terminal = Terminal([GOTHER, "join", url, "--name", "Bench"], home)
    try:
        return terminal.until(LOBBY) - start
    finally:
        terminal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        guarded, url = start_server(home, password=True)
        open_server, open_url = start_server(home, password=False)
        try:
            runs, baseline = [], []
            for i in range(args.runs):  # interleaved: a busy moment costs both alike
                runs.append(one_run(url, home / f"run{i}"))
                baseline.append(open_run(open_url, home / f"open{i}"))
        finally:
            for server in (guarded, open_server):
                server.terminate()
                server.wait(10)
    for name, values in (
        ("spawn to the password dialog", [a for a, _ in runs]),
        ("password typed to the lobby", [b for _, b in runs]),
        ("both (all but the typing)", [a + b for a, b in runs]),
        ("baseline: no password, spawn to the lobby", baseline),
    ):
        print(f"{name:42} median {statistics.median(values):.3f} s  (runs: "
              + ", ".join(f"{v:.3f}" for v in values) + ")")  # fmt: skip


if __name__ == "__main__":
    main()
