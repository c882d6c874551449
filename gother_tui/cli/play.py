"""`gother play`: a private server in a background thread, a table of bots, and the client
seated at it.

The server runs on its own event loop in its own thread, on 127.0.0.1 with a free port and
an in-memory database; its log goes to `play.log` in the user's log folder, never to the
terminal the client draws on. Leaving the client closes the server and joins the thread.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from pathlib import Path

from gother_tui.cli.host import variants_of
from gother_tui.cli.server_side import PrivateServer
from gother_tui.core.identity import ClientKey
from gother_tui.core.seat_store import SeatFile, SeatStore
from protocol import requests as rq
from protocol.constants import SEATS
from protocol.view import Variants

log = logging.getLogger("gother.play")

BOT_SPEEDS = {"slow": 0.8, "normal": 0.4, "fast": 0.1}  # seconds a bot waits to move
LISTEN = "listen"  # --plain's default: normal, and never before the last line was heard
START_TIMEOUT = 30.0  # seconds for the server to listen and the table to exist
STOP_TIMEOUT = 10.0


class LocalServerError(RuntimeError):
    """The private server could not start."""


class LocalServer:
    """A private server in a thread of its own.

    `start()` returns once it listens; `create_table()` makes a table in the server's loop;
    `close()` closes every connection, stops the loop and joins the thread (idempotent).
    """

    def __init__(self, bot_delay: float = 0.4, heard_by: Callable[[], float] | None = None) -> None:
        self.port: int | None = None
        self._server = PrivateServer(bot_delay, heard_by)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        assert self.port is not None, "not started"
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._main, name="gother-play-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            self.close()
            raise LocalServerError("the local server did not start in time")
        if self._error is not None:
            self.close()
            raise LocalServerError(f"the local server could not start: {self._error}")

    def create_table(
        self,
        name: str,
        seats: int,
        bots: int,
        bot_kind: str,
        variants: Variants | None = None,
        trait: str | None = None,
    ) -> str:
        """A table of `seats` seats, `bots` of them taken by bots of `bot_kind` and `trait`
        (None: the server's default for the seats), with the house rules `variants` (none:
        the published rules); its id."""
        request = rq.Create(
            name=name, seats=seats, bots=bots, bot=bot_kind, trait=trait, variants=variants
        )

        async def create() -> str:
            return self._server.create_table(request)

        assert self._loop is not None, "not started"
        future: Future[str] = asyncio.run_coroutine_threadsafe(create(), self._loop)
        return future.result(START_TIMEOUT)

    def close(self) -> None:
        loop, stop, thread = self._loop, self._stop, self._thread
        if loop is not None and stop is not None and not loop.is_closed():
            with suppress(RuntimeError):  # the loop closed meanwhile: the thread is ending
                loop.call_soon_threadsafe(stop.set)
        if thread is not None:
            thread.join(STOP_TIMEOUT)
            if thread.is_alive():
                log.warning("the local server thread did not stop in %s s", STOP_TIMEOUT)
        self._thread = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the server's thread ---------------------------------------------------------------

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # never let a traceback reach the client's terminal
            log.exception("the local server failed")
            self._error = exc
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        port = await self._server.start()
        self._loop, self.port = asyncio.get_running_loop(), port
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self._server.close()
            log.info("local server on port %s closed", self.port)


class MemorySeatStore(SeatStore):
    """Seats of a private, in-memory server are worth nothing after it closes: keep the
    tokens in memory instead of the user's seat file."""

    def __init__(self) -> None:
        super().__init__(Path("/nonexistent/seats.json"))
        self._data: SeatFile = {}

    def _load(self) -> SeatFile:
        return self._data

    def _write(self, data: SeatFile) -> None:
        self._data = data

    def key(self, name: str | None = None) -> ClientKey:
        return ClientKey.fresh()  # nobody else plays on a private server: no one to tell apart


def run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.cli.client import check_theme
    from gother_tui.core import logs

    if not args.plain:
        check_theme(args, parser)
    if args.players not in variants_of(args).seat_range:
        parser.error(
            f"argument --players: the game is for {SEATS.start}-{SEATS.stop - 1} players, got "
            f"{args.players} ({args.players} only with --two-or-six)"
        )
    logs.log_client_to_file()
    try:
        return play(args)
    except LocalServerError as exc:
        print(f"gother play: {exc}", file=sys.stderr)
        return 1


def play(args: argparse.Namespace) -> int:
    """The private server, a table of bots, and the client seated at it; the client's
    exit status."""
    from gother_tui.cli.client import client_options, plain_options
    from gother_tui.core.logs import log_server_to_file

    log_server_to_file()
    speed = args.bot_speed or (LISTEN if args.plain else "normal")
    listener = None
    if speed == LISTEN:
        from gother_tui.plain.listening import Listener

        listener = Listener()
    delay = BOT_SPEEDS.get(speed, BOT_SPEEDS["normal"])
    with LocalServer(delay, None if listener is None else listener.heard_by) as local:
        table = local.create_table(
            f"{args.name}'s table",
            args.players,
            args.players - 1,
            args.bots,
            variants_of(args),
            args.trait,
        )
        log.info("playing at table %s on %s", table, local.url)
        seat = {"url": local.url, "name": args.name, "table": table}
        if args.plain:
            from gother_tui import plain

            options = plain_options(args, **seat)
            return plain.run(options, seat_store=MemorySeatStore(), listener=listener)
        from gother_tui.cli.client import play_between_replays
        from gother_tui.core.transport import WebSocketTransport

        options = client_options(args, **seat, private=True, bell=args.bell)  # Ctrl+Q asks first
        # as `gother join`: a replay asked at the game-over panel runs, then the seat again
        return play_between_replays(options, WebSocketTransport, MemorySeatStore())
