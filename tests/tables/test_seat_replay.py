"""A seat's own replay: the `record` asked with `seat` carries `seen`, that seat's view after
the deal and after every move, and those are the frames the seat received live (compared
view by view over several recorded games, lobby facts aside: who was a bot, who was
connected, how many watched are the table's, not the game's)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import msgspec
import pytest

from gother_tui.core.fetch import RATE_LIMITED_WAIT
from gother_tui.core.record import fetch_record
from protocol.constants import RECORD_PART
from protocol.view import SeatInfo
from server.tables.export import game_record
from tests.kits.netkit import Client, close_all, play_to_end

LOBBY_FACTS = {f.name for f in msgspec.structs.fields(SeatInfo)} - {"seat"}
GAMES = [  # (seats, the player's seat, variants): every seat count, first seat and others
    (3, 0, {}),
    (4, 2, {"fate_discard": "top"}),
    (5, 4, {"overflow": "immediate"}),
    (3, 1, {"fate_discard": "top", "overflow": "immediate"}),
]
# records made back to back, and moves as fast as replies come (a quiet machine outruns
# the per-connection rate limit): a busy server's budgets are not what is tested here
UNBOUNDED = {
    "record_share": 1.0,
    "record_burst": 60.0,
    "costly_burst": 10_000.0,
    "rate": 1e6,
    "burst": 1e6,
}


def game_facts(view: dict[str, Any]) -> dict[str, Any]:
    """A view without its lobby facts: what the game showed the seat."""
    players = [{k: v for k, v in p.items() if k not in LOBBY_FACTS} for p in view["players"]]
    return {**{k: v for k, v in view.items() if k != "table"}, "players": players}


async def record_parts(client: Client, **request: Any) -> dict[str, Any]:
    first = await client.request("record", **request)
    assert first["t"] == "record", first
    parts = [first["data"]]
    for part in range(1, first["parts"]):
        parts.append((await client.request("record", part=part, **request))["data"])
    assert first.get("seat") == request.get("seat")  # left out when not asked
    return msgpack.unpackb(b"".join(parts))  # type: ignore[no-any-return]


async def played(url: str, seats: int, seat: int, variants: dict[str, str]) -> tuple[str, Client]:
    """A game of one network player at `seat` and bots, played to the end; the player stays
    (every frame it received is in `received`)."""
    host = await Client.connect(url, "Host")
    created = await host.request("create", name="Kept", seats=seats, bots=0, variants=variants)
    table = created["table"]
    joined = await host.request("join", table=table, seat=seat)
    assert joined["t"] == "joined" and joined["seat"] == seat, joined
    started = await host.request("start")  # bots take the other seats
    assert started["t"] == "state", started
    await play_to_end(host)
    return table, host


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
@pytest.mark.parametrize(("seats", "seat", "variants"), GAMES)
async def test_a_seats_replay_is_the_frames_it_received_live(server, url, seats, seat, variants):
    table, player = await played(url, seats, seat, variants)
    live = [m["view"] for m in player.states() if m["view"]["phase"] != "lobby"]
    told: list[dict[str, Any]] = []
    for view in map(game_facts, live):  # a lobby change (a bot, a watcher) repeats the game
        if not told or told[-1] != view:
            told.append(view)
    record = await record_parts(player, table=table, seat=seat)
    assert record["seat"] == seat and len(record["seen"]) == len(record["views"])
    assert [game_facts(v) for v in record["seen"]] == told
    assert all(v["you"]["seat"] == seat for v in record["seen"])
    before_end = record["seen"][:-1]
    others = [p for v in before_end for p in v["players"] if p["seat"] != seat]
    assert others and all(p.get("hand") is None for p in others)  # no spoilers
    assert all(v.get("reveal") is None for v in before_end)
    assert record["seen"][-1]["reveal"] == record["views"][-1]["reveal"]  # the end shows all
    fetched = await asyncio.to_thread(fetch_record, url, table, seat=seat)
    assert fetched.seat == seat and fetched.seen is not None
    assert [v.to_wire() for v in fetched.seen] == record["seen"]
    await close_all(player)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_seats_record_is_kept_apart_and_a_seat_not_at_the_table_is_refused(server, url):
    table, player = await played(url, 3, 0, {})
    plain = await record_parts(player, table=table)
    assert "seen" not in plain and "seat" not in plain  # an old client's record is unchanged
    seen_by_1 = await record_parts(player, table=table, seat=1)
    assert seen_by_1["views"] == plain["views"] and seen_by_1["seat"] == 1
    assert seen_by_1["seen"][0]["you"]["seat"] == 1
    friend = await Client.connect(url, "Friend")  # a budget of its own for dear requests
    refused = await friend.request("record", table=table, seat=3)
    assert refused["t"] == "error" and refused["code"] == "no_record", refused
    assert refused["message"].endswith("has only 3 seats")
    bad = await friend.request("record", table=table, seat="two")
    assert bad["t"] == "error" and bad["code"] == "bad_message", bad
    assert await record_parts(friend, table=table) == plain  # nothing changed
    await close_all(player, friend)


# a connection's budget for dear requests smaller than a seat's record costs, slow to refill:
# the second part is refused unless a whole second passed since the build (a busy machine
# once took the quarter second a faster refill left)
SMALL_BUDGET = {**UNBOUNDED, "costly_burst": 25.0, "costly_rate": 5.0}


@pytest.mark.parametrize("config", [SMALL_BUDGET], indirect=True)
async def test_a_long_record_is_fetched_whole_past_the_askers_budget(server, url, monkeypatch):
    table, player = await played(url, 3, 0, {})
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float, *args: Any) -> Any:
        if seconds == RATE_LIMITED_WAIT:  # the fetch's wait after a refusal (not a poll)
            waits.append(seconds)
        return await real_sleep(seconds, *args)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    fetched = await asyncio.to_thread(fetch_record, url, table, seat=0)
    assert waits, "never refused: the budget was not outrun"
    expected = game_record(server.store.tables, table, seat=0)
    parts = -(-len(msgspec.msgpack.encode(expected)) // RECORD_PART)
    assert 20 + 2 * parts > 25  # a build and its parts cost more than the budget holds
    assert fetched.seen == expected.seen
    await close_all(player)
