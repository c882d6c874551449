"""The connection to the server, kept up: connect, hand every frame on as a typed message,
send requests in order, and after a loss try again with backoff.

Frames are parsed here, once, on arrival (`protocol.server_messages.parse`, which checks a
`state`'s whole view): the client's core only ever sees typed messages. A frame that is no
valid message becomes `Unreadable`; a type this client does not know is logged and
dropped, so a newer server can add messages. What the connection posts are plain values
(no Textual here): the full-screen client hands them to the core on its own message loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from gother_tui.core.transport import (
    CLOSE_REPLACED,
    Frame,
    Transport,
    TransportError,
    TransportFactory,
)
from protocol import ProtocolError, Request
from protocol import server_messages as sm

log = logging.getLogger("gother.client")

GOODBYE_TIMEOUT = 1.0  # seconds a quitting client waits for the server to close with it


@dataclass(frozen=True, slots=True)
class Connected:
    """A connection is open (the first, or again after a loss)."""


@dataclass(frozen=True, slots=True)
class ConnectionLost:
    reason: str
    retry_in: float | None  # None: the client will not try again


@dataclass(frozen=True, slots=True)
class Received:
    """One server frame, as the protocol's typed message."""

    message: sm.Message


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A frame that is no valid message (not msgpack, a field missing or of the wrong
    type): logged and shown, nothing it held is used."""

    problem: str


Event = Connected | ConnectionLost | Received | Unreadable


def incoming(frame: Frame | ProtocolError) -> Received | Unreadable | None:
    """A decoded frame as the event the client hears, or None for an unknown type."""
    if isinstance(frame, ProtocolError):
        return Unreadable(frame.message)
    try:
        message = sm.parse(frame)
    except ProtocolError as exc:
        log.warning("malformed %r message from the server: %s", frame["t"], exc.message)
        return Unreadable(exc.message)
    if message is None:
        log.info("ignoring a server message of type %r", frame["t"])
    return None if message is None else Received(message)


class Connection:
    """`run()` (the app's network worker) keeps a connection to `url`, posting `Connected`,
    `ConnectionLost` and every message to `post`; `send` queues a request on the open
    connection; `hold` stops reconnecting until `resume` (while the player types the
    server's password: a connection that says no hello is closed by the server); `close`
    says goodbye and stops trying."""

    def __init__(
        self,
        url: str,
        post: Callable[[Event], object],
        transport: TransportFactory,
        first_retry: float,
        max_retry: float,
    ) -> None:
        self.url = url
        self._post = post
        self._transport_factory = transport
        self._first_retry = first_retry
        self._max_retry = max_retry
        self._outbox: asyncio.Queue[Request] | None = None
        self._transport: Transport | None = None
        self._closing = False
        self._wanted = asyncio.Event()  # cleared: held, no new connection until resumed
        self._wanted.set()
        self._moving = False  # the connection ending is for one to another URL (move_to)
        self._leaving: asyncio.Task[None] | None = None  # that connection's close

    @property
    def open(self) -> bool:
        return self._outbox is not None

    def send(self, request: Request) -> bool:
        """Queue `request` for the open connection; False when there is none."""
        if self._outbox is None:
            return False
        self._outbox.put_nowait(request)
        return True

    def hold(self) -> None:
        """Once the open connection ends, make no other until `resume`, and say nothing of
        its loss: the server's close of a connection that waits is expected."""
        self._wanted.clear()

    def resume(self) -> None:
        self._wanted.set()

    def move_to(self, url: str) -> None:
        """Connect to `url` from now on: the open connection ends, and the next one, made
        at once, is there (the table asked for lives at that process of the host)."""
        self.url = url
        self._moving = True
        self._outbox = None  # nothing more is sent on the connection being left
        if self._transport is not None:
            self._leaving = asyncio.get_running_loop().create_task(self._transport.close())

    async def close(self) -> None:
        """Close the connection (waiting briefly for the server's answer) and stay closed."""
        self._closing = True
        self._wanted.set()  # a held loop wakes, to end
        if self._transport is not None:
            with suppress(TimeoutError):
                await asyncio.wait_for(self._transport.close(), GOODBYE_TIMEOUT)

    async def run(self) -> None:
        """Connect, pump frames into messages, and on a loss retry with backoff (0.5 s
        doubling to 5 s by default) until closed or replaced."""
        delay = self._first_retry
        while not self._closing:
            await self._wanted.wait()
            if self._closing:  # closed while held
                return
            transport = self._transport_factory(self.url)
            try:
                await transport.connect()
            except TransportError as exc:
                if exc.final:  # e.g. a certificate not to be trusted: retrying cannot help
                    self._post(ConnectionLost(str(exc), None))
                    return
                reason = str(exc)  # the transport's sentence names the address
            else:
                delay = self._first_retry
                await self._session(transport)
                if self._closing:
                    return
                if not self._wanted.is_set():
                    continue  # held: the next connection waits for `resume`
                if self._moving:  # to where the table lives: at once, and no loss to tell
                    self._moving = False
                    continue
                if transport.close_code == CLOSE_REPLACED:
                    lost = "your seat was taken over from another terminal"
                    self._post(ConnectionLost(lost, None))
                    return
                reason = "connection lost"
                if transport.close_reason:
                    reason += f" ({transport.close_reason})"
            self._post(ConnectionLost(reason, delay))
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._max_retry)

    async def _session(self, transport: Transport) -> None:
        outbox: asyncio.Queue[Request] = asyncio.Queue()

        async def pump() -> None:
            while True:
                await transport.send(await outbox.get())

        self._outbox, self._transport = outbox, transport
        self._post(Connected())
        writer = asyncio.create_task(pump())
        writer.add_done_callback(_settled)
        try:
            async for frame in transport.messages():
                message = incoming(frame)
                if message is not None:
                    self._post(message)
                if writer.done():  # the send side broke: this connection is finished
                    break
        finally:
            self._outbox = None
            writer.cancel()  # not awaited: a cancelled worker must not wait on its own writer
            try:
                await transport.close()  # lets go of the socket even when cancelled
            finally:
                self._transport = None


def _settled(task: asyncio.Task[None]) -> None:
    # The writer ends by cancellation or by a send that failed (the reader then sees the
    # connection close): either way, collected here rather than reported as never retrieved.
    if not task.cancelled():
        task.exception()
