"""Asking a server a few things in turn, for a command that prints what it gets and ends
(`gother replay URL`, `gother standings URL`): one connection of its own, made by the
client's own transport (so a wss:// server is trusted exactly as `gother join` trusts it:
--fingerprint, --cafile or the pin kept in known_servers), the hello first, then each request
and its answer, every frame read as its typed message. A request refused for the rate of
dear ones is asked again a moment later (docs/protocol.md): the server's budget for them
refills in seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from gother_tui.core.connection import Unreadable, incoming
from gother_tui.core.transport import TransportError, WebSocketTransport
from gother_tui.core.trust import Trust
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm

FETCH_TIMEOUT = 10.0  # seconds for each answer of a server
RATE_LIMITED_WAIT = 1.0  # seconds before a request refused as rate_limited is asked again
RATE_LIMITED_TRIES = 30  # a seat's record is long: it outruns a connection's budget

Ask = Callable[[Request], Awaitable[sm.Message]]  # a request's answer (never the server's error)
T = TypeVar("T")


def asking(
    url: str,
    hello: rq.Hello,
    fault: type[Exception],
    what: str,
    work: Callable[[Ask], Awaitable[T]],
    door: str | None = None,
    trust: Trust | None = None,
) -> T:
    """What `work` makes of a connection to the server at `url` that said `hello`: its
    `ask` sends a request and returns its answer. Anything that goes wrong (no server, a
    certificate not trusted, a refusal, a frame this client cannot read) is `fault`, with
    one sentence; `what` names what was to be fetched. `door`: the claim a door handed this
    client, sent on the handshake as the client's own is; `trust`: the wss:// certificates
    trusted (by default, only those the system's CAs vouch for)."""
    return asyncio.run(_asking(url, hello, fault, what, work, door, trust))


async def _asking(
    url: str,
    hello: rq.Hello,
    fault: type[Exception],
    what: str,
    work: Callable[[Ask], Awaitable[T]],
    door: str | None,
    trust: Trust | None,
) -> T:
    transport = WebSocketTransport(url, trust, door)
    try:
        await transport.connect()
    except TransportError as exc:
        raise fault(f"cannot fetch {what}: {exc}") from None
    frames = aiter(transport.messages())

    async def answer() -> sm.Message:
        while True:  # skip broadcasts; the answer is the one frame that is not one
            try:
                frame = await asyncio.wait_for(anext(frames), FETCH_TIMEOUT)
            except StopAsyncIteration:
                why = f" ({transport.close_reason})" if transport.close_reason else ""
                raise fault(f"{url} closed the connection{why}") from None
            except TimeoutError:
                raise fault(f"{url} did not answer in time") from None
            heard = incoming(frame)  # as the client's connection reads a frame
            if isinstance(heard, Unreadable):
                raise fault(f"{url} sent something unreadable: {heard.problem}")
            if heard is not None and not isinstance(heard.message, sm.State | sm.Chat | sm.Story):
                return heard.message

    async def ask(request: Request) -> sm.Message:
        for _ in range(RATE_LIMITED_TRIES):
            try:
                await transport.send(request)
            except TransportError as exc:
                raise fault(f"cannot fetch {what} from {url}: {exc}") from None
            reply = await answer()
            if not (isinstance(reply, sm.Error) and reply.code == "rate_limited"):
                break
            await asyncio.sleep(RATE_LIMITED_WAIT)
        if isinstance(reply, sm.Error):
            raise fault(f"{url}: {reply.message}")
        return reply

    try:
        await ask(hello)
        return await work(ask)
    finally:
        await transport.close()
