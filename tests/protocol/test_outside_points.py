"""The outside client of test_outside_client.py, on the points where an outside client
written from docs/protocol.md alone once found the server doing something else (issue 31
§5): each is checked here as the document says it now, over a real `gother serve` process,
with `websockets`, `msgpack` and a signature library only."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.kits.prockit import ServerProcess
from tests.protocol.test_outside_client import Probe, new_table, play, sit

PROVE = b"gother prove v1\n"  # docs/protocol.md, prove
NOT_A_POINT = b"k" * 32  # 32 bytes that decode to no point of Ed25519


@pytest.fixture
async def serve(tmp_path) -> AsyncIterator[Any]:
    """`gother serve` with the options a test gives (bots move at once)."""
    servers: list[ServerProcess] = []

    async def start(*options: str) -> str:
        db = str(tmp_path / f"games{len(servers)}.db")
        server = await ServerProcess.start(
            "--db", db, "--bot-delay", "0", "--no-announce", *options
        )
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        await server.stop()


async def proved(url: str, name: str, key: Ed25519PrivateKey) -> tuple[Probe, dict[str, Any]]:
    """A connection that named `key` in hello and proved it; the `proven` reply."""
    probe = await Probe.open(url)
    welcome = await probe.ask("hello", v=1, name=name, key=key.public_key().public_bytes_raw())
    assert welcome["t"] == "welcome" and len(welcome["challenge"]) == 32, welcome
    proven = await probe.ask("prove", signature=key.sign(PROVE + welcome["challenge"]))
    assert proven["t"] == "proven", proven
    return probe, proven


async def healthz(url: str) -> dict[str, Any]:
    host, port = url.removeprefix("ws://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
    length = int(head.split("content-length:")[1].split("\r\n")[0])
    body = await reader.readexactly(length)
    writer.close()
    return json.loads(body)  # type: ignore[no-any-return]


async def test_identities_and_names_as_documented(serve):
    """`proven` always says `seats` (empty too); a key that is no Ed25519 point is refused
    at hello; a name another identity owns (a game played to its end under it) is refused at
    hello, with a key or without."""
    url = await serve()
    owner_key = Ed25519PrivateKey.generate()
    owner, proven = await proved(url, "Owner", owner_key)
    assert proven["seats"] == [] and isinstance(proven["identity"], str)
    table = await new_table(owner, variants={"round_cap": 1})
    await sit(owner, table)
    assert (await play(owner, table))["phase"] == "over"  # the name is hers from now on
    back, proven = await proved(url, "Owner", owner_key)  # on a new connection
    assert proven["seats"] == [{"table": table, "seat": 0}]

    stranger = await Probe.open(url)
    await stranger.refused("bad_message", "hello", v=1, name="Stranger", key=NOT_A_POINT)
    for key in (Ed25519PrivateKey.generate().public_key().public_bytes_raw(), None):
        other = await Probe.open(url)
        fields = {} if key is None else {"key": key}
        reply = await other.refused("name_taken", "hello", v=1, name="OWNER", **fields)
        assert "belongs to another player" in reply["message"]
        await other.close()
    for probe in (owner, back, stranger):
        await probe.close()


async def test_lobby_seats_count_in_the_seat_quota(serve):
    url = await serve("--seats-per-connection", "1")
    probe = await Probe.open(url, "Lydia")
    first, second = await new_table(probe, bots=0), await new_table(probe, bots=0)
    await sit(probe, first)  # in the lobby: not dealt
    await probe.refused("too_many_seats", "join", table=second)
    await probe.close()


async def test_finished_games_as_documented(serve):
    """no_such_table for record, review and play_on of a table that never was; a played-on
    table's first `state` is its position; a story for a finished game, from its first
    turn; every seat's record fetched without a refusal; standings' reference bots."""
    url = await serve()
    probe = await Probe.open(url, "Lydia")
    table = await new_table(probe, variants={"round_cap": 2})
    await sit(probe, table)
    final = await play(probe, table)
    assert final["phase"] == "over"
    await probe.refused("no_such_table", "record", table="never")
    await probe.refused("no_such_table", "review", table="never", seat=0)
    await probe.refused("no_such_table", "play_on", table="never", seat=0, turn=1)

    for seat in range(3):  # each seat's replay: within a fresh connection's budget
        first = await probe.ask("record", table=table, seat=seat)
        assert first["t"] == "record" and first["seat"] == seat, first
        for part in range(1, first["parts"]):
            reply = await probe.ask("record", table=table, seat=seat, part=part)
            assert reply["t"] == "record", reply

    watcher = await Probe.open(url, "Wendy")
    watching = await watcher.ask("watch", table=table)
    assert watching["t"] == "watching" and watching["cards"]
    state = await watcher.wait(lambda f: f["t"] == "state")
    told = watcher.frames[watcher.frames.index(watching) + 1 : watcher.frames.index(state)]
    story = [f for f in told if f["t"] == "story"]  # the game is over: its story all the same
    assert story and story[0]["start"] == 0 and story[0]["log"][0]["kind"] == "turn"
    assert story[-1]["log"][-1]["kind"] == "over"

    start = len(probe.frames)
    joined = await probe.ask("play_on", table=table, seat=0, turn=2)
    assert joined["t"] == "joined" and joined["table"] != table, joined
    first = await probe.wait(lambda f: f["t"] == "state", start)
    assert first["view"]["table"]["id"] == joined["table"]
    assert first["view"]["phase"] != "lobby"  # the position, not an empty lobby first

    standings = await probe.ask("standings", offset=0)
    assert standings["t"] == "standings", standings
    references = [row for row in standings["rows"] if row["reference"]]
    assert references and all(row["sigma"] == 1 for row in references), standings["rows"]
    empty = await probe.ask("standings", offset=1_000_000)
    assert empty["rows"] == [] and empty["offset"] == 1_000_000
    await probe.refused("bad_message", "standings", offset=1_000_001)
    for client in (probe, watcher):
        await client.close()


async def test_a_pause_as_documented(serve):
    """A player back after a pause they never agreed to ends it by going on; a pause its
    only player leaves ends, and the bots play on."""
    url = await serve("--grace", "0.3")
    lydia, raven = await Probe.open(url, "Lydia"), await Probe.open(url, "Raven")
    table = await new_table(lydia, bots=1)
    await sit(lydia, table)
    joined = await sit(raven, table)  # full: dealt
    await lydia.state(table, lambda v: v["phase"] != "lobby")
    await raven.close()  # away; past the grace she no longer votes
    await lydia.state(table, lambda v: not v["players"][1]["connected"])
    await asyncio.sleep(0.5)  # the grace (0.3 s) runs out: nothing to wait on but time
    paused = await lydia.ask("pause", on=True)
    assert paused["view"]["table"].get("paused") is True, paused["view"]["table"]
    raven = await Probe.open(url, "Raven")
    assert (await raven.ask("resume", token=joined["token"]))["t"] == "joined"
    going = await raven.ask("pause", on=False)
    assert not going["view"]["table"].get("paused"), going["view"]["table"]

    alone = await Probe.open(url, "Alone")
    table = await new_table(alone, bots=2)
    await sit(alone, table)
    view = await alone.state(table, lambda v: v["phase"] != "lobby")
    assert (await alone.ask("pause", on=True))["view"]["table"]["paused"] is True
    await alone.ask("leave")
    seen = await alone.ask("watch", table=table)
    assert seen["t"] == "watching"
    moved = await alone.state(table, lambda v: v["log"] != view["log"] or v["phase"] == "over")
    assert not moved["table"].get("paused")
    for probe in (lydia, raven, alone):
        await probe.close()


async def test_a_short_idle_time_warns_halfway(serve):
    url = await serve("--idle", "2")
    probe = await Probe.open(url, "Lydia")
    table = await new_table(probe)
    await sit(probe, table)
    view = await probe.state(table, lambda v: v["table"].get("warning") is not None)
    warning = view["table"]["warning"]
    assert warning["seat"] == 0 and 0 < warning["seconds"] <= 1  # halfway through 2 s
    await probe.close()


async def test_tournament_create_without_a_password_is_a_wrong_password(serve):
    url = await serve("--tournament-password", "night")
    probe = await Probe.open(url, "Lydia")
    await probe.refused("wrong_password", "tournament_create", name="Night", rounds=1, seats=3)
    made = await probe.ask("tournament_create", name="Night", rounds=1, seats=3, password="night")
    assert made["t"] == "tournament" and made["phase"] == "registering", made
    await probe.close()


async def test_healthz_moves_count_every_move(serve):
    url = await serve()
    probe = await Probe.open(url, "Lydia")
    table = await new_table(probe, bots=3, variants={"round_cap": 1})
    await probe.ask("watch", table=table)
    await probe.state(table, lambda v: v["phase"] == "over")
    record = await probe.ask("record", table=table)
    moves = len(msgpack.unpackb(record["data"])["moves"])
    assert (await healthz(url))["moves"] == moves > 0  # the bots' moves, every one
    await probe.close()
