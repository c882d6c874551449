"""`gother bot`: a bot that plays over the protocol like any other client.

It joins a table, and whenever a `state` asks it for a decision it rebuilds the engine's
GameView from the wire view and lets the same bot classes the server uses choose.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from server.bots.base import Bot
from server.bots.registry import make_bot
from server.game import Card, Deck, view_from_wire

log = logging.getLogger("gother.bot")
MAX_FAILURES = 3


class BotRefused(RuntimeError):
    """The server answered the bot with an error it cannot play on from."""


@dataclass
class NetBot:
    url: str
    table: str
    kind: str = "heuristic"
    name: str = "Bot"
    seat: int | None = None
    password: str | None = None
    seed: int = 0

    async def run(self) -> dict[str, Any]:
        """Play until the game at the table is over; returns the final view."""
        async with connect(self.url, max_size=MAX_FRAME, compression=None) as ws:
            await self._request(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": self.name})
            join: dict[str, Any] = {"t": "join", "table": self.table}
            if self.seat is not None:
                join["seat"] = self.seat
            if self.password is not None:
                join["password"] = self.password
            joined = await self._request(ws, join)
            deck = Deck.of("served", tuple(Card(**c) for c in joined["cards"]))
            bot = make_bot(self.kind, deck, random.Random(self.seed))
            return await self._play(ws, bot)

    async def _play(self, ws: ClientConnection, bot: Bot) -> dict[str, Any]:
        """Answer each decision once: a move carries a rid, and until the server answers
        it (with our `state` or an `error`) further states are only remembered."""
        latest: dict[str, Any] | None = None
        pending: int | None = None
        rid = failures = 0
        async for frame in ws:
            message = decode(frame)  # type: ignore[arg-type]
            if message["t"] == "state":
                latest = message["view"]
                if message.get("rid") == pending:
                    pending, failures = None, 0
            elif message["t"] == "error" and message.get("rid") == pending:
                pending = None
                if message["code"] == "rate_limited":
                    await asyncio.sleep(0.2)
                else:
                    failures += 1
                    log.warning("move refused: %s", message["message"])
                    if failures > MAX_FAILURES:
                        raise BotRefused(f"{failures} moves refused in a row")
            if latest is None or pending is not None:
                continue
            if latest["phase"] == "over":
                return latest
            if latest["legal"] is not None:
                rid += 1
                pending = rid
                move = bot.choose(view_from_wire(latest))
                await ws.send(encode({"t": "move", "rid": rid, "move": move.to_wire()}))
        raise BotRefused("the server closed the connection before the game ended")

    @staticmethod
    async def _request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
        await ws.send(encode(message))
        reply = decode(await ws.recv())  # type: ignore[arg-type]
        if reply["t"] == "error":
            raise BotRefused(f"{message['t']}: {reply['code']}: {reply['message']}")
        return reply


def run_bot(bot: NetBot) -> dict[str, Any]:
    return asyncio.run(bot.run())
