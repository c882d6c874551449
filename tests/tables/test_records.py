"""A finished game's record over the protocol (`record`), in parts that each fit a frame,
and `gother replay URL --table ID` fetching it: the same record `gother export` writes."""

from __future__ import annotations

import asyncio

import msgpack
import msgspec
import pytest

from gother_tui.core.record import RecordError, fetch_record, parse_record
from protocol import MAX_FRAME
from protocol.constants import RECORD_PART
from server.tables.export import game_record
from tests.kits.netkit import Client, close_all, play_to_end
from tests.kits.prockit import run_cli


async def finished_table(url: str, **create: object) -> tuple[str, Client]:
    """A game of one network player and two bots, played to the end; the player stays."""
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Done", seats=3, bots=2, **create))["table"]
    await host.close()
    player = await Client.connect(url, "Player")
    joined = await player.request("join", table=table, seat=0, **create)
    assert joined["t"] == "joined", joined
    await play_to_end(player)
    return table, player


async def test_a_finished_games_record_comes_in_parts_and_is_the_exported_record(server, url):
    table, player = await finished_table(url)
    watcher = await Client.connect(url, "Watcher")  # not at the table: as for watching
    parts = []
    first = await watcher.request("record", table=table)
    assert first["t"] == "record" and first["game"] == 1 and first["part"] == 0, first
    parts.append(first["data"])
    for part in range(1, first["parts"]):
        reply = await watcher.request("record", table=table, part=part)
        assert reply["part"] == part and reply["parts"] == first["parts"]
        parts.append(reply["data"])
    assert all(len(p) <= RECORD_PART for p in parts)
    assert all(len(raw) < MAX_FRAME for raw in watcher.raw)
    assert first["parts"] > 1  # a whole game is larger than one frame
    assert b"".join(parts) == msgspec.msgpack.encode(game_record(server.store.tables, table))
    fetched = msgpack.unpackb(b"".join(parts))
    assert parse_record(fetched).views[-1].phase == "over"
    beyond = await watcher.request("record", table=table, part=first["parts"])
    assert beyond["t"] == "error" and beyond["code"] == "no_record"
    await close_all(player, watcher)


async def test_no_record_of_a_game_in_progress_and_none_of_a_private_table(server, url):
    host = await Client.connect(url, "Host")
    running = (await host.request("create", name="Live", seats=3, bots=3))["table"]
    await host.request("watch", table=running)
    await host.state(lambda v: v["phase"] != "lobby")
    reply = await host.request("record", table=running)
    assert reply["t"] == "error" and reply["code"] == "no_record", reply  # hands are secret
    assert "not over" in reply["message"]
    private, player = await finished_table(url, password="hunter2")
    stranger = await Client.connect(url, "Stranger")
    refused = await stranger.request("record", table=private)
    assert refused["t"] == "error" and refused["code"] == "no_spectators", refused
    assert (await player.request("record", table=private))["t"] == "record"  # a player may
    missing = await stranger.request("record", table="nosuch")
    assert missing["t"] == "error" and missing["code"] == "no_such_table"
    await close_all(host, player, stranger)


async def test_gother_replay_fetches_the_record_from_the_server(server, url):
    table, player = await finished_table(url)
    record = await asyncio.to_thread(fetch_record, url, table)
    assert record.views[-1].phase == "over" and len(record.moves) == len(record.views) - 1
    assert record.views == game_record(server.store.tables, table).views
    with pytest.raises(RecordError, match="no table"):
        await asyncio.to_thread(fetch_record, url, "nosuch")
    await player.close()


async def test_gother_replay_from_a_server_says_what_is_wrong_in_one_line(server, url):
    code, _, err = await run_cli("replay", url)
    assert code == 2 and "needs --table" in err
    code, _, err = await run_cli("replay", url, "--table", "nosuch")
    assert code == 2 and err.strip() == f"gother replay: {url}: there is no table 'nosuch'"
