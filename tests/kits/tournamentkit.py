"""Tournament test kit: players on real connections who play every decision they are asked
at whatever table the director seats them, and waits that outlast the quiet between rounds."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed

from protocol import requests as rq
from protocol.view import Variants
from tests.kits.netkit import Client, first_legal_move

LEAVE = "hosts-leave"  # the host's leave to create tournaments
# every player of these nights comes from 127.0.0.1: one address, as many entries as a night
NIGHT = {"tournament_password": LEAVE, "tournament_entries_per_address": 100}
SHORT = Variants(round_cap=3)  # games of three rounds: a whole night in seconds
WHOLE_NIGHT = 120.0  # seconds for the whole tournament, on a busy machine


class Player:
    """A registered player on its own connection: plays every decision it is asked, with
    `first_legal_move`, at whatever table the director seats it, and notes what it heard."""

    def __init__(
        self, client: Client, leaves_in_round: int | None = None, plays_rounds: int = 99
    ) -> None:
        self.client = client
        self.leaves_in_round = leaves_in_round  # then it leaves that table and drops out
        self.plays_rounds = plays_rounds  # after these it sits idle at its table
        self.table: str | None = None
        self.heard: list[tuple[str, str]] = []  # ("joined" | "over", table id), in order
        self.finals: dict[str, dict[str, Any]] = {}  # table id -> its last view
        self.first_views: dict[str, dict[str, Any]] = {}  # table id -> its first dealt view
        self.tournament: str = ""
        self.news = asyncio.Event()  # set whenever `heard` grows
        self.task = asyncio.create_task(self._play())

    async def _play(self) -> None:
        with contextlib.suppress(ConnectionClosed):  # its connection closed: it plays no more
            await self._turns()

    async def _turns(self) -> None:
        joined = 0
        while True:
            try:
                message = await self.client.next()
            except TimeoutError:
                continue  # other tables are still playing
            if message["t"] == "joined":
                joined += 1
                self.table = message["table"]
                self.heard.append(("joined", self.table))
                self.news.set()
                if joined == self.leaves_in_round:
                    await self.client.tell(rq.Leave())
                    await self.client.tell(rq.TournamentDrop(tournament=self.tournament))
                    self.table = None
            elif self.table is not None and message["t"] == "state":
                view = message["view"]
                if view["table"]["id"] != self.table:
                    continue
                self.first_views.setdefault(self.table, view)
                if view["phase"] == "over":
                    if self.table not in self.finals:
                        self.finals[self.table] = view
                        self.heard.append(("over", self.table))
                        self.news.set()
                elif view["legal"] is not None and joined <= self.plays_rounds:
                    await self.client.tell(rq.Play(move=first_legal_move(view["legal"])))

    async def heard_games_end(self, games: int) -> None:
        """Wait until this player has seen `games` of its games end."""

        async def wait() -> None:
            while sum(kind == "over" for kind, _ in self.heard) < games:
                self.news.clear()
                await self.news.wait()

        await asyncio.wait_for(wait(), WHOLE_NIGHT)


async def until(
    client: Client, predicate: Callable[[dict[str, Any]], bool], seconds: float = WHOLE_NIGHT
) -> dict[str, Any]:
    """The first message from now on that satisfies `predicate`, however long the quiet
    spells between messages are (within `seconds` in all)."""

    async def wait() -> dict[str, Any]:
        while True:
            try:
                return await client.next(predicate)
            except TimeoutError:
                continue

    return await asyncio.wait_for(wait(), seconds)
