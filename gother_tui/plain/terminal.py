"""The plain client's two ends of the terminal: lines out, lines in.

Out: one whole line at a time, flushed, nothing but printable text and the newline (told
for the ear, each minus sign where a listener hears it: `signs_heard`; `--verbose` keeps
its marks as they are, for scripts): every control character is dropped
(a name or a chat line can never move the cursor or colour the screen), and in ASCII mode
everything else is made ASCII ("Zoë" reads "Zoe"), so a dumb terminal, a braille display
or a script reading the output sees only plain text.

In: stdin read on a thread of its own (a pipe, a file or a terminal alike, without asking
the event loop to poll something it may not be able to), handed to the loop line by line
as an async iterator; it ends at end of input. A password is typed unseen: the terminal's
echo is turned off while it is asked.
"""

from __future__ import annotations

import asyncio
import os
import re
import termios
import threading
import unicodedata
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Protocol

from gother_tui.plain.listening import Listener

# A minus sign before a number, after a mark, a bracket or an arrow ("(-2 banked)", "$-3",
# "-> -2"): espeak-ng and screen readers drop it there ("two banked"); after a word and a
# space they say it. A range ("1-3") or a name's hyphen ("Crypt-7") keeps its dash.
LOST_MINUS = re.compile(r"((?:->|\u2192) |[^\w\s])[-\u2212](?=\d)")


def signs_heard(text: str) -> str:
    """`text` with every minus a listener would lose said as the word: "(minus 2 banked)",
    "$ minus 3", "-> minus 2"."""
    return LOST_MINUS.sub(lambda m: m[1] + ("minus " if m[1][-1] in "([{ " else " minus "), text)


def printable(text: str, ascii_only: bool) -> str:
    """`text` with every control and invisible character removed; ASCII only if asked."""
    kept = "".join(c for c in text if unicodedata.category(c)[0] != "C")
    if not ascii_only or kept.isascii():
        return kept
    # Letters with accents lose them; what has no ASCII form at all becomes "?".
    bare = "".join(c for c in unicodedata.normalize("NFKD", kept) if not unicodedata.combining(c))
    return bare.encode("ascii", "replace").decode("ascii")


class Sink(Protocol):
    """Where lines go: a text stream (stdout), or a test's transcript."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


class Output:
    """Writes whole lines to `stream`, each made printable, each flushed at once. Once the
    reader has gone (a closed pipe, a hung-up SSH channel) it is `closed` and writes no
    more."""

    def __init__(
        self,
        stream: Sink,
        ascii_only: bool,
        for_the_ear: bool = False,
        listener: Listener | None = None,
    ) -> None:
        self.stream = stream
        self.listener = listener  # told each line written (gother play --plain's pace)
        self.ascii_only = ascii_only
        self.for_the_ear = for_the_ear  # the default telling, not --verbose's
        self.closed = False

    def line(self, text: str = "") -> None:
        if self.closed:
            return
        try:
            heard = signs_heard(text) if self.for_the_ear else text
            self.stream.write(printable(heard, self.ascii_only) + "\n")
            if self.listener is not None:
                self.listener.said(heard)
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream itself was closed
            self.closed = True

    def lines(self, texts: list[str]) -> None:
        for text in texts:
            self.line(text)


def set_echo(fd: int, on: bool) -> None:
    """Show (or hide) what is typed on terminal `fd`; a pipe or a file has nothing to show."""
    if not os.isatty(fd):
        return
    attrs = termios.tcgetattr(fd)
    attrs[3] = attrs[3] | termios.ECHO if on else attrs[3] & ~termios.ECHO  # the local modes
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


async def read_lines(fd: int) -> AsyncIterator[str]:
    """Every line read from file descriptor `fd` (decoded as UTF-8, a bad byte replaced),
    until its end."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def hand_over(line: str | None) -> None:
        with suppress(RuntimeError):  # the loop closed first: the client has quit
            loop.call_soon_threadsafe(queue.put_nowait, line)

    def read() -> None:
        # os.read, not a file object: a daemon thread blocked in a buffered reader holds
        # its lock, and the interpreter aborts when it finds it taken at exit.
        pending = b""
        try:
            while chunk := os.read(fd, 4096):
                *whole, pending = (pending + chunk).split(b"\n")
                for raw in whole:
                    hand_over(raw.decode("utf-8", "replace").rstrip("\r"))
        except OSError:  # the descriptor was closed under us
            pass
        finally:
            if pending:
                hand_over(pending.decode("utf-8", "replace").rstrip("\r"))
            hand_over(None)

    # A daemon thread: a read blocked on a terminal must not keep the process alive.
    threading.Thread(target=read, name="gother-plain-stdin", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line
