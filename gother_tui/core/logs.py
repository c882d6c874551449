"""Where each process logs. The client draws on the terminal, so its log goes to a file
(`client.log` in the user's log folder), never to stderr; the private server of `gother
play` logs beside it (`play.log`); servers and bots on their own log to stderr.

A client that a server's door runs for a remote player (the SSH door sets
GOTHER_ERRORS_FD) sends whatever it would print on stderr, tracebacks above all, to the
host through that pipe; the player reads one line instead.
"""

from __future__ import annotations

import atexit
import io
import logging
import os
import sys
from pathlib import Path

from platformdirs import user_log_dir

FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
SERVER_LOGGERS = ("gother.server", "gother.play", "websockets")


def file_handler(name: str, folder: Path | None = None) -> logging.Handler:
    """A handler writing to `name` in the user's log folder; a null one if it cannot (a
    read-only home must not stop the game)."""
    folder = folder or Path(user_log_dir("gother"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(folder / name, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    return handler


def log_client_to_file() -> None:
    logging.basicConfig(level=logging.INFO, handlers=[file_handler("client.log")], force=True)


def log_server_to_file(folder: Path | None = None) -> None:
    """`gother play`: the server's log (and websockets') to `play.log`, apart from the
    client's, replacing the handler an earlier run in this process put there."""
    handler = file_handler("play.log", folder)
    handler.set_name("gother-play")
    for name in SERVER_LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == "gother-play"]:
            logger.removeHandler(old)
            old.close()
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def log_to_stderr() -> None:
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )


ERRORS_FD = "GOTHER_ERRORS_FD"  # server/doors/ssh_client.py's pipe to the host's log
TOLD_PLAYER = "gother: the client stopped on an internal error; the host's log has the details."


class _ToHost(io.TextIOWrapper):
    """stderr for a remote player's client: to the host, remembering that it was used."""

    used = False

    def write(self, text: str) -> int:
        self.used = self.used or bool(text.strip())
        return super().write(text)


def errors_to_host() -> None:
    """With GOTHER_ERRORS_FD set: stderr (Python's tracebacks, Textual's error report)
    goes down that pipe, and at exit the player is told in one line if anything did.
    Textual still draws on the terminal: it writes to sys.__stderr__, left as it is."""
    fd = os.environ.pop(ERRORS_FD, None)
    if fd is None:
        return
    try:
        pipe = _ToHost(os.fdopen(int(fd), "wb"), encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return  # no such pipe: keep stderr
    pipe.reconfigure(line_buffering=True)
    sys.stderr = pipe

    def tell_player() -> None:
        pipe.flush()
        if pipe.used and sys.__stderr__ is not None:
            sys.__stderr__.write(f"\r\n{TOLD_PLAYER}\r\n")
            sys.__stderr__.flush()

    atexit.register(tell_player)
