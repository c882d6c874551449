"""`gother bot`: a bot that plays over the protocol like any other client.

It joins a table, and whenever a `state` asks it for a decision it parses the view into the
protocol's `View` (the type the engine gives in-process bots) and lets the same bot classes
the server uses choose.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass

from websockets.asyncio.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode, server_messages
from protocol import requests as rq
from protocol.constants import DEFAULT_BOT
from server.bots.base import Bot
from server.bots.registry import kind_of, make_bot, trait_for, trait_of
from server.game import Deck, View

log = logging.getLogger("gother.bot")
MAX_FAILURES = 3


class BotRefused(RuntimeError):
    """The server answered the bot with an error it cannot play on from."""


@dataclass
class NetBot:
    url: str
    table: str
    bot: str = DEFAULT_BOT  # a difficulty or a kind
    name: str = "Bot"
    seat: int | None = None
    password: str | None = None
    seed: int = 0
    trait: str | None = None  # whom it hurts; None: the default of the table's seat count

    async def run(self) -> View:
        """Play until the game at the table is over; returns the final view."""
        async with connect(self.url, max_size=MAX_FRAME, compression=None) as ws:
            await self._request(ws, rq.Hello(v=PROTOCOL_VERSION, name=self.name))
            join = rq.Join(table=self.table, seat=self.seat, password=self.password)
            joined = await self._request(ws, join)
            assert isinstance(joined, server_messages.Joined)
            return await self._play(ws, Deck.of("served", joined.cards))

    def _bot(self, deck: Deck, seats: int) -> Bot:
        trait = trait_of(self.trait) if self.trait else trait_for(seats)
        return make_bot(kind_of(self.bot), deck, random.Random(self.seed), trait=trait)

    async def _play(self, ws: ClientConnection, deck: Deck) -> View:
        """Answer each decision once: a move carries a rid, and until the server answers
        it (with our `state` or an `error`) further states are only remembered."""
        latest: View | None = None
        bot: Bot | None = None  # made at its first decision, when the table's seats are known
        pending: int | None = None
        rid = failures = 0
        async for frame in ws:
            message = _read(frame)
            if isinstance(message, server_messages.State):
                latest = message.view
                if message.rid == pending:
                    pending, failures = None, 0
            elif isinstance(message, server_messages.Error) and message.rid == pending:
                pending = None
                if message.code == "rate_limited":
                    await asyncio.sleep(0.2)
                else:
                    failures += 1
                    log.warning("move refused: %s", message.message)
                    if failures > MAX_FAILURES:
                        raise BotRefused(f"{failures} moves refused in a row")
            if latest is None or pending is not None:
                continue
            if latest.over:
                return latest
            if latest.legal is not None:
                bot = bot or self._bot(deck, len(latest.players))
                rid += 1
                pending = rid
                await ws.send(encode(rq.Play(move=bot.choose(latest), rid=rid)))
        raise BotRefused("the server closed the connection before the game ended")

    @staticmethod
    async def _request(ws: ClientConnection, request: rq.Request) -> server_messages.Message:
        await ws.send(encode(request))
        reply = _read(await ws.recv())
        asked = type(request).__struct_config__.tag
        if isinstance(reply, server_messages.Error):
            raise BotRefused(f"{asked}: {reply.code}: {reply.message}")
        if reply is None:
            raise BotRefused(f"{asked}: an answer this bot does not understand")
        return reply


def _read(frame: bytes | str) -> server_messages.Message | None:
    return server_messages.parse(decode(frame if isinstance(frame, bytes) else frame.encode()))


def run_bot(bot: NetBot) -> View:
    return asyncio.run(bot.run())
