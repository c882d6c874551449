"""A table's bots have a trait (issue 32 §1, §3): chosen at `create` or the seat count's
default, shown in the lobby row and beside each bot in the view, kept across a restart,
and with it the lobby row says how long the table's games run, from measured games."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.constants import DEFAULT_TRAITS, SHORT_ROUND_CAP
from protocol.lengths import how_long
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from tests.kits.netkit import Client, close_all


async def create(client: Client, **fields: object) -> str:
    reply = await client.request("create", name="Crypt", **fields)
    assert reply["t"] == "created", reply
    return str(reply["table"])


def row_of(reply: dict, table: str) -> dict:
    assert reply["t"] == "tables", reply
    (row,) = [row for row in reply["tables"] if row["id"] == table]
    return row


async def test_the_trait_is_the_one_chosen_or_the_seat_counts_default(server, url):
    host = await Client.connect(url, "Host")
    four = await create(host, seats=4, bots=2)
    five = await create(host, seats=5, bots=2)
    chosen = await create(host, seats=5, bots=2, trait="vengeful", bot="hard")
    rows = await host.request("list")
    assert row_of(rows, four)["trait"] == DEFAULT_TRAITS[4] == "vengeful"
    assert row_of(rows, five)["trait"] == DEFAULT_TRAITS[5] == "steady"
    assert (row_of(rows, chosen)["trait"], row_of(rows, chosen)["bot"]) == ("vengeful", "hard")
    refused = await host.request("create", name="Crypt", seats=4, bots=1, trait="kind")
    assert refused["t"] == "error" and refused["code"] == "bad_message", refused
    assert "create.trait" in refused["message"]
    await host.close()


async def test_the_lobby_row_says_how_long_its_games_run(server, url):
    host = await Client.connect(url, "Host")
    long = await create(host, seats=5, bots=4, trait="vengeful")
    steady = await create(host, seats=5, bots=4)
    short = await create(host, seats=5, bots=4, variants={"round_cap": SHORT_ROUND_CAP})
    rough = await create(host, seats=5, bots=4, bot="random")
    rows = await host.request("list")
    assert row_of(rows, long)["lasts"] == how_long(5, "normal", "vengeful", 100)
    assert row_of(rows, steady)["lasts"] == how_long(5, "normal", "steady", 100)
    assert row_of(rows, short)["lasts"] == how_long(5, "normal", "steady", SHORT_ROUND_CAP)
    assert row_of(rows, long)["lasts"] != row_of(rows, steady)["lasts"]  # measured apart
    assert row_of(rows, steady)["lasts"].startswith("usually ")
    assert "lasts" not in row_of(rows, rough)  # no measured games of random bots
    await host.close()


async def test_each_bot_shows_its_trait_in_the_view_and_people_none(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=5, bots=4)
    player = await Client.connect(url, "Ann")
    assert (await player.request("join", table=table))["t"] == "joined"
    view = await player.state(lambda v: v["phase"] != "lobby")
    traits = {p["seat"]: p.get("trait") for p in view["players"]}
    assert traits == {0: None, 1: "steady", 2: "steady", 3: "steady", 4: "steady"}
    await close_all(host, player)


@pytest.mark.parametrize("stored", ["steady", None])
async def test_the_trait_survives_a_restart_and_a_table_from_before_traits_is_vengeful(
    tmp_path: Path, stored: str | None
):
    db = tmp_path / "games.db"
    config = ServerConfig(host="127.0.0.1", port=0, db=str(db), bot_delay=60.0)
    server = GotherServer(config)
    await server.start()
    try:
        host = await Client.connect(f"ws://127.0.0.1:{server.port}", "Host")
        table = await create(host, seats=5, bots=2)
        await host.close()
    finally:
        await server.close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE tables SET trait = ? WHERE id = ?", (stored, table))
    raw.commit()
    raw.close()
    again = GotherServer(config)
    await again.start()
    try:
        restored = again.lobby.tables[table]
        assert restored.trait == (stored or "vengeful")
        assert restored.summary().trait == restored.trait
    finally:
        await again.close()
