"""A tournament round's tables spread over a host's processes (issue 34 §2): real servers on
127.0.0.1 sharing one PostgreSQL. A round's tables whose players proved identities are
placed at the processes holding the fewest tables, made there with their seats held by
identity, and the runner hears each table's end through
PostgreSQL, scores it from the stored outcome, and seats the next round."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import requests as rq
from protocol.view import Variants
from server.store.directory import PostgresDirectory
from server.store.kinds import open_store
from server.store.postgres_database import PostgresDatabase
from server.store.tournaments import TournamentRecord
from server.tournament import spread
from tests.edge.test_identity import proven
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until as until_true
from tests.kits.tournamentkit import LEAVE, SHORT, until
from tests.store.test_postgres import psql
from tests.store.test_tournaments_across import host

pytestmark = pytest.mark.usefixtures("postgres")
__all__ = ["host"]  # the fixture: servers on one PostgreSQL


async def night(url: str, rounds: int) -> tuple[Client, str, list[Client]]:
    """A tournament of three-seat tables made at `url` by its organiser, and four players
    who proved identities registered in it: (organiser, its id, the players)."""
    organiser = await Client.connect(url, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=rounds, seats=3, variants=SHORT)
    )
    players = []
    for name in ("Ann", "Bea", "Cid", "Dee"):
        client, _ = await proven(url, name, Ed25519PrivateKey.generate())
        reply = await client.ask(rq.TournamentJoin(tournament=created["id"]))
        assert reply["t"] == "tournament", reply
        players.append(client)
    return organiser, created["id"], players


async def test_a_round_of_players_away_is_placed_at_the_other_process_and_heard_ending(
    host, pg_url, tmp_path
):
    one = await host("one", grace=0.2)  # players away: bots cover them at once
    await host("two", grace=0.2)
    organiser, tournament, players = await night(one, rounds=3)
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1)
    await close_all(*players)  # all away from now: the rounds to come are placed

    final = await until(organiser, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    frames = [m for m in organiser.received if m["t"] == "tournament"]
    rounds = [[f for f in frames if f["round"] == r][-1]["tables"] for r in (1, 2, 3)]
    logs = dict(psql(pg_url, "SELECT id, log FROM tables"))
    at = {str(tmp_path / f"{name}.db"): name for name in ("one", "two")}
    where = [sorted(at[str(logs[t["table"]]).split(":", 1)[1]] for t in r) for r in rounds]
    # each table at the process holding the fewest (finished tables still live), ties at
    # the runner, whoever is connected where: none, then one each, then two each
    assert where == [["one", "two"]] * 3
    for r in rounds:  # every round seated, everyone once, each table over
        assert sorted(p for t in r for p in t["players"]) == ["Ann", "Bea", "Cid", "Dee"]
        assert all(t["over"] for t in r)
    ended = psql(pg_url, "SELECT table_id FROM games WHERE game_no = 1 AND outcome IS NOT NULL")
    assert {t["table"] for r in rounds for t in r} <= {row[0] for row in ended}
    # bots played every turn of theirs: their seats' results are nobody's
    assert {row["name"]: row["games"] for row in final["standings"]} == dict.fromkeys(
        ["Ann", "Bea", "Cid", "Dee"], 0
    )
    await close_all(organiser)


async def test_a_table_its_process_does_not_make_is_made_at_the_runner(
    host, pg_url, tmp_path, monkeypatch
):
    """A process that holds the fewest tables but never makes the one placed at it (here a
    lease renewed by no server: as one whose lobby is full) has it taken back, and the
    round is seated at the runner."""
    monkeypatch.setattr(spread, "PLACED_WAIT", 0.5)
    one = await host("one", grace=0.2)
    ghost = PostgresDirectory(PostgresDatabase(pg_url), PostgresDatabase(pg_url), "m:/ghost.db")
    ghost.publish("ws://127.0.0.1:9", {}, (), fresh=True)  # live, with no tables
    try:
        organiser, tournament, players = await night(one, rounds=2)
        await organiser.ask(rq.TournamentStart(tournament=tournament))
        await close_all(*players)
        await until(organiser, lambda m: m["t"] == "tournament" and m["phase"] == "over")
        frames = [m for m in organiser.received if m["t"] == "tournament"]
        second = [f for f in frames if f["round"] == 2][-1]["tables"]
        logs = dict(psql(pg_url, "SELECT id, log FROM tables"))
        here = str(tmp_path / "one.db")
        assert len(second) == 2 and all(str(logs[t["table"]]).endswith(here) for t in second)
        assert psql(pg_url, "SELECT * FROM placements WHERE process = 'm:/ghost.db'") == []
        await close_all(organiser)
    finally:
        ghost.withdraw()
        ghost.close()


async def test_a_tournament_taken_up_again_counts_its_table_live_elsewhere_as_playing(
    host, pg_url, tmp_path
):
    """A stored tournament no process runs, whose round's tables are live at two processes
    (one placed at each), is taken up by one of them: the table at the other is still being
    played, not over."""
    one, two = await host("one"), await host("two")
    tables = []
    seated = []
    for url, name in ((one, "Ann"), (two, "Bea")):  # a game under way at each process
        client = await Client.connect(url, name)
        table = (await client.ask(rq.Create(name=f"Night r1 {name}", seats=3, bots=2)))["table"]
        assert (await client.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
        tables.append(table)
        seated.append(client)
    store = open_store(pg_url, str(tmp_path / "writer.db"))
    try:
        record = TournamentRecord("trnmix", "Night", 2, 3, Variants(), "normal", False, "name:Host")
        store.tournaments.save_tournament(record)
        for n, name in enumerate(("Ann", "Bea")):
            store.tournaments.add_tournament_player("trnmix", n, f"name:{name}")
        store.tournaments.save_tournament_round(
            "trnmix", 1, [(tables[0], ["name:Ann"]), (tables[1], ["name:Bea"])]
        )
    finally:
        store.close()
    watcher = await Client.connect(one, "Looker")
    seen: dict[str, object] = {}

    async def watch() -> None:  # at whichever process took it up
        await asyncio.sleep(0.2)  # a renewal offers it: asked again meanwhile
        reply = await watcher.ask(rq.TournamentWatch(tournament="trnmix"))
        if reply["t"] == "error" and reply["code"] == "elsewhere":
            other = await Client.connect(reply["url"], "Looker")
            reply = await other.ask(rq.TournamentWatch(tournament="trnmix"))
            await other.close()
        seen.clear()
        if reply["t"] == "tournament":
            seen.update(reply)

    await watch()
    await until_true("trnmix taken up", lambda: seen.get("round") == 1, pause=watch)
    assert [(t["table"], t["over"]) for t in seen["tables"]] == [
        (tables[0], False),
        (tables[1], False),
    ]
    await close_all(watcher, *seated)
