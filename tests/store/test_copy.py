"""`gother db copy`: a SQLite host moved into PostgreSQL and back, by the real command, comes
out whole (live tables with their tokens, finished games, outcomes, names, tournaments; the
same standings, the same records); a target with anything in it is refused unless told, and a
copy that fails leaves its target as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.view import Variants
from server.ratings.archive import rebuild
from server.store.kinds import Store, open_reader, open_store
from server.store.sqlite import SqliteStore
from server.store.tables import TableRecord
from server.store.tournaments import TournamentRecord
from server.tables.export import game_record
from tests.kits.prockit import run_cli
from tests.kits.tablekit import FakeClock, Keeper, make_table, play_one, seat_players

pytestmark = pytest.mark.usefixtures("postgres")


def a_host(path: Path) -> None:
    """A SQLite host with a table of every kind: playing (p1), over and waiting for a rematch
    (o1), archived after its game (a1), abandoned mid-game (x1), never dealt (e1); names;
    a tournament with its entries and a round."""
    store = SqliteStore(str(path))
    clock = FakeClock()
    for table_id, moves in (("p1", 12), ("o1", None), ("a1", None), ("x1", 7)):
        table = make_table(clock, store=store, table_id=table_id, bots=1)
        players = seat_players(table)
        assert table.start_if_full() and table.game is not None
        table.say(players[0], f"at {table_id}")
        while not table.game.over and (moves is None or len(table.game.moves) < moves):
            play_one(table)
        table.say(Keeper("Dee"), "watching")
    store.tables.archive_table("a1", abandoned=False)
    store.tables.archive_table("x1", abandoned=True)
    make_table(clock, store=store, table_id="e1")
    store.people.claim_name({"ann", "a nn"}, "Ann", "id-ann", 12.5)
    store.tournaments.save_tournament(
        TournamentRecord("tn1", "Night", 2, 3, Variants(), "normal", False, "id-ann")
    )
    store.tournaments.add_tournament_player("tn1", 1, "id:id-ann")
    store.tournaments.add_tournament_player("tn1", 2, "name:Bo", secret="h")
    store.tournaments.save_tournament_round("tn1", 1, [("o1", ["id:id-ann", "name:Bo"])])
    store.close()


def everything(store: Store) -> dict[str, object]:
    """What a host holds, as its repositories read it."""
    outcomes = sorted(tuple(o) for o in store.outcomes.all())
    records = {
        (table, game): game_record(store.archive, table, game)
        for table, game in [(o[0], o[1]) for o in outcomes] + [("a1", 1), ("x1", 1)]
    }
    return {
        "live": sorted(
            (r.id, r.moves, r.seat_records, r.chat)
            for r in store.tables.load()
            if isinstance(r, TableRecord)
        ),
        "outcomes": outcomes,
        "records": records,
        "ended": store.archive.ended("x1", 1),
        "names": store.people.name_owners({"ann", "a nn"}),
        "tournaments": store.tournaments.all(),
    }


def read_sqlite(path: Path) -> dict[str, object]:
    store = SqliteStore(str(path))
    try:
        return everything(store)
    finally:
        store.close()


def read_postgres(url: str, log: Path) -> dict[str, object]:
    store = open_store(url, str(log))
    try:
        return everything(store)
    finally:
        store.close()


async def test_a_host_moves_into_postgresql_and_back_whole(tmp_path, pg_url):
    a_host(tmp_path / "host.db")
    before = read_sqlite(tmp_path / "host.db")
    log = tmp_path / "table-log.db"
    code, out, err = await run_cli(
        "db", "copy", f"sqlite:{tmp_path / 'host.db'}", pg_url, "--table-log", str(log)
    )
    assert code == 0, err
    assert "5 tables (3 live, into the table log" in out and "3 games over or ended" in out, out
    assert "1 being played" in out and "2 name keys, 1 tournaments (2 entries)" in out, out
    assert read_postgres(pg_url, log) == before
    assert rebuild(pg_url).rows() == rebuild(str(tmp_path / "host.db")).rows()

    code, out, err = await run_cli(
        "db", "copy", pg_url, f"sqlite:{tmp_path / 'back.db'}", "--table-log", str(log)
    )
    assert code == 0, err
    assert read_sqlite(tmp_path / "back.db") == before
    assert rebuild(str(tmp_path / "back.db")).rows() == rebuild(pg_url).rows()


async def test_a_target_that_holds_anything_is_refused_unless_replaced(tmp_path, pg_url):
    a_host(tmp_path / "host.db")
    log = str(tmp_path / "table-log.db")
    copy = ("db", "copy", f"sqlite:{tmp_path / 'host.db'}", pg_url, "--table-log", log)
    assert (await run_cli(*copy))[0] == 0
    code, _, err = await run_cli(*copy)
    assert code == 1 and "is not empty (it holds tables, names, tournaments)" in err, err
    code, _, err = await run_cli(*copy, "--replace")
    assert code == 0, err
    assert read_postgres(pg_url, Path(log)) == read_sqlite(tmp_path / "host.db")  # not twice


async def test_a_copy_that_fails_leaves_its_target_as_it_was(tmp_path, pg_url):
    a_host(tmp_path / "host.db")
    with sqlite3.connect(tmp_path / "host.db") as db:  # PostgreSQL takes no NUL in a text
        chat = "INSERT INTO chat (table_id, game_no, name, text) VALUES ('a1', 1, 'x', ?)"
        db.execute(chat, ("a\0b",))
    log = tmp_path / "table-log.db"
    code, _, err = await run_cli(
        "db", "copy", f"sqlite:{tmp_path / 'host.db'}", pg_url, "--table-log", str(log)
    )
    assert code == 1 and "nothing copied" in err, err
    reader = open_reader(pg_url)
    try:
        assert reader.outcomes.all() == [] and not reader.archive.has_table("p1")
    finally:
        reader.close()


async def test_a_copy_names_its_databases_as_it_must(tmp_path, pg_url):
    code, _, err = await run_cli("db", "copy", str(tmp_path / "host.db"), pg_url)
    assert code == 1 and "name a SQLite file as sqlite:PATH" in err, err
    code, _, err = await run_cli("db", "copy", pg_url, pg_url)
    assert code == 1 and "pg_dump" in err, err
    code, _, err = await run_cli(
        "db",
        "copy",
        f"sqlite:{tmp_path / 'none.db'}",
        pg_url,
        "--table-log",
        str(tmp_path / "log.db"),
    )
    assert code == 1 and "no database at" in err, err
