"""How the client reaches a server: connect, send a request, iterate over decoded maps, close.

The app only sees this small interface, so tests drive it with a scripted fake and the
real one is a thin layer over the websockets asyncio client. Over wss:// it trusts what
`Trust` says (gother_tui/core/trust.py): a certificate it cannot trust is an error no retry
mends, so the connection stops trying.
"""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidMessage, InvalidURI
from websockets.protocol import State

from gother_tui.core.trust import Trust, pinning, server_of
from protocol import MAX_FRAME, ProtocolError, Request, decode, encode
from protocol.constants import DOOR_HEADER
from protocol.fingerprint import fingerprint

log = logging.getLogger("gother.client")

CONNECT_TIMEOUT = 10.0
CLOSE_REPLACED = 4000  # the server's code: this seat was resumed from another connection

Frame = dict[str, Any]  # a decoded frame: the connection parses it into its typed message


class TransportError(Exception):
    """The connection could not be made, or was lost. `final`: trying again cannot help."""

    final = False


class UnknownCertificate(TransportError):
    """A wss:// server whose certificate nothing vouches for and nothing pins."""

    final = True

    def __init__(self, url: str, shown: str, reason: str) -> None:
        self.server, self.shown, self.reason = server_of(url), shown, reason
        super().__init__(
            f"{self.server} sent a certificate this machine does not know ({reason}); its "
            f"fingerprint is {shown}. Check it with the host, then join again from a "
            "terminal to trust it, or give it with --fingerprint."
        )


class CertificateChanged(TransportError):
    """A wss:// server that shows another certificate than the one pinned for it."""

    final = True

    def __init__(
        self, url: str, pinned: str, shown: str, where: str, home: str | None = None
    ) -> None:
        """`home`: the host's address, whose pin `url` (another of its processes) is held to."""
        self.server, self.pinned, self.shown = server_of(url), pinned, shown
        if home is not None:  # one process of the host shows another certificate than its address
            super().__init__(
                f"the certificate of {self.server}, where the host {home} sent us, is NOT the "
                f"host's: it is {shown}, not {pinned} (pinned for {home} in {where}). Someone "
                "may be listening in, or the host gave its processes different certificates: "
                "tell the host, who should give every process the one certificate."
            )
            return
        super().__init__(
            f"the certificate of {self.server} has CHANGED: it is {shown}, not {pinned} "
            f"({where}). Someone may be listening in; if the host made a new certificate, "
            + (
                "give the new fingerprint."
                if where == "--fingerprint"
                else f"remove the line for {self.server} from {where}, then join again."
            )
        )


def unreachable(url: str, exc: BaseException) -> str:
    """Why `url` could not be reached, in words a player can act on (no "[Errno 111]")."""
    if isinstance(exc, ConnectionRefusedError):
        return f"nothing is listening at {url} — is the server running?"
    if isinstance(exc, TimeoutError):
        return f"{url} did not answer in time — is the address right, and the server up?"
    if isinstance(exc, socket.gaierror):
        return f"there is no host of that name in {url} — is the address right?"
    if isinstance(exc, InvalidURI):
        return f"{url} is not a server address (it should look like ws://HOST:PORT)"
    if isinstance(exc, InvalidMessage) and isinstance(exc.__cause__, EOFError):
        if url.startswith("ws://"):  # a TLS server hangs up on a handshake in the clear
            return f"{url} hung up at once: it looks like a TLS server, use wss://{url[5:]}"
        return f"{url} hung up without answering — is it a gother server?"
    if isinstance(exc, InvalidHandshake):
        return f"{url} answered, but it is not a gother server"
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot reach {url}: {exc.strerror.lower()}"
    return f"cannot reach {url}"


class Transport(Protocol):
    close_code: int | None  # why the server closed, once it has
    close_reason: str

    async def connect(self) -> None:
        """Open the connection; raises TransportError."""
        ...

    async def send(self, request: Request) -> None:
        """Send one request; raises TransportError if the connection is gone."""
        ...

    def messages(self) -> AsyncIterator[Frame | ProtocolError]:
        """Every server frame until the connection closes: decoded, or the reason it could
        not be (the frame is dropped; the connection goes on)."""
        ...

    async def close(self) -> None:
        """Close the connection; when this returns (or is cancelled) the socket is gone."""
        ...


TransportFactory = Callable[[str], Transport]


class WebSocketTransport:
    def __init__(self, url: str, trust: Trust | None = None, door: str | None = None) -> None:
        """`door`: the claim a door handed this client, sent in every opening handshake."""
        self.url = url
        self.trust = trust or Trust()
        self.headers = {DOOR_HEADER: door} if door else None
        self.close_code: int | None = None
        self.close_reason = ""
        self._ws: ClientConnection | None = None

    async def connect(self) -> None:
        if not self.url.startswith("wss://"):
            self._ws = await self._open(None)
            return
        pinned = self.trust.pinned(self.url)
        if pinned is not None:
            ws = await self._open(pinning())
            shown = _fingerprint_of(ws)
            if shown != pinned:
                ws.transport.abort()  # not a word more to an impostor
                where = "--fingerprint" if self.trust.pin else str(self.trust.known_path)
                home = None if self.trust.pin else self.trust.home_of(self.url)
                raise CertificateChanged(self.url, pinned, shown, where, home)
            self._ws = ws
            return
        try:
            self._ws = await self._open(self.trust.verifying())
        except ssl.SSLCertVerificationError as exc:
            reason = exc.verify_message or exc.reason or "not verified"
            if self.trust.cafile is not None:
                raise _final(f"{server_of(self.url)}: {reason} (by {self.trust.cafile})") from exc
            ws = await self._open(pinning())  # only to read which certificate it is
            shown = _fingerprint_of(ws)
            await _close(ws)
            raise UnknownCertificate(self.url, shown, reason) from exc

    async def _open(self, context: ssl.SSLContext | None) -> ClientConnection:
        try:
            return await connect(
                self.url,
                max_size=MAX_FRAME,
                compression=None,
                open_timeout=CONNECT_TIMEOUT,
                ssl=context,
                additional_headers=self.headers,
            )
        except ssl.SSLCertVerificationError:
            raise
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            log.info("cannot connect to %s: %r", self.url, exc)  # the raw error, for the log
            raise TransportError(unreachable(self.url, exc)) from exc

    async def send(self, request: Request) -> None:
        if self._ws is None:
            raise TransportError("not connected")
        try:
            await self._ws.send(encode(request))
        except ConnectionClosed as exc:
            raise TransportError("connection closed") from exc

    async def messages(self) -> AsyncIterator[Frame | ProtocolError]:
        if self._ws is None:
            return
        try:
            async for frame in self._ws:
                try:
                    yield decode(frame if isinstance(frame, bytes) else frame.encode())
                except ProtocolError as exc:
                    log.warning("unreadable frame from the server: %s", exc.message)
                    yield exc
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self._ws.close_code
            self.close_reason = self._ws.close_reason or ""

    async def close(self) -> None:
        if self._ws is not None:
            await _close(self._ws)


def _fingerprint_of(ws: ClientConnection) -> str:
    tls = ws.transport.get_extra_info("ssl_object")
    der = tls.getpeercert(binary_form=True) if tls is not None else None
    if not der:
        ws.transport.abort()
        raise _final("the server sent no certificate")
    return fingerprint(der)


def _final(message: str) -> TransportError:
    error = TransportError(message)
    error.final = True
    return error


async def _close(ws: ClientConnection) -> None:
    try:
        await ws.close()  # the closing handshake: waits for the server's answer
    finally:
        # Cut short (an exiting app cancels its network worker, and its event loop ends
        # before the server answers), the handshake would leave the socket open for as
        # long as the process lives: a server in this same process (`gother play`) then
        # waits its whole close timeout for it. Let go of the socket now instead.
        if ws.state is not State.CLOSED:
            ws.transport.abort()
