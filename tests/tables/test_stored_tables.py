"""What the database holds across restarts: the schema's version and its upgrade from the
previous one, clock banks, bounded chat, and tables that cannot be restored (quarantined,
each on its own, while every other table starts)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import msgpack
import pytest

from protocol.view import ClockRule, Variants
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.store.database import StoreUnavailable
from server.store.schema import CHAT_STORED, SCHEMA_VERSION
from server.store.sqlite import SqliteStore
from server.store.tables import BrokenRecord, ChatLine
from tests.kits.netkit import Client, close_all
from tests.kits.tablekit import FakeClock, Keeper, make_table, play_one, play_turn, seat_players
from tests.test_layering import ROOT

FIXTURE = Path(__file__).parent / "fixtures" / "schema0.db"


async def serving(db: Path) -> GotherServer:
    server = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=str(db), bot_delay=0.0))
    await server.start()
    return server


def played_db(tmp_path: Path, tables: int = 4) -> tuple[Path, list[str]]:
    """A database of `tables` games of 3 humans, 10 moves into each; their ids."""
    db = tmp_path / "games.db"
    store = SqliteStore(str(db))
    clock = FakeClock()
    ids = []
    for i in range(tables):
        table = make_table(clock, store=store, table_id=f"tab{i}")
        seat_players(table)
        table.start_if_full()
        for _ in range(10):
            play_one(table)
        ids.append(table.id)
    store.close()
    return db, ids


# -- the schema ---------------------------------------------------------------------------


def test_a_new_database_has_the_current_schema_version(tmp_path):
    store = SqliteStore(str(tmp_path / "new.db"))
    try:
        assert store.database.version == SCHEMA_VERSION >= 1
    finally:
        store.close()


async def test_a_database_made_by_the_previous_schema_is_upgraded_and_restored(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(FIXTURE, db)
    old = sqlite3.connect(db)
    assert old.execute("PRAGMA user_version").fetchone() == (0,)
    old_moves = dict(old.execute("SELECT table_id, COUNT(*) FROM moves GROUP BY table_id"))
    old.close()
    server = await serving(db)
    try:
        assert server.store.database.version == SCHEMA_VERSION
        assert not server.lobby.broken
        tables = server.lobby.tables
        assert set(tables) == {"lobby1", "mid001", "done01"}
        mid = tables["mid001"]
        assert mid.game is not None and len(mid.game.moves) == old_moves["mid001"] == 12
        assert mid.chat == [ChatLine("P0", "who dealt this?"), ChatLine("P1", "the crypt did")]
        assert tables["done01"].game is not None and tables["done01"].game.over
        assert tables["lobby1"].seats[0] is not None and tables["lobby1"].seats[0].name == "Ann"
        assert tables["lobby1"].clock_rule == ClockRule(300, 5)
        # and the game goes on, on the upgraded schema
        url = f"ws://127.0.0.1:{server.port}"
        watcher = await Client.connect(url, "Watcher")
        assert (await watcher.request("watch", table="mid001"))["t"] == "watching"
        await watcher.close()
    finally:
        await server.close()
    again = SqliteStore(str(db))
    try:
        assert again.database.version == SCHEMA_VERSION  # upgrading twice is a no-op
    finally:
        again.close()


def test_a_database_newer_than_the_server_is_refused(tmp_path):
    db = tmp_path / "future.db"
    SqliteStore(str(db)).close()
    future = sqlite3.connect(db)
    future.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    future.close()
    with pytest.raises(StoreUnavailable, match="newer"):
        SqliteStore(str(db))


# -- what survives a restart --------------------------------------------------------------


async def test_clock_banks_survive_a_restart(tmp_path):
    db = tmp_path / "games.db"
    store = SqliteStore(str(db))
    clock = FakeClock()
    table = make_table(clock, store=store, clock_rule=ClockRule(initial=120, increment=2))
    seat_players(table)
    table.start_if_full()
    clock.advance(50)
    play_turn(table)  # seat 0 thought 50 s over its turn's first move
    banks = [s.bank for s in table.seats if s is not None]
    assert banks[0] < 120 and banks[1:] == [120, 120]
    store.close()
    server = await serving(db)
    try:
        restored = server.lobby.tables[table.id]
        assert [s.bank for s in restored.seats if s is not None] == banks
    finally:
        await server.close()


def test_chat_kept_in_the_database_is_bounded_per_table(tmp_path):
    store = SqliteStore(str(tmp_path / "games.db"))
    table = make_table(FakeClock(), store=store)
    other = make_table(FakeClock(), store=store, table_id="t2")
    for i in range(CHAT_STORED + 30):
        table.say(Keeper("P0"), f"line {i}")
    other.say(Keeper("P1"), "the only line")
    (record,) = [r for r in store.tables.load() if r.id == table.id]
    assert not isinstance(record, BrokenRecord)
    assert [line.text for line in record.chat] == [f"line {i}" for i in range(30, CHAT_STORED + 30)]
    kept = store.database.connection.execute("SELECT COUNT(*) FROM chat").fetchone()
    assert kept == (CHAT_STORED + 1,)
    store.close()


async def test_a_stored_bot_is_made_a_kind_once_as_its_table_is_restored(tmp_path):
    """A table's bots and each bot's seat are stored by the name chosen (an older server
    kept the players' word): the restore makes each a kind, once, and the bots play by it."""
    db, (table_id,) = played_db(tmp_path, tables=1)
    raw = sqlite3.connect(db)
    raw.execute("UPDATE tables SET bot_kind = 'hard' WHERE id = ?", (table_id,))
    raw.execute("UPDATE seats SET bot_kind = 'easy' WHERE table_id = ? AND seat = 2", (table_id,))
    raw.commit()
    raw.close()
    server = await serving(db)
    try:
        table = server.lobby.tables[table_id]
        assert table.bot_kind == "ismcts" and table.summary().bot == "hard"
        assert [s.bot_kind for s in table.seats if s is not None] == [None, None, "gentle"]
    finally:
        await server.close()


async def test_a_stored_round_cap_is_read_once_with_the_protocols_check(tmp_path):
    """H1: a stored table's variants become the protocol's `Variants` once, in the store,
    by the check every request's pass: a cap out of range quarantines its table, and the
    table and its game hold the one value read."""
    db, (bad, good) = played_db(tmp_path, tables=2)
    raw = sqlite3.connect(db)
    raw.execute("UPDATE tables SET variants = '{\"round_cap\": 0}' WHERE id = ?", (bad,))
    raw.execute("UPDATE tables SET variants = '{\"round_cap\": 7}' WHERE id = ?", (good,))
    raw.commit()
    raw.close()
    server = await serving(db)
    try:
        assert "round_cap must be 1..1000 or off, not 0" in server.lobby.broken[bad].problem
        table = server.lobby.tables[good]
        assert table.variants == Variants(round_cap=7)
        assert table.game is not None and table.game.variants is table.variants
    finally:
        await server.close()


def test_no_module_of_the_server_checks_or_converts_a_round_cap_again():
    """One check of a round cap (protocol/view.py's `Variants`) and one reading of stored
    variants (the store's): the rest of the server takes the value as it is."""
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "ROUND_CAPS" not in text and "Variants.from_wire" not in text, path


# -- quarantine ---------------------------------------------------------------------------

ILLEGAL = "UPDATE moves SET move = ? WHERE table_id = 'tab0' AND idx = 5"
DAMAGE = {
    # one illegal move: replaying it raises in the engine
    "illegal move": (ILLEGAL, (msgpack.packb({"kind": "discard_hand", "card": 200}),)),
    "undecodable move": (ILLEGAL, (b"\xc1\xc1\xc1",)),
    "broken variants": ("UPDATE tables SET variants = '{\"round_cap\": -4' WHERE id = 'tab0'", ()),
    "missing move": ("DELETE FROM moves WHERE table_id = 'tab0' AND idx = 3", ()),
    # text rows that are not UTF-8 (SQLite keeps any bytes; integrity_check passes)
    "non-UTF-8 seat name": (
        "UPDATE seats SET name = CAST(x'ff4c796469' AS TEXT) WHERE table_id = 'tab0'",
        (),
    ),
    "non-UTF-8 chat line": (
        "INSERT INTO chat (table_id, game_no, name, text)"
        " VALUES ('tab0', 1, 'P0', CAST(x'c328' AS TEXT))",
        (),
    ),
    "non-UTF-8 deck": ("UPDATE tables SET deck_toml = CAST(x'80' AS TEXT) WHERE id = 'tab0'", ()),
    # a bot this server cannot make: once it raised in the table's timer, which never re-armed
    "unknown table bot": ("UPDATE tables SET bot_kind = 'clairvoyant' WHERE id = 'tab0'", ()),
    "unknown seat bot": ("UPDATE seats SET bot_kind = 'clairvoyant' WHERE table_id = 'tab0'", ()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
async def test_one_bad_table_is_quarantined_and_every_other_starts(tmp_path, damage, caplog):
    db, ids = played_db(tmp_path)
    sql, params = DAMAGE[damage]
    raw = sqlite3.connect(db)
    raw.execute(sql, params)
    raw.commit()
    raw.close()
    server = await serving(db)
    try:
        assert set(server.lobby.tables) == set(ids[1:])  # the others are live, games and all
        assert set(server.lobby.broken) == {"tab0"}
        problem = server.lobby.broken["tab0"].problem
        assert [r.message for r in caplog.records].count(
            f"table tab0 ('Crypt') cannot be restored: {problem}"
        ) == 1  # logged once
        url = f"ws://127.0.0.1:{server.port}"
        client = await Client.connect(url, "Curious")
        listing = await client.request("list")
        rows = {row["id"]: row for row in listing["tables"]}
        assert rows["tab0"]["broken"] == problem
        assert all("broken" not in rows[i] for i in ids[1:])
        for request, fields in (
            ("join", {}),
            ("watch", {}),
            ("record", {}),
            ("record", {"game": 1}),
            ("review", {"seat": 0}),
        ):
            reply = await client.request(request, table="tab0", **fields)
            assert reply["t"] == "error" and reply["code"] == "table_broken", reply
            assert problem in reply["message"]
        assert (await client.request("watch", table=ids[1]))["t"] == "watching"
        await close_all(client)
    finally:
        await server.close()


def test_a_spectators_chat_line_stays_marked_as_watching_in_the_database(tmp_path):
    store = SqliteStore(str(tmp_path / "games.db"))
    table = make_table(FakeClock(), store=store)
    p0 = seat_players(table)[0]
    table.say(p0, "I sit here")
    table.say(Keeper("P0"), "I only watch")  # a spectator with the same name
    (record,) = [r for r in store.tables.load() if r.id == table.id]
    assert not isinstance(record, BrokenRecord)
    assert record.chat == [ChatLine("P0", "I sit here"), ChatLine("P0", "I only watch", True)]
    store.close()


async def test_a_table_name_that_is_not_utf8_quarantines_its_table_only(tmp_path):
    db, ids = played_db(tmp_path)
    raw = sqlite3.connect(db)
    raw.execute("UPDATE tables SET name = CAST(x'43727970ff' AS TEXT) WHERE id = 'tab0'")
    raw.commit()
    raw.close()
    server = await serving(db)
    try:
        assert set(server.lobby.tables) == set(ids[1:])
        broken = server.lobby.broken["tab0"]
        assert broken.name == "Cryp\ufffd" and "not UTF-8" in broken.problem, broken
    finally:
        await server.close()
