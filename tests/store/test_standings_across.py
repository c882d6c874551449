"""The standings across a host's processes (issue 34 §2): real `gother serve --db
postgresql://…` processes; a game that ends at one is in the standings asked at another,
heard as it lands; a process started after it finds it in its rebuild."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.kits.netkit import Client, close_all
from tests.kits.poll import until
from tests.kits.standingskit import finished_game
from tests.store.test_lobby_across import host

pytestmark = pytest.mark.usefixtures("postgres")
__all__ = ["host"]  # the fixture: real processes on one PostgreSQL


class Asked:
    """The standings a client is given, asked again as often as a test waits on them."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.games: dict[str, int] = {}

    async def ask(self) -> None:
        reply: dict[str, Any] = await self.client.request("standings")
        assert reply["t"] == "standings", reply
        self.games = {row["name"]: row["games"] for row in reply["rows"]}

    async def until(self, what: str, games: dict[str, int]) -> None:
        async def again() -> None:
            await asyncio.sleep(0.2)
            await self.ask()

        await self.ask()
        await until(what, lambda: all(self.games.get(n) == g for n, g in games.items()), 60, again)


async def test_a_game_ended_at_one_process_is_in_the_standings_of_another(host):
    one, two = await host("one"), await host("two")
    at_two = Asked(await Client.connect(two.url, "Looker"))
    await at_two.ask()
    assert "Ann" not in at_two.games  # a new host: nobody has played
    await finished_game(one.url, "Ann")
    await at_two.until("Ann's game at one, counted at two", {"Ann": 1})
    await finished_game(two.url, "Ann")  # and one played at two: both count, once each
    await finished_game(one.url, "Bo")
    await at_two.until("every game counted once", {"Ann": 2, "Bo": 1})

    three = await host("three")  # started later: its rebuild reads them all
    at_three = Asked(await Client.connect(three.url, "Other"))
    await at_three.until("every game at three", {"Ann": 2, "Bo": 1})
    at_one = Asked(await Client.connect(one.url, "Third"))
    await at_one.until("Ann's game at two, counted at one", {"Ann": 2, "Bo": 1})
    await close_all(at_two.client, at_three.client, at_one.client)
