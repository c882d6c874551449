"""A real `gother serve` process, killed and restarted: games survive on the database.

The server is the installed console script in a subprocess; its port (it listens on port 0)
comes from its "listening on ws://127.0.0.1:PORT" log line. Nothing here sleeps to
synchronise: every wait is for a message, a state or the process's exit.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from server.game import Game, default_deck
from server.store.sqlite import SqliteStore
from server.tables.export import game_record
from tests.kits.netkit import TIMEOUT, Client
from tests.kits.playkit import at_least, drive, newest
from tests.kits.prockit import ServerProcess, run_cli

KILL_AFTER = 40  # moves; first-legal-move games with 4 players last 49-360 moves


@pytest.fixture
async def spawn():
    """Start `gother serve` processes; every one is killed and reaped at the end."""
    started: list[ServerProcess] = []

    async def start(*args: str) -> ServerProcess:
        server = await ServerProcess.start(*args)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            await server.stop()


def without_presence(view: dict[str, Any]) -> dict[str, Any]:
    """A view with the seats' `connected` flags blanked: they say who is online right now,
    which a restart changes (everyone is away until they resume); the game is the rest."""
    view = copy.deepcopy(view)
    for player in view["players"]:
        player["connected"] = None
    return view


def all_back(message: dict[str, Any]) -> bool:
    return all(p["connected"] for p in message["view"]["players"])


async def closed(client: Client) -> int | None:
    """Wait until the server has closed this client's connection; its close code."""
    await asyncio.wait_for(client._reader, TIMEOUT)
    return client.ws.close_code


async def resume_all(
    url: str, names: list[str], tokens: list[str]
) -> tuple[list[Client], list[dict[str, Any]]]:
    """Resume every seat, one after the other; the clients and the first view each got."""
    clients, views = [], []
    for seat, (name, token) in enumerate(zip(names, tokens, strict=True)):
        client = await Client.connect(url, name)
        joined = await client.request("resume", token=token)
        assert joined["t"] == "joined", joined
        assert joined["seat"] == seat and len(joined["cards"]) == 55
        clients.append(client)
        views.append((await client.next(lambda m: m["t"] == "state"))["view"])
    return clients, views


async def test_kill_9_mid_game_then_restart_loses_no_move(spawn, tmp_path):
    db = str(tmp_path / "g.db")
    first = await spawn("--db", db, "--bot-delay", "0")
    host = await Client.connect(first.url, "Host")
    table = (await host.request("create", name="Crypt", seats=4, bots=0))["table"]
    names = [f"P{i}" for i in range(4)]
    players, tokens = [], []
    for seat, name in enumerate(names):
        client = await Client.connect(first.url, name)
        joined = await client.request("join", table=table, seat=seat)
        assert joined["t"] == "joined", joined
        players.append(client)
        tokens.append(joined["token"])
    seated = dict(enumerate(players))

    # about a third of a game, stopping in the middle of someone's turn (drawing)
    last, acked = await drive(seated, lambda m, n: n >= KILL_AFTER and m["view"]["phase"] == "draw")
    assert last["view"]["phase"] == "draw"
    before = [(await newest(p, at_least(last["seq"])))["view"] for p in players]
    assert all(p["connected"] for v in before for p in v["players"])
    await first.kill()
    for client in (host, *players):
        assert await closed(client) == 1006  # no closing handshake: the process just died

    second = await spawn("--db", db, "--bot-delay", "0")
    restored, first_views = await resume_all(second.url, names, tokens)
    for seat, first_view in enumerate(first_views):
        # the state right after `joined`: the same game, whoever is back so far
        assert without_presence(first_view) == without_presence(before[seat])
        assert first_view["players"][seat]["connected"] is True
    for seat, client in enumerate(restored):
        # once all four are back, the whole view is what that seat saw before the kill;
        # only `seq` restarts (it counts a table's changes since the server started)
        view = (await newest(client, all_back))["view"]
        assert view == before[seat]

    final, more = await drive(dict(enumerate(restored)), lambda m, n: m["view"]["phase"] == "over")
    assert final["view"]["winner"], final["view"]["winner"]
    acked += more
    for client in restored:
        assert (await newest(client, lambda m: m["view"]["phase"] == "over"))["view"]["winner"] == (
            final["view"]["winner"]
        )
        await client.close()
    await host.close()
    assert await second.terminate() == 0

    # every move a client was told about is on the database, in order, and replays
    store = SqliteStore(db)
    try:
        record = game_record(store.tables, table)
    finally:
        store.close()
    assert len(record.moves) == acked
    game = Game.replay(default_deck(), 4, record.seed, record.moves, record.variants)
    assert game.over and list(game.winners or ()) == final["view"]["winner"]


async def test_sigterm_closes_connections_with_1012_and_exits_0(spawn, tmp_path):
    db = str(tmp_path / "g.db")
    first = await spawn("--db", db, "--bot-delay", "0")
    host = await Client.connect(first.url, "Host")
    table = (await host.request("create", name="Vault", seats=3, bots=0))["table"]
    players, tokens = [], []
    for seat in range(3):
        client = await Client.connect(first.url, f"P{seat}")
        joined = await client.request("join", table=table, seat=seat)
        players.append(client)
        tokens.append(joined["token"])
    last, _ = await drive(dict(enumerate(players)), lambda m, n: n >= 5)
    before = [(await newest(p, at_least(last["seq"])))["view"] for p in players]

    assert await first.terminate() == 0
    for client in (host, *players):
        assert await closed(client) == 1012
    assert "server stopped" in first.stderr
    assert "Traceback" not in first.stderr

    second = await spawn("--db", db, "--bot-delay", "0")
    lister = await Client.connect(second.url, "Lister")
    listing = (await lister.request("list"))["tables"]
    assert [(t["id"], t["seated"], t["phase"]) for t in listing] == [(table, 3, before[0]["phase"])]
    restored, _ = await resume_all(second.url, [f"P{s}" for s in range(3)], tokens)
    for seat, client in enumerate(restored):
        view = (await newest(client, all_back))["view"]
        assert view == before[seat]
    for client in restored:
        await client.close()
    await lister.close()


async def test_bot_table_plays_on_after_a_restart(spawn, tmp_path):
    """Nobody can resume a table of bots: the restarted server must drive it by itself."""
    db = str(tmp_path / "g.db")
    first = await spawn("--db", db, "--bot-delay", "0.02")
    host = await Client.connect(first.url, "Host")
    table = (await host.request("create", name="Bots", seats=3, bots=3))["table"]
    assert (await host.request("watch", table=table))["t"] == "watching"
    await host.state(lambda v: v["round"] >= 2)  # mid-game
    await first.kill()

    second = await spawn("--db", db, "--bot-delay", "0.02")
    watcher = await Client.connect(second.url, "Watcher")
    assert (await watcher.request("watch", table=table))["t"] == "watching"
    restored = (await newest(watcher))["view"]
    assert restored["round"] >= 2
    if restored["phase"] != "over":  # a stalled table would time out here
        restored = await watcher.state(lambda v: v["phase"] == "over")
    assert restored["winner"]
    await watcher.close()
    await host.close()


async def test_absent_players_are_covered_after_a_restart(spawn, tmp_path):
    """After a restart everyone is away; past the grace period the game goes on."""
    db = str(tmp_path / "g.db")
    first = await spawn("--db", db, "--bot-delay", "0", "--grace", "0.2")
    host = await Client.connect(first.url, "Host")
    table = (await host.request("create", name="Gone", seats=3, bots=0))["table"]
    for seat in range(3):
        client = await Client.connect(first.url, f"P{seat}")
        assert (await client.request("join", table=table, seat=seat))["t"] == "joined"
    await host.request("watch", table=table)
    await host.state(lambda v: v["phase"] != "lobby")
    await first.kill()

    second = await spawn("--db", db, "--bot-delay", "0", "--grace", "0.2")
    watcher = await Client.connect(second.url, "Watcher")
    assert (await watcher.request("watch", table=table))["t"] == "watching"
    view = await watcher.state(lambda v: v["turn"] != 0)  # seat 0's first turn got played
    assert view["players"][0]["covered"] is True
    assert not any(p["connected"] for p in view["players"])
    await watcher.close()
    await host.close()


async def test_bad_database_is_a_clean_error(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    for db in (str(garbage), str(tmp_path / "missing" / "g.db")):
        code, _, err = await run_cli("serve", "--host", "127.0.0.1", "--port", "0", "--db", db)
        assert code == 1, err
        assert "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith("gother serve: "), err
