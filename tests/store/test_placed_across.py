"""A tournament round's table placed at another of the host's processes (issue 34 §2;
server/store/placements.py, server/edge/elsewhere.py): real `gother serve --db
postgresql://…` processes. The target, woken by the placement, makes the table once and
answers with its id; it deals at once, a bot at the seat no player has, each player's seat
held by their identity: proved at any process, the seat is said, and taken back where it is.
A round's seed deals every table of it the same cards."""

from __future__ import annotations

import sqlite3

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import requests as rq
from protocol.view import Variants
from server.edge.identity import identity_of
from server.store.placements import Placement, PostgresPlacements
from server.store.postgres_database import PostgresDatabase
from tests.edge.test_identity import proven, public
from tests.kits.netkit import close_all
from tests.kits.poll import until
from tests.store.test_lobby_across import host
from tests.store.test_postgres import psql

pytestmark = pytest.mark.usefixtures("postgres")
__all__ = ["host"]  # the fixture: real processes on one PostgreSQL


async def test_a_placed_table_is_made_once_at_its_process_with_seats_held_by_identity(
    host, pg_url, tmp_path
):
    one, two = await host("one"), await host("two")
    ids: dict[object, object] = {}

    async def read_processes() -> None:
        ids.update(psql(pg_url, "SELECT url, id FROM processes"))

    await until("both processes live", lambda: len(ids) == 2, pause=read_processes)
    ann, bea = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    players = tuple((f"id:{identity_of(public(k))}", n) for k, n in ((ann, "Ann"), (bea, "Bea")))
    seed = 2**52 + 12345  # a duplicate round's: 53 bits

    def placement(number: int) -> Placement:
        return Placement("trn001", 1, number, f"Cup r1 t{number}", 3, Variants(), "normal",
                         seed, players)  # fmt: skip

    database = PostgresDatabase(pg_url)
    runner = PostgresPlacements(database, str(ids[one.url]))
    made: dict[int, str | None] = {}

    async def read_answers() -> None:
        made.update(runner.answers("trn001", 1))

    try:
        runner.place([(str(ids[two.url]), placement(1)), (str(ids[two.url]), placement(2))])
        await until("two made both", lambda: None not in made.values() and len(made) == 2,
                    pause=read_answers)  # fmt: skip
        tables = [made[1], made[2]]
        assert len(set(tables)) == 2
        held = psql(pg_url, "SELECT process FROM tables JOIN lobby ON lobby.table_id = tables.id"
                    f" WHERE tables.id IN ('{tables[0]}', '{tables[1]}')")  # fmt: skip
        assert held == [(ids[two.url],), (ids[two.url],)]  # made there, and once each
        assert len(psql(pg_url, "SELECT id FROM tables WHERE name LIKE 'Cup r1 %'")) == 2
    finally:
        database.close()

    for table in tables:  # Ann proves at one: her seats at two are said, and taken back there
        client, reply = await proven(one.url, "Ann", ann)
        assert {"table": table, "seat": 0} in reply["seats"], reply
        asked = await client.ask(rq.Resume(table=table))
        assert asked["t"] == "error" and asked["code"] == "elsewhere", asked
        assert asked["url"] == two.url
        await client.close()
        client, _ = await proven(two.url, "Ann", ann)
        joined = await client.ask(rq.Resume(table=table))
        assert joined["t"] == "joined" and joined["seat"] == 0, joined
        view = await client.state(lambda v: v["phase"] != "lobby")  # dealt: a bot at seat 2
        seats = view["players"]
        assert [p["name"] for p in seats[:2]] == ["Ann", "Bea"] and seats[2]["bot"], seats
        await close_all(client)
    with sqlite3.connect(tmp_path / "two.db") as log:  # two's table log: the deals
        dealt = log.execute(
            f"SELECT table_id, seed FROM games WHERE table_id IN ('{tables[0]}', '{tables[1]}')"
        ).fetchall()
    assert sorted(dealt) == sorted([(tables[0], seed), (tables[1], seed)])  # the round's cards
