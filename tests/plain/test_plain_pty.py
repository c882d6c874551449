"""`gother play --plain` on a pseudo-terminal with TERM=dumb: a few decisions, the looking
commands and help, then quit. Not one escape sequence (nor any other control character
but the line ends) in everything the terminal received, and a clean exit."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time

from tests.e2e.e2ekit import GOTHER
from tests.plain.plainkit import plain_env

TIMEOUT = 60.0
CONTROL = re.compile(rb"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]")  # all but \n and \r


class Pty:
    def __init__(self, *args: str, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(
            [str(GOTHER), *args], stdin=slave, stdout=slave, stderr=slave, env=env,
            start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.seen = b""
        self.read_to = 0

    def until(self, pattern: bytes) -> re.Match[bytes]:
        """The next match of `pattern` in the output after the last one found."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + TIMEOUT
        while not (found := regex.search(self.seen, self.read_to)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.seen[-2000:].decode(errors='replace')}"
            if select.select([self.master], [], [], left)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: the other side is gone
                    chunk = b""
                assert chunk, f"the process ended before {pattern!r}"
                self.seen += chunk
        self.read_to = found.end()
        return found

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self) -> int:
        """The rest of the output, then the exit status."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and select.select([self.master], [], [], 1)[0]:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.seen += chunk
        return self.proc.wait(TIMEOUT)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(TIMEOUT)
        os.close(self.master)


def test_a_dumb_terminal_gets_no_escape_sequence_at_all(tmp_path):
    env = plain_env(tmp_path, TERM="dumb", LANG="C.UTF-8")
    pty = Pty("play", "--plain", "--players", "3", "--name", "Raven", env=env)
    try:
        pty.until(rb"^You sit at Raven's table")
        for _ in range(3):
            choose = pty.until(rb"^Choose 1(?:-(\d+))?")
            pty.type("hand")
            pty.until(rb"^Your hand")
            pty.type("1")
        for command in ("piles", "scores", "who", "discard", "log 5", "help", "frobnicate"):
            pty.type(command)
        pty.until(rb"^Unknown command 'frobnicate'")
        pty.type("quit")
        pty.until(rb"^Goodbye\.")
        assert pty.finish() == 0
    finally:
        pty.close()
    assert choose is not None
    assert b"\x1b" not in pty.seen
    assert not CONTROL.search(pty.seen), CONTROL.findall(pty.seen)[:5]
    assert b"Traceback" not in pty.seen
    text = pty.seen.decode("utf-8")
    assert "The Fate piles, top card first:" in text and "Commands, one a line" in text
    assert "\u2500" not in text and "\u2502" not in text  # no box drawing
