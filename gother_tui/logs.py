"""Where each process logs. The client draws on the terminal, so its log goes to a file
(`client.log` in the user's log folder), never to stderr; the private server of `gother
play` logs beside it (`play.log`); servers and bots on their own log to stderr."""

from __future__ import annotations

import logging
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
