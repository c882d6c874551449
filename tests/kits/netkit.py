"""A protocol client for tests: real websockets, real msgpack bytes, every frame recorded.

Requests are the protocol's own types (`ask(rq.Join(table=...))`), so mypy checks what a
test sends; the raw maps of `request`/`send` are for the tests that probe bad input.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from itertools import count
from ssl import SSLContext
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from protocol import requests as rq
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move

TIMEOUT = 10.0  # generous: CI has two cores shared with the server under test


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []  # every frame, decoded, in order
        self.raw: list[bytes] = []
        self._rids = count(1)
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls, url: str, name: str | None = None, ssl: SSLContext | None = None, **hello: Any
    ) -> Client:
        """Connected to `url` (wss:// trusting what `ssl` trusts), and welcomed as `name`."""
        client = cls(await connect(url, max_size=MAX_FRAME, compression=None, ssl=ssl))
        if name is not None:
            reply = await client.ask(rq.Hello(v=PROTOCOL_VERSION, name=name, **hello))
            assert reply["t"] == "welcome", reply
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                assert isinstance(frame, bytes)
                self.raw.append(frame)
                message = decode(frame)
                self.received.append(message)
                await self._inbox.put(message)
        except ConnectionClosed:
            pass  # the close code stays readable on self.ws

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.wait_for(self._reader, TIMEOUT)

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def tell(self, request: rq.Request) -> int:
        """Send a request with a new rid, not waiting for its reply; returns the rid."""
        rid = next(self._rids)
        await self.ws.send(encode(msgspec.structs.replace(request, rid=rid)))
        return rid

    async def ask(self, request: rq.Request) -> dict[str, Any]:
        """Send a request and wait for the reply carrying its rid (an answer or an `error`)."""
        rid = await self.tell(request)
        return await self.next(lambda m: m.get("rid") == rid)

    async def send(self, t: str, **fields: Any) -> int:
        """A raw map as a request (bad input: anything a typed request cannot say)."""
        rid = next(self._rids)
        await self.ws.send(encode({"t": t, "rid": rid, **fields}))
        return rid

    async def next(
        self, predicate: Callable[[dict[str, Any]], bool] = lambda m: True, wait: float = TIMEOUT
    ) -> dict[str, Any]:
        """The next message (from now on) that satisfies `predicate`, each within `wait`."""
        while True:
            message = await asyncio.wait_for(self._inbox.get(), wait)
            if predicate(message):
                return message

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        """`send`, and wait for the reply carrying the same rid (an answer or an `error`)."""
        rid = await self.send(t, **fields)
        return await self.next(lambda m: m.get("rid") == rid)

    async def state(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next `state` whose view satisfies `predicate`; returns the view."""
        message = await self.next(lambda m: m["t"] == "state" and predicate(m["view"]))
        view: dict[str, Any] = message["view"]
        return view

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m["t"] == "state"]

    def latest_view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.states()[-1]["view"]
        return view


def first_legal_move(legal: dict[str, Any]) -> Move:
    """A simple legal move from a `legal` map: enough to drive a game over the wire."""
    kind = legal["kind"]
    if kind == "discard_fate":
        return DiscardFate(legal["cards"][0])
    if kind == "distribute":
        pairs = zip(legal["recipients"], legal["hand"][: legal["count"]], strict=False)
        return Distribute(tuple(pairs))
    if kind == "draw":
        if legal["deck"]:
            return Draw("deck")
        return Draw("discard", legal["discard"][0])
    return DiscardHand(legal["cards"][0])


async def play_to_end(player: Client, game: int | None = None) -> dict[str, Any]:
    """Make this seat's moves (`first_legal_move`) until the game is over; returns the final
    view. With `game`, only views of that game number count."""

    def ours(v: dict[str, Any]) -> bool:
        asks = v["phase"] == "over" or v["legal"] is not None
        return asks and (game is None or v["table"]["game"] == game)

    # if the newest view asks us, the game is waiting for us: it is current
    view = player.latest_view() if player.states() else None
    if view is None or not ours(view):
        view = await player.state(ours)
    while view["phase"] != "over":
        reply = await player.ask(rq.Play(move=first_legal_move(view["legal"])))
        assert reply["t"] == "state", reply
        # the reply is the newest state: it may already ask for our next decision
        view = reply["view"] if ours(reply["view"]) else await player.state(ours)
    return view


def told(client: Client, table: str) -> dict[int, Any]:
    """Every event of the current game at `table` that `client` was told of (its stories
    and states), by its place in the game: what a player saw acknowledged."""
    events: dict[int, Any] = {}
    for message in client.received:
        if message.get("t") == "story" and message["table"] == table:
            events.update(enumerate(message["log"], start=message.get("start", 0)))
        elif message.get("t") == "state" and message["view"]["table"]["id"] == table:
            view = message["view"]
            events.update(enumerate(view["log"], start=view.get("log_start", 0)))
    return events


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()
