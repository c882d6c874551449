"""Slow clients at the web door: a connection that sends its request a byte at a time (a
slowloris), or none at all, holds a descriptor and a little memory for as long as it is
let; thousands of them once filled every descriptor of the process.

So, like nginx's client_header_timeout and limit_conn: a connection with no request under
way (its headers half-sent, or idle between two requests) is closed after
`header_timeout` seconds (aiohttp's keep-alive timer, which also runs from the
connection's start); and an address may hold at most `per_address` such connections, one
more is closed as soon as it is accepted. A request's body has its own timeout (the
door's `login`). The one proxy the door trusts is not counted by address: every browser
behind it shares its address, and the proxy bounds its own clients.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from server.edge.caps import Caps
from server.edge.limits import address_key

log = logging.getLogger("gother.web")
HALF_OPEN = 1024  # such connections in all: the door keeps descriptors for its sessions
REFUSED_LOG_EVERY = 60.0  # seconds between two lines about connections closed unheard


class HalfOpen:
    """The connections with no request under way, counted overall and by address."""

    def __init__(self, per_address: int, trusted: Callable[[str], bool]) -> None:
        """`trusted(peer)`: whether `peer` is the proxy the door trusts."""
        self.caps = Caps(HALF_OPEN, address=per_address)
        self.trusted = trusted
        self.address: dict[web.RequestHandler, str | None] = {}  # None: not counted by address
        self.refused = 0  # closed at once since the last line in the log
        self._logged = -REFUSED_LOG_EVERY

    def opened(self, handler: web.RequestHandler, peer: str) -> bool:
        """A new connection from `peer`: whether it may wait for its first request."""
        self.address[handler] = None if self.trusted(peer) else address_key(peer)
        if self.caps.admit(handler, address=self.address[handler]) is None:
            return True
        self.refused += 1
        now = time.monotonic()
        if now - self._logged >= REFUSED_LOG_EVERY:
            log.warning(
                "web: too many half-open connections (from %s, or %d in all): closing new "
                "ones at once (%d so far)",
                peer,
                HALF_OPEN,
                self.refused,
            )
            self._logged, self.refused = now, 0
        return False

    def busy(self, handler: web.RequestHandler) -> None:
        """Its request's headers are in: it no longer counts."""
        self.caps.release(handler)

    def idle(self, handler: web.RequestHandler) -> bool:
        """Its request is answered: it counts again; whether there was room for it."""
        if handler not in self.address:
            return True  # already closed
        return self.caps.admit(handler, address=self.address[handler]) is None

    def closed(self, handler: web.RequestHandler) -> None:
        self.caps.release(handler)
        self.address.pop(handler, None)

    def __len__(self) -> int:
        return len(self.caps)


class CountedHandler(web.RequestHandler):
    """aiohttp's handler of one connection, counted while it has no request under way."""

    def __init__(self, manager: web.Server, half_open: HalfOpen, header_timeout: float) -> None:
        # the idle timer is aiohttp's keep-alive one: it closes a connection still waiting
        # for a whole request that long after it opened or after its last answer
        super().__init__(
            manager,
            loop=asyncio.get_running_loop(),
            keepalive_timeout=header_timeout,
            access_log=None,  # type: ignore[arg-type]  # aiohttp takes None: no access log
        )
        self.half_open = half_open

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        if not self.half_open.opened(self, str(peer[0]) if peer else "?"):
            self.force_close()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.half_open.closed(self)
        super().connection_lost(exc)


def counting(half_open: HalfOpen) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware that takes a connection off the count while its request is served."""

    @web.middleware
    async def count(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        protocol = request.protocol
        assert isinstance(protocol, web.RequestHandler)
        half_open.busy(protocol)
        try:
            return await handler(request)
        finally:
            if not half_open.idle(protocol):
                protocol.close()  # once this answer is sent: its address has enough waiting

    return count
