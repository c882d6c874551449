"""`gother serve --web PORT`: the client in a browser, the twin of the SSH door.

Each browser tab that opens the page gets its own client process (server/doors/web/child.py)
on a terminal of the tab's size, connected to this server. A browser is known by its
cookie (server/doors/web/identity.py): its own state folder, so a reload or a later visit
resumes its own seat. Before any process starts, the door checks that the request is
for this door (the Host, against DNS rebinding), that the websocket comes from its own
page (the Origin), that the browser gave the password when there is one, and that there
is room (`max_sessions`, and `per_address` from one address). A session ends when its
tab closes, when the player quits, after `idle` seconds without a key, or when the same
browser opens it in another tab.

A browser's address is the connection's, or, from the one proxy the host trusts
(`trust_proxy`), the last one that proxy wrote in X-Forwarded-For: any other sender may
write anything there. Each session's client carries the door's signed word of that
address (server/edge/doorkey.py), so the game server's address caps and password waits are the
browser's own.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from server.doors.forks import Zygote
from server.doors.web import pages
from server.doors.web.child import ClientProcess
from server.doors.web.identity import COOKIE, Identities, cookie_of, new_cookie
from server.doors.web.slow import CountedHandler, HalfOpen, counting
from server.edge.attempts import Attempts, Guessing
from server.edge.doorkey import DoorKey
from server.edge.limits import address_key
from server.ratelimit import Buckets, TokenBucket
from server.tokens import hash_secret

log = logging.getLogger("gother.web")
STATIC = Path(__file__).parent / "static"  # the page's script, styles, xterm.js and font

MAX_COLUMNS, MAX_ROWS = 400, 200  # a terminal bigger than any screen costs the client memory
MAX_MESSAGE = 64 * 1024  # bytes in one websocket message from a tab (a paste)
MAX_REQUEST = 16 * 1024  # bytes in an HTTP request body (the password form)
WEB_SECRET = "web door"  # its password, as the guesses count it (server/edge/attempts.py)
KEYS_RATE, KEYS_BURST = 200.0, 400.0  # input messages per second (mouse moves count)
COOKIE_AGE = 400 * 24 * 3600  # the most a browser keeps a cookie
HEARTBEAT = 20.0  # seconds between pings: a tab that vanished without closing is noticed
# Sessions started at once beyond `WebOptions.starts_per_minute`, from one address and (four
# times its rate) in all: a reload or two is fine, and a club opening its tabs together
# starts 10 at once.
STARTS_BURST, STARTS_OVERALL_BURST = 4.0, 10.0
CLOSE_QUIT = 1000
CLOSE_GOING = 1001
CLOSE_FULL = 1013
CLOSE_IDLE = 4001
CLOSE_MOVED = 4002
SECURITY_HEADERS = {
    # Everything from this door only: no other host is ever asked for anything.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'; "
    "base-uri 'none'",
    "X-Frame-Options": "DENY",  # no page of another site may frame ours and steal keys
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make a form's Origin "null"
}


@dataclass(frozen=True)
class WebOptions:
    port: int
    data_dir: Path  # browsers' client state lives under data_dir/web-players/
    password: str | None = None  # asked on a page before any session starts
    max_sessions: int = 20  # client processes at once (about 20 MB each, bench/capacity.py)
    per_address: int = 4  # of those, from one address (by its /64 for IPv6)
    trust_proxy: str | None = None  # the reverse proxy whose X-Forwarded-For is believed
    idle: float = 1800.0  # seconds without a key before a session is ended
    origins: tuple[str, ...] = ()  # other addresses the page is reached at (a proxy's)
    guessing: Guessing = field(default_factory=Guessing)  # wrong passwords: waits per address
    # slow clients (server/doors/web/slow.py): a browser sends a request's headers in one packet and
    # the password form in another, so 10 s is generous on the slowest link; nginx's
    # client_header_timeout and client_body_timeout are 60 s, for uploads we never take
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    # a browser opens about 6 connections for the page and its files, and a host behind one
    # address (a home's router) a few browsers: 16 waiting at once is room for them
    half_open_per_address: int = 16
    # sessions started a minute from one address, 4 times as many in all: each starts a client
    # process, and 8 addresses starting and ending 45 a second made a table 5 times slower
    starts_per_minute: int = 30
    # a tab's client forked by the door's zygote (server/doors/zygote.py); False: a fresh process
    zygote: bool = True

    @property
    def access(self) -> str:
        return "password" if self.password is not None else "OPEN: anyone who reaches the port"


@dataclass(eq=False)
class WebSession:
    """One tab's client process, and the websocket to that tab."""

    browser: str  # the cookie's hash: who this is, in logs and in the sessions table
    address: str  # where the browser is (`WebDoor.address`)
    ws: web.WebSocketResponse
    process: ClientProcess | None = None
    last_input: float = field(default_factory=time.monotonic)
    keys: TokenBucket = field(default_factory=lambda: TokenBucket(KEYS_RATE, KEYS_BURST))
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def end(self, code: int, why: str) -> None:
        """Close the tab's websocket (the handler then stops the process) and wait."""
        await self.ws.close(code=code, message=why.encode())
        await self.done.wait()


class WebDoor:
    def __init__(
        self,
        options: WebOptions,
        host: str,
        server: str,
        door_key: DoorKey,
        tls: ssl.SSLContext | None = None,
        tls_pin: str | None = None,
    ) -> None:
        """A door listening on `host` to the game server at the URL `server`; `tls` serves
        the page over https, and `tls_pin`, that server's certificate's fingerprint, is all
        its clients trust; `door_key` signs where each session's browser is."""
        self.options = options
        self.door_key = door_key
        self.host = host
        self.url = server
        self.tls = tls
        self.tls_pin = tls_pin
        self.ws_password: str | None = None  # the server's own password, handed to clients
        self.identities = Identities(options.data_dir / "web-players", options.password)
        self.guesses = Attempts(options.guessing)
        self.browsers: dict[str, WebSession] = {}  # each browser's current session
        self.live: set[WebSession] = set()  # every session whose process may still run
        self.runner: web.AppRunner | None = None
        self.listener: asyncio.Server | None = None
        self.half_open = HalfOpen(options.half_open_per_address, self._from_proxy)
        rate = options.starts_per_minute / 60.0
        self.starts = Buckets(rate, STARTS_BURST)
        self.all_starts = TokenBucket(4 * rate, STARTS_OVERALL_BURST)
        self._origins = {_origin(o) for o in options.origins}
        self.zygote = Zygote("web") if options.zygote else None

    # -- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.options.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.zygote is not None:  # tabs opened before it is ready start fresh processes
            self.zygote.run()
        app = web.Application(
            client_max_size=MAX_REQUEST, middlewares=[counting(self.half_open), _headers]
        )
        app.add_routes(
            [
                web.get("/", self.index),
                web.post("/login", self.login),
                web.get("/ws", self.websocket),
                web.static("/static", STATIC),
            ]
        )
        self.runner = runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        assert runner.server is not None
        server, timeout = runner.server, self.options.header_timeout
        self.listener = await asyncio.get_running_loop().create_server(
            lambda: CountedHandler(server, self.half_open, timeout),
            self.host,
            self.options.port,
            ssl=self.tls,
            ssl_handshake_timeout=timeout if self.tls else None,  # a slow handshake too
            reuse_address=True,
        )
        scheme = "https" if self.tls else "http"
        log.info(
            "web: listening on %s://%s:%d; access: %s; at most %d sessions",
            scheme,
            self.host,
            self.port,
            self.options.access,
            self.options.max_sessions,
        )

    @property
    def port(self) -> int:
        assert self.listener is not None
        return int(self.listener.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self.listener is not None:
            self.listener.close()  # no new connections; those open are closed below
        await asyncio.gather(
            *(s.end(CLOSE_GOING, "The server is stopping.") for s in list(self.live)),
            return_exceptions=True,
        )
        if self.runner is not None:
            await self.runner.cleanup()
        if self.zygote is not None:
            await self.zygote.close()

    # -- pages ------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        if (refused := self._misdirected(request)) is not None:
            return refused
        cookie = cookie_of(request.cookies.get(COOKIE))
        if not self.identities.admitted(cookie):
            if self.options.password is not None:
                return pages.login()
            cookie = new_cookie()  # open door: a browser it has not seen gets its name now
        assert cookie is not None
        if self._full(hash_secret(cookie), self.address(request)):
            return self._full_page(self.address(request))
        response = pages.terminal()
        self._set_cookie(response, cookie)
        return response

    async def login(self, request: web.Request) -> web.StreamResponse:
        if (refused := self._misdirected(request) or self._foreign(request, True)) is not None:
            return refused
        address = self.address(request)
        if (wait := self.guesses.wait(address, WEB_SECRET)) > 0:  # refused unread: tells nothing
            return pages.login(f"Too many tries: wait {wait:.0f} s, then try again.", 429)
        try:
            async with asyncio.timeout(self.options.body_timeout):
                form = await request.post()
        except TimeoutError:
            log.info("web: a password form from %s took too long to arrive", address)
            request.protocol.close()  # what is left of the body is not read
            return pages.message("The form took too long to arrive: try again.", 408)
        password = form.get("password")
        # Always a new cookie: one the browser brought may have been planted (session
        # fixation); the seats of the one it had, if that ever got in, go with it.
        cookie, brought = new_cookie(), cookie_of(request.cookies.get(COOKIE))
        if not isinstance(password, str) or not self.identities.log_in(cookie, password):
            self.guesses.failed(address, WEB_SECRET)
            log.info("web: wrong password from %s", address)
            return pages.login("That is not the password.", 403)
        self.guesses.succeeded(address, WEB_SECRET)
        if brought is not None:
            self.identities.carry(brought, cookie)
        response = web.Response(status=303, headers={"Location": "./"})
        self._set_cookie(response, cookie)
        return response

    # -- the terminal's websocket ---------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if (refused := self._misdirected(request) or self._foreign(request, False)) is not None:
            return refused
        cookie = cookie_of(request.cookies.get(COOKIE))
        if cookie is None or not self.identities.admitted(cookie):
            log.info("web: websocket refused: no admitted cookie from %s", request.remote)
            return pages.message("Open the page first.", 403)
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        browser, address = hash_secret(cookie), self.address(request)
        if self._full(browser, address):
            await ws.close(code=CLOSE_FULL, message=self._full_text(address).encode())
            return ws
        if not (self.starts.allow(address_key(address)) and self.all_starts.allow()):
            why = "Too many games started here just now: try again in a few seconds."
            await ws.close(code=CLOSE_FULL, message=why.encode())
            return ws
        session = WebSession(browser, address, ws)
        before = self.browsers.get(browser)
        self.browsers[browser] = session
        self.live.add(session)
        try:
            if before is not None:  # one session per browser: the newest tab has it
                await before.end(CLOSE_MOVED, "This game was opened in another tab.")
            await self._run(session, cookie, request)
        finally:
            self.live.discard(session)
            if self.browsers.get(browser) is session:
                del self.browsers[browser]
            session.done.set()
        return ws

    async def _run(self, session: WebSession, cookie: str, request: web.Request) -> None:
        width, height = _size(request.query.get("width"), request.query.get("height"))
        ws = session.ws
        process = session.process = ClientProcess(
            self.url,
            self.identities.state_dir(cookie),
            self.ws_password,
            self.door_key.claim(session.address),
            self.tls_pin,
            write_bytes=ws.send_bytes,
            close=_closer(ws, CLOSE_QUIT, "You left. Your seat is kept: start again to return."),
            zygote=self.zygote,
        )
        log.info("web: session for browser %s from %s", session.browser[:8], session.address)
        try:
            await process.start(width, height)
            await self._pump(session, process)
        finally:
            await process.stop()
            if not ws.closed:
                await ws.close(code=CLOSE_GOING, message=b"The session ended.")

    async def _pump(self, session: WebSession, process: ClientProcess) -> None:
        """The tab's keys, size and focus to the client, until the tab goes or idles."""
        ws = session.ws
        while True:
            left = session.last_input + self.options.idle - time.monotonic()
            try:
                message = await ws.receive(timeout=max(left, 0.001))
            except TimeoutError:
                why = (
                    f"Ended after {_duration(self.options.idle)} without a key. Your seat is kept."
                )
                await ws.close(code=CLOSE_IDLE, message=why.encode())
                return
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if message.type == WSMsgType.ERROR:
                return
            if message.type == WSMsgType.TEXT:
                await self._on_text(session, process, message.data)

    async def _on_text(self, session: WebSession, process: ClientProcess, text: str) -> None:
        """textual-serve's envelopes: ["stdin", keys], ["resize", {width, height}],
        ["focus"], ["blur"]. Anything else is ignored."""
        try:
            envelope = json.loads(text)
        except ValueError:
            return
        if not isinstance(envelope, list) or not envelope:
            return
        kind, *rest = envelope
        if kind == "stdin" and len(rest) == 1 and isinstance(rest[0], str):
            if session.keys.allow():  # beyond the budget a key is dropped, not queued
                session.last_input = time.monotonic()
                await process.send_bytes(rest[0].encode())
        elif kind == "resize" and len(rest) == 1 and isinstance(rest[0], dict):
            size = rest[0]  # no key: a tab resized now and then is idle all the same
            await process.set_terminal_size(*_size(size.get("width"), size.get("height")))
        elif kind == "focus":
            await process.focus()
        elif kind == "blur":
            await process.blur()

    # -- checks ------------------------------------------------------------------------------

    def _misdirected(self, request: web.Request) -> web.Response | None:
        """A request for a name this door does not answer to: a page of another site that
        had its name pointed at this machine (DNS rebinding) must not reach the door."""
        host = (request.url.host or "").strip("[]").lower()
        if _is_address(host) or host in {"localhost", *self._hostnames()}:
            return None
        log.info("web: refused a request for host %r from %s", host, request.remote)
        return pages.message("This door answers at its own address only.", 421)

    def _foreign(self, request: web.Request, absent_ok: bool) -> web.Response | None:
        """A request made by a page that is not the door's own (its Origin)."""
        origin = request.headers.get("Origin")
        if origin is None and absent_ok:
            return None
        own = _origin(f"{'https' if self.tls else 'http'}://{request.host}")
        if origin is not None and _origin(origin) in {own, *self._origins}:
            return None
        log.info("web: refused origin %r from %s", origin, request.remote)
        return pages.message("Only this door's own page may do that.", 403)

    def _hostnames(self) -> set[str]:
        names = {urlsplit(o).hostname or "" for o in self._origins}
        machine = socket.gethostname().lower()
        return names | {machine, f"{machine}.local"}

    def address(self, request: web.Request) -> str:
        """Where the browser is: the connection's address, or behind the trusted proxy the
        address that proxy added last to X-Forwarded-For (an IP address, else the proxy's)."""
        remote = request.remote or "?"
        if not self._from_proxy(remote):
            return remote
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        return forwarded if _is_address(forwarded) else remote

    def _from_proxy(self, peer: str) -> bool:
        proxy = self.options.trust_proxy
        return proxy is not None and _is_address(peer) and _same(peer, proxy)

    def _full(self, browser: str, address: str) -> bool:
        """No room for one more process, overall or from `address` (a browser's own
        session makes room for its new one: it ends when the new one starts)."""
        others = [s for s in self.live if s.browser != browser]
        key = address_key(address)
        here = sum(address_key(s.address) == key for s in others)
        return len(others) >= self.options.max_sessions or here >= self.options.per_address

    def _full_text(self, address: str) -> str:
        key, options = address_key(address), self.options
        if sum(address_key(s.address) == key for s in self.live) >= options.per_address:
            return f"{options.per_address} players from your address are in already."
        count = options.max_sessions
        return f"The door is full: {count} players are in. Try again in a little while."

    def _full_page(self, address: str) -> web.Response:
        return pages.message(self._full_text(address), 503)

    def _set_cookie(self, response: web.StreamResponse, cookie: str) -> None:
        response.set_cookie(
            COOKIE,
            cookie,
            max_age=COOKIE_AGE,
            path="/",
            httponly=True,
            samesite="Strict",
            secure=self.tls is not None,
        )


@web.middleware
async def _headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:  # a redirect or a 404 is a response too
        response = exc
    response.headers.update(SECURITY_HEADERS)
    if not request.path.startswith("/static/"):
        response.headers["Cache-Control"] = "no-store"
    if isinstance(response, web.HTTPException):
        raise response
    return response


def _closer(ws: web.WebSocketResponse, code: int, why: str) -> Callable[[], Awaitable[None]]:
    async def close() -> None:
        await ws.close(code=code, message=why.encode())

    return close


def _size(width: Any, height: Any) -> tuple[int, int]:
    """A terminal size from the tab, within bounds (80x24 when it says nothing usable)."""

    def whole(value: Any, default: int, most: int) -> int:
        try:
            number = int(value)
        except (TypeError, ValueError):
            return default
        return min(max(number, 1), most)

    return whole(width, 80, MAX_COLUMNS), whole(height, 24, MAX_ROWS)


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} s"


def _origin(url: str) -> str:
    parts = urlsplit(url.strip().lower())
    return f"{parts.scheme}://{parts.netloc}"


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _same(address: str, other: str) -> bool:
    """One address, however written (an IPv4 address mapped into IPv6 is that address)."""

    def plain(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        ip = ipaddress.ip_address(text)
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        return mapped or ip

    return _is_address(other) and plain(address) == plain(other)
