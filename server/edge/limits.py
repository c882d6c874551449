"""The host's limits that are not a single request's: file descriptors, the accept-error
log, and what counts as one address (loopback too: a local process is one address).

Every cap and quota by address (connections, connections before hello, tables, seats, SSH
sessions and logins, password waits) counts by `address_key`: an IPv6 address by its /64,
the block one host usually holds whole (RFC 7421), or one host would count as 2^64.

When the process runs out of file descriptors, asyncio logs every failed `accept()` with a
traceback (14 MB of log in 25 s under a flood of half-open handshakes); one line a minute
says the same. The soft descriptor limit is raised to the hard one at start, and the
connection limit is kept a reserve below it so the database, the log and the SSH door can
always open a file.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("gother.server")
FD_RESERVE = 64  # descriptors never given to connections
ACCEPT_LOG_EVERY = 60.0  # seconds between two lines about failing accepts


def address_key(address: str) -> str:
    """What one client is taken to be: an IPv4 address, or an IPv6 address's /64 (an IPv4
    address mapped into IPv6 is that IPv4 address)."""
    ip = _ip(address)
    if ip is None:
        return address  # not an IP (a Unix socket…): as it is
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def descriptor_budget(wanted: int, pending: int) -> int:
    """Raise the soft RLIMIT_NOFILE to the hard one; the connections (with `pending`
    handshakes) that fit under it with FD_RESERVE to spare, at most `wanted`."""
    soft = raise_descriptor_limit()
    room = max(1, soft - FD_RESERVE - pending)
    if room < wanted:
        log.warning("only %d file descriptors: at most %d connections (not %d)", soft, room, wanted)
    return min(wanted, room)


def raise_descriptor_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard one (as far as it goes); the soft one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


class AcceptLog:
    """An event-loop exception handler that lets one accept failure a minute through."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last = -ACCEPT_LOG_EVERY
        self.quiet = 0  # failures not logged since the last line

    # `context` is asyncio's: a map of whatever the loop reports (message, exception, …).
    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if not str(context.get("message", "")).startswith("socket.accept() out of"):
            loop.default_exception_handler(context)
            return
        now = self.clock()
        if now - self.last < ACCEPT_LOG_EVERY:
            self.quiet += 1
            return
        exc = context.get("exception")
        log.error(
            "cannot accept connections: %s (%d more such failures since the last line)",
            exc,
            self.quiet,
        )
        self.last, self.quiet = now, 0
