"""Asking a server a few things in turn, outside any event loop, for a command that prints
what it gets and ends (`gother replay URL`, `gother standings URL`): one websocket of its
own, the hello first, then each request and its answer, every frame read as its typed
message. A request refused for the rate of dear ones is asked again a moment later
(docs/protocol.md): the server's budget for them refills in seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from protocol import MAX_FRAME, ProtocolError, Request, decode, encode
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.constants import DOOR_HEADER

FETCH_TIMEOUT = 10.0  # seconds for each answer of a server
RATE_LIMITED_WAIT = 1.0  # seconds before a request refused as rate_limited is asked again
RATE_LIMITED_TRIES = 30  # a seat's record is long: it outruns a connection's budget

Ask = Callable[[Request], sm.Message]  # a request's answer (never the server's error)


@contextmanager
def asking(
    url: str, hello: rq.Hello, fault: type[Exception], what: str, door: str | None = None
) -> Iterator[Ask]:
    """A connection to the server at `url` that said `hello`: `ask` sends a request and
    returns its answer. Anything that goes wrong (no server, a refusal, a frame this client
    cannot read) is `fault`, with one sentence; `what` names what was to be fetched. `door`:
    the claim a door handed this client, sent on the handshake as the client's own is."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    def answer() -> sm.Message:
        while True:  # skip broadcasts; the answer is the one frame that is not one
            frame = ws.recv(timeout=FETCH_TIMEOUT)
            try:  # as the client's transport reads a frame
                message = sm.parse(decode(frame if isinstance(frame, bytes) else frame.encode()))
            except ProtocolError as exc:
                raise fault(f"{url} sent something unreadable: {exc.message}") from None
            if message is not None and not isinstance(message, sm.State | sm.Chat):
                return message

    def ask(request: Request) -> sm.Message:
        for _ in range(RATE_LIMITED_TRIES):
            ws.send(encode(request))
            reply = answer()
            if not (isinstance(reply, sm.Error) and reply.code == "rate_limited"):
                break
            time.sleep(RATE_LIMITED_WAIT)
        if isinstance(reply, sm.Error):
            raise fault(f"{url}: {reply.message}")
        return reply

    headers = {DOOR_HEADER: door} if door else None
    try:
        with connect(
            url,
            max_size=MAX_FRAME,
            compression=None,
            open_timeout=FETCH_TIMEOUT,
            additional_headers=headers,
        ) as ws:
            ask(hello)
            yield ask
    except (OSError, TimeoutError, WebSocketException) as exc:
        raise fault(f"cannot fetch {what} from {url}: {exc}") from None
