"""Play on from here over a real server: `play_on` makes a new table of the asker's, its
seat and bots elsewhere, whose game starts where that seat was at that turn, as it knew it;
it is refused in words (no such game, turn, seat; quotas), and it survives a restart."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgpack
import msgspec
import pytest

from gother_tui.core.record import parse_record
from server.edge.app import GotherServer
from server.game import REFEREE
from server.store.database import StoreError
from server.tables.export import game_record
from tests.bots.test_searches import frozen, the_worker
from tests.kits.netkit import Client, close_all, first_legal_move, play_to_end
from tests.kits.poll import until
from tests.tables.test_seat_replay import UNBOUNDED, played, record_parts


def knowledge(view: dict[str, Any]) -> dict[str, Any]:
    """What a seat knows of a position: the game's facts of its view, not the lobby's, the
    log's or the name of the table."""
    players = [
        {k: p[k] for k in ("seat", "hand_count", "fate", "known_hand", "scores")}
        for p in view["players"]
    ]
    kept = ("you", "discard", "deck_count", "turn", "dealer", "round", "phase", "legal")
    return {**{k: view[k] for k in kept}, "players": players}


def without_presence(view: dict[str, Any]) -> dict[str, Any]:
    """A referee's view without who is connected (a restart sends everyone away) and who
    is a bot and its trait (lobby facts, which an export does not keep)."""
    players = [
        {**p, "connected": None, "covered": None, "bot": None, "trait": None}
        for p in view["players"]
    ]
    return {**view, "players": players, "log": None, "log_start": None}


async def seen_at(client: Client, table: str, seat: int, turn: int) -> dict[str, Any]:
    """The view `seat` had as turn `turn` of the table's finished game began."""
    record = await record_parts(client, table=table, seat=seat)
    return record["seen"][parse_record(record).turn_position(turn)]  # type: ignore[no-any-return]


async def played_on(client: Client, **request: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """`play_on`'s `joined`, and the first view of the game it starts."""
    joined = await client.request("play_on", **request)
    assert joined["t"] == "joined", joined
    first = await client.state(
        lambda v: v["table"]["id"] == joined["table"] and v["phase"] != "lobby"
    )
    return joined, first


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_played_on_game_starts_where_the_seat_was_as_it_knew_it(server, url):
    table, player = await played(url, 4, 2, {"fate_discard": "top"})
    then = await seen_at(player, table, 1, 5)
    standings = await player.request("standings")  # the one game played for real
    joined, first = await played_on(player, table=table, seat=1, turn=5)
    assert joined["seat"] == 1 and joined["table"] != table and len(joined["cards"]) == 55
    assert knowledge(first) == knowledge(then)
    assert first["table"]["variants"] == then["table"]["variants"]
    assert first["table"]["name"].endswith(", turn 5")
    seats = first["players"]
    assert [p["bot"] for p in seats] == [True, False, True, True]  # bots in the other seats
    final = await play_to_end(player)
    assert final["phase"] == "over"
    assert server.store.outcomes.outcome(joined["table"], 1) is not None  # over, and kept
    record = await record_parts(player, table=joined["table"], seat=1)
    assert knowledge(record["seen"][0]) == knowledge(then)  # its record begins there too
    assert record["start"] is not None and record["game"] == 1
    # practice counts nowhere: not its game, nor the table's rematch (issue 29 §4)
    assert (await player.request("standings"))["rows"] == standings["rows"]
    assert (await player.request("rematch"))["t"] == "state"
    await play_to_end(player, game=2)
    assert (await player.request("standings"))["rows"] == standings["rows"]
    await close_all(player)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_play_on_is_refused_in_words_and_changes_nothing(server, url):
    table, player = await played(url, 3, 0, {})
    before = set(server.lobby.tables)
    asks = [
        ({"table": "nosuch", "seat": 0, "turn": 1}, "no_such_table", "no table"),
        ({"table": table, "seat": 3, "turn": 1}, "no_such_seat", "seats 0-2"),
        ({"table": table, "seat": 0, "turn": 9999}, "no_such_turn", "the game has turns 1-"),
        ({"table": table, "seat": 0, "turn": 1, "game": 2}, "no_record", "not over"),
        ({"table": table, "seat": 0, "turn": 0}, "bad_message", "turn"),
        ({"table": table, "seat": 0, "turn": 1, "bot": "grandmaster"}, "bad_message", "bot"),
    ]
    for request, code, words in asks:
        refused = await player.request("play_on", **request)
        assert refused["t"] == "error" and refused["code"] == code, (request, refused)
        assert words in refused["message"], refused
    assert set(server.lobby.tables) == before
    await close_all(player)


# one seat a connection in games not over: a played-on seat is one more
@pytest.mark.parametrize("config", [{**UNBOUNDED, "seats_per_connection": 1}], indirect=True)
async def test_a_played_on_seat_counts_against_the_askers_seat_quota(server, url):
    table, player = await played(url, 3, 0, {})
    busy = await Client.connect(url, "Busy")
    created = await busy.request("create", name="Open", seats=3, bots=2)
    joined = await busy.request("join", table=created["table"])  # a game not over: its seat
    assert joined["t"] == "joined", joined
    refused = await busy.request("play_on", table=table, seat=0, turn=1)
    assert refused["t"] == "error" and refused["code"] == "too_many_seats", refused
    await close_all(player, busy)


# one table a connection: the second is refused as a second `create` would be
@pytest.mark.parametrize("config", [{**UNBOUNDED, "tables_per_connection": 1}], indirect=True)
async def test_a_played_on_table_counts_against_the_askers_table_quota(server, url):
    table, player = await played(url, 3, 0, {})  # its own table is its one
    refused = await player.request("play_on", table=table, seat=0, turn=2)
    assert refused["t"] == "error" and refused["code"] == "too_many_tables", refused
    friend = await Client.connect(url, "Friend")
    joined, _ = await played_on(friend, table=table, seat=2, turn=2)
    assert joined["seat"] == 2
    await close_all(player, friend)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_played_on_table_survives_a_restart_and_replays_exactly(server, url, config):
    table, player = await played(url, 3, 0, {"overflow": "immediate"})
    joined, first = await played_on(player, table=table, seat=0, turn=4)
    for _ in range(3):  # a few moves of its own, then the server goes down
        view = player.latest_view()
        if view["legal"] is None:
            view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
        if view["phase"] == "over":
            break
        moved = await player.request("move", move=first_legal_move(view["legal"]))
        assert moved["t"] == "state", moved
    new = joined["table"]
    await player.close()
    await server.close()  # bots play on until then: the truth is the table as it closed
    truth = server.lobby.tables[new].wire_view(REFEREE).to_wire()
    again = GotherServer(config)
    await again.start()
    try:
        assert new not in again.lobby.broken
        restored = again.lobby.tables[new].wire_view(REFEREE).to_wire()
        assert without_presence(restored) == without_presence(truth)  # every card where it was
        record = game_record(again.store.tables, new, seat=0)  # the host's export replays it too
        exported = msgpack.unpackb(msgspec.msgpack.encode(record))
        assert knowledge(exported["seen"][0]) == knowledge(first)
        assert without_presence(exported["views"][-1]) == without_presence(
            {**truth, "table": exported["views"][-1]["table"]}
        )
    finally:
        await again.close()


@pytest.mark.parametrize("config", [{**UNBOUNDED, "search_workers": 1}], indirect=True)
async def test_one_play_on_at_a_time_a_connection_and_none_for_one_gone(server, url):
    """While a connection's play on is being sampled, its next is refused; one whose asker
    left meanwhile makes no table."""
    table, player = await played(url, 3, 0, {})
    server.searches.spawn_all()
    other = await Client.connect(url, "Other")
    before = set(server.lobby.tables)
    with frozen(the_worker(server.searches)):
        rid = await player.send("play_on", table=table, seat=0, turn=2)
        await until("a play-on asked", lambda: server.play_ons.asking)
        again = await player.request("play_on", table=table, seat=0, turn=3)
        assert again["t"] == "error" and again["code"] == "rate_limited", again
        await other.send("play_on", table=table, seat=1, turn=2)
        await until("two play-ons asked", lambda: len(server.play_ons.asking) == 2)
        await other.close()  # gone before its game is sampled
    joined = await player.next(lambda m: m.get("rid") == rid)
    assert joined["t"] == "joined", joined
    await until("no play-on asked", lambda: not server.play_ons.asking)
    assert len(set(server.lobby.tables) - before) == 1  # the player's only
    await close_all(player)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_played_on_table_whose_start_cannot_be_read_is_quarantined(server, url, config):
    table, player = await played(url, 3, 0, {})
    joined, _ = await played_on(player, table=table, seat=0, turn=2)
    new = joined["table"]
    await player.close()
    await server.close()
    db = sqlite3.connect(config.db)
    with db:
        db.execute("UPDATE games SET start = '{\"hands\": 3}' WHERE table_id = ?", (new,))
    db.close()
    again = GotherServer(config)
    await again.start()
    try:
        assert new not in again.lobby.tables and table in again.lobby.tables
        assert "start's hands is not a list of piles" in again.lobby.broken[new].problem
    finally:
        await again.close()


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_played_on_table_that_cannot_deal_answers_once(server, url, monkeypatch):
    """The asker is seated (`joined` answers its request) and then the deal's write fails:
    the table stops and says so, and the request has no second answer (an `error` with the
    same rid came after the `joined`)."""
    table, player = await played(url, 3, 2, {})

    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise StoreError("database or disk is full")

    monkeypatch.setattr(server.store.tables, "start_game", full_disk)
    rid = await player.send("play_on", table=table, seat=0, turn=2)
    joined = await player.next(lambda m: m.get("rid") == rid)
    assert joined["t"] == "joined", joined
    stopped = await player.state(lambda v: v["table"]["id"] == joined["table"])
    while "stopped" not in stopped["table"]:
        stopped = await player.state(lambda v: v["table"]["id"] == joined["table"])
    assert stopped["phase"] == "lobby"
    await player.request("list")  # every frame sent before this answer is in
    assert [m["t"] for m in player.received if m.get("rid") == rid] == ["joined"]
    await close_all(player)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_a_played_on_table_s_first_state_is_its_position(server, url):
    """After `joined`, the new table's first `state` is the game begun at the turn asked
    (an empty lobby's came first, seats and all, as if nobody were dealt in yet)."""
    table, player = await played(url, 3, 2, {})
    joined = await player.request("play_on", table=table, seat=0, turn=2)
    assert joined["t"] == "joined", joined
    first = await player.next(lambda m: m["t"] == "state")
    assert first["view"]["table"]["id"] == joined["table"]
    assert first["view"]["phase"] != "lobby", first["view"]["phase"]
    await close_all(player)
