"""The store of a host with PostgreSQL (`gother serve --db postgresql://…`): what spans tables
in PostgreSQL, shared by every game process of the host; each live table's log in a SQLite
file of the process holding it (`--table-log`), where a move is durable before it is made
with no trip to PostgreSQL (Principle 10).

What crosses, and when (docs/architecture.md says it for the host):
- a table, as it is made: its row, naming the log that holds it (`tables.log`), so that its
  id is the host's and every process can tell where it lives;
- a game, once over (`finish_game`) or ended by its players (`archive_table`): the table's
  row, its seats (without their tokens), the game's seed, start, moves and outcome, and the
  table's chat, in one transaction: any process can then show its record, review it, play on
  from it, rate it;
- a table that leaves: its row says it is no longer held (and it leaves the log);
- names and tournaments, as the SQLite store writes them: they are only ever in PostgreSQL.
A write to both databases goes to PostgreSQL first: a failure there changes nothing, and one
in the log after it is made whole again by the next try (each crossing can be written again)
or at the next start (`load`, which sets right what the process held).
"""

from __future__ import annotations

import dataclasses
import fcntl
import logging
import os
import socket
from collections.abc import Sequence
from pathlib import Path

from protocol.moves import Move
from server.game import Played, Start
from server.store.database import SqliteDatabase, SqlValue, Statement, StoreError, StoreUnavailable
from server.store.directory import Directory, PostgresDirectory
from server.store.ended import Ended, PostgresEnded, told
from server.store.holds import Holds, PostgresHolds
from server.store.outcomes import OutcomeArchive, OutcomeStore, StoredOutcomes
from server.store.people import People, PeopleStore
from server.store.placements import Placements, PostgresPlacements
from server.store.postgres_database import PostgresDatabase
from server.store.tables import (
    TABLE_COLUMNS,
    TABLE_VALUES,
    Archive,
    BrokenRecord,
    ChatLine,
    GameArchive,
    SeatRecord,
    SqliteTables,
    TableRecord,
    TableStore,
    chat_statement,
    hint_values,
    json_text,
    move_statement,
    seat_statement,
    table_values,
)
from server.store.tournaments import Tournaments, TournamentStore

log = logging.getLogger("gother.server")


class PostgresStore:
    """PostgreSQL for what spans tables, and this process's table log for its live tables."""

    def __init__(self, url: str, table_log: str) -> None:
        self.log = TableLog(table_log)  # first: a log another process holds stops us here
        try:
            self.database = PostgresDatabase(url)
        except StoreUnavailable:
            self.log.close()
            raise
        opened = [self.database]
        try:  # the lobby across processes: connections of its own, used off the loop
            opened.append(PostgresDatabase(url))
            opened.append(PostgresDatabase(url))  # LISTENing
            opened.append(PostgresDatabase(url))  # LISTENing for games ended elsewhere
            opened.append(PostgresDatabase(url))  # holding the tournaments run here
        except StoreUnavailable:
            for database in opened:
                database.close()
            self.log.close()
            raise
        self.directory: Directory | None = PostgresDirectory(opened[1], opened[2], self.log.holder)
        self.ended: Ended | None = PostgresEnded(opened[3], self.log.holder)
        self.holds: Holds | None = PostgresHolds(opened[4])
        self.placements: Placements | None = PostgresPlacements(self.database, self.log.holder)
        # the directory's connection: Elsewhere's thread uses it, one call at a time
        self.placed: Placements | None = PostgresPlacements(opened[1], self.log.holder)
        self.crossing = Crossing(self.log.tables, self.database, self.log.holder)
        archive = Archive(self.database)
        self.archive: GameArchive = archive
        self.tables: TableStore = HeldTables(self.log.tables, self.crossing, archive)
        self.outcomes: OutcomeStore = CrossingOutcomes(self.database, self.crossing)
        self.people: PeopleStore = People(self.database)
        self.tournaments: TournamentStore = Tournaments(self.database)

    def close(self) -> None:
        if self.directory is not None:
            self.directory.close()
        if self.ended is not None:
            self.ended.close()
        if self.holds is not None:
            self.holds.close()
        self.database.close()
        self.log.close()


class PostgresReader:
    """A host's PostgreSQL read by another process (an export, the ratings' rebuild): its
    finished games and outcomes, through a read-only connection."""

    def __init__(self, url: str) -> None:
        self.database = PostgresDatabase(url, readonly=True)
        self.archive: GameArchive = Archive(self.database)
        self.outcomes: OutcomeArchive = StoredOutcomes(self.database)

    def close(self) -> None:
        self.database.close()


class TableLog:
    """A process's table log: a SQLite file of the embedded store's schema, of which only its
    tables are used, held by one process at a time. The lock is on a file beside it (SQLite's
    own locks are on the log itself), and goes with the process, however it ends: a process
    that gets it knows that no other writes the log."""

    def __init__(self, path: str) -> None:
        self.path = str(Path(path).resolve())
        # the log as the host knows it: its machine and where it is there
        self.holder = f"{socket.gethostname()}:{self.path}"
        lock_path = f"{self.path}.lock"
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StoreUnavailable(f"table log {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.lock)
            raise StoreUnavailable(
                f"table log {self.path}: another process holds it (each game process of a"
                " host has a table log of its own: --table-log FILE; or another is taking"
                " its tables over, after this one died)"
            ) from None
        try:
            self.database = SqliteDatabase(self.path)
        except StoreUnavailable:
            os.close(self.lock)
            raise
        self.tables = SqliteTables(self.database)

    def close(self) -> None:
        if self.lock < 0:
            return
        self.database.close()
        os.close(self.lock)  # and with it the lock
        self.lock = -1


class Crossing:
    """A game's crossing to PostgreSQL, and a table's. Each is written whole, as often as it
    takes: a game's end that could not be written is kept (`pending`) and tried again by the
    next probe, before the table it stopped takes a change again."""

    def __init__(self, log_tables: SqliteTables, database: PostgresDatabase, holder: str) -> None:
        self.local = log_tables
        self.database = database
        self.holder = holder
        self.pending: dict[tuple[str, int], str] = {}  # game ends not written, their outcomes

    def register(self, record: TableRecord) -> None:
        """A new table: its id is taken for the host, held by this process's log."""
        self.database.write(
            (
                f"INSERT INTO tables ({TABLE_COLUMNS}, log) VALUES ({TABLE_VALUES}, :log)",
                {**table_values(record), "log": self.holder},
            )
        )

    def forget(self, table_id: str) -> None:
        """A table that never dealt a game leaves: nothing of it is kept."""
        self.database.write(
            ("DELETE FROM tables WHERE id = :table AND game_no = 0", {"table": table_id})
        )

    def finish(self, table_id: str, game_no: int, outcome: str) -> None:
        """A game is over: it crosses whole, with its outcome."""
        self.pending[table_id, game_no] = outcome
        self.cross(table_id, game_no, held=True)

    def retire(self, table_id: str, abandoned: bool) -> None:
        """A table leaves this process: its current game crosses (as abandoned, if it was
        being played; once only, if it crossed as it ended), and it is no longer held."""
        record = self.local.table(table_id)
        key: dict[str, SqlValue] = {"table": table_id, "game": record.game_no}
        crossed = self.database.row(
            "SELECT 1 FROM games WHERE table_id = :table AND game_no = :game", key
        )
        if abandoned or crossed is None or (table_id, record.game_no) in self.pending:
            self.cross(
                table_id, record.game_no, held=False, ended="abandoned" if abandoned else None
            )
            return
        self.database.write(  # the chat said since, and that no process holds it
            ("UPDATE tables SET log = NULL WHERE id = :table", key),
            ("DELETE FROM chat WHERE table_id = :table", key),
            *(chat_statement(table_id, record.game_no, line) for line in record.chat),
        )

    def retry(self) -> None:
        """Write again every game end that could not be written (StoreError: still not)."""
        for table_id, game_no in list(self.pending):
            if not self.local.has_table(table_id):  # retired since, and crossed as it left
                del self.pending[table_id, game_no]
                continue
            self.cross(table_id, game_no, held=True)

    def cross(self, table_id: str, game_no: int, held: bool, ended: str | None = None) -> None:
        record = self.local.table(table_id)
        seed, moves = self.local.game(table_id, game_no)
        if seed is None:
            raise StoreError(f"table {table_id} has no game {game_no} to write")
        movers = self.local.movers(table_id, game_no)
        start = self.local.start(table_id, game_no)
        key: dict[str, SqlValue] = {"table": table_id, "game": game_no}
        outcome = self.pending.get((table_id, game_no))
        statements: list[Statement] = [
            (
                f"INSERT INTO tables ({TABLE_COLUMNS}, log) VALUES ({TABLE_VALUES}, :log)"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                " password_hash = excluded.password_hash,"
                " game_no = GREATEST(tables.game_no, excluded.game_no), log = excluded.log",
                {**table_values(record), "game_no": game_no, "log": self.holder if held else None},
            ),
            ("DELETE FROM seats WHERE table_id = :table", key),
            *(
                seat_statement(table_id, dataclasses.replace(seat, token_hash=None))
                for seat in record.seat_records
            ),
            (
                "INSERT INTO games (table_id, game_no, seed, start, ended, outcome)"
                " VALUES (:table, :game, :seed, :start, :ended, :outcome)"
                " ON CONFLICT (table_id, game_no) DO UPDATE"
                " SET ended = COALESCE(excluded.ended, games.ended),"
                " outcome = COALESCE(excluded.outcome, games.outcome)",
                {
                    **key,
                    "seed": seed,
                    "start": None if start is None else json_text(start),
                    "ended": ended or self.local.ended(table_id, game_no),
                    "outcome": outcome,
                },
            ),
            ("DELETE FROM moves WHERE table_id = :table AND game_no = :game", key),
            *(
                move_statement(table_id, game_no, idx, played, cover)
                for idx, (played, (_, cover)) in enumerate(zip(moves, movers, strict=True))
            ),
            # the hints its seats were given, for a review read by any process
            ("DELETE FROM hints WHERE table_id = :table AND game_no = :game", key),
            *(
                (
                    "INSERT INTO hints (table_id, game_no, step, seat, move)"
                    " VALUES (:table, :game, :step, :seat, :move)",
                    hint_values(table_id, game_no, step, seat, move),
                )
                for seat in range(record.seats)
                for step, move in self.local.hints(table_id, game_no, seat).items()
            ),
            # the table's chat as it is now, each line with the game it crossed with
            ("DELETE FROM chat WHERE table_id = :table", key),
            *(chat_statement(table_id, game_no, line) for line in record.chat),
        ]
        if outcome is not None:  # the others' standings count it, once it landed
            statements.append(told(self.holder, table_id, game_no))
        self.database.write(*statements)
        self.pending.pop((table_id, game_no), None)

    def moved(self, live: Sequence[str]) -> set[str]:
        """At start: which of the tables in this log PostgreSQL says another log holds. A
        takeover moved them (server/store/takeover.py), or copied them here and was stopped
        before it claimed them: either way the log PostgreSQL names holds them."""
        rows = self.database.rows(
            "SELECT id, log FROM tables WHERE id = ANY(:ids) AND log IS NOT NULL AND log <> :me",
            {"ids": list(live), "me": self.holder},  # type: ignore[dict-item]
        )
        for table_id, holder in rows:
            log.info("table %s: held by %s now, not by this log: dropped here", table_id, holder)
        return {table_id for table_id, _ in rows}

    def held_elsewhere(self, live: Sequence[str]) -> None:
        """At start, after the log is read: what PostgreSQL says this log holds is made to
        agree with it. A table made but not logged (the process died between the two
        writes) is forgotten; one that left the log but not PostgreSQL is let go."""
        held = self.database.rows(
            "SELECT id, game_no FROM tables WHERE log = :log", {"log": self.holder}
        )
        for table_id, game_no in held:
            if table_id in live:
                continue
            log.info("table %s: held by this log in the database, not in it: let go", table_id)
            if game_no == 0:
                self.forget(table_id)
            else:
                self.database.write(
                    ("UPDATE tables SET log = NULL WHERE id = :table", {"table": table_id})
                )


class HeldTables:
    """The live tables of this process, in its table log (TableStore): each change there,
    with no trip to PostgreSQL; a table's arrival and departure, and each game's end, cross."""

    def __init__(self, log_tables: SqliteTables, crossing: Crossing, archive: Archive) -> None:
        self.local = log_tables
        self.crossing = crossing
        self.archive = archive  # PostgreSQL's

    # -- what crosses ----------------------------------------------------------------------

    def save_table(self, record: TableRecord) -> None:
        self.crossing.register(record)
        try:
            self.local.save_table(record)
        except StoreError:
            try:
                self.crossing.forget(record.id)
            except StoreError as exc:  # the next start lets it go (held_elsewhere)
                log.error("table %s: made in the database, not in the log: %s", record.id, exc)
            raise

    def archive_table(self, table_id: str, abandoned: bool) -> None:
        self.crossing.retire(table_id, abandoned)
        self.local.delete_table(table_id)  # its games are in PostgreSQL now

    def delete_table(self, table_id: str) -> None:
        self.crossing.forget(table_id)
        self.local.delete_table(table_id)

    def probe(self, now: int) -> None:
        self.crossing.retry()  # a game's end that stopped its table lands first
        self.local.probe(now)

    def load(self) -> list[TableRecord | BrokenRecord]:
        records = self.local.load()
        moved = self.crossing.moved([record.id for record in records])
        for table_id in moved:  # taken over by another process while this one was down
            self.local.delete_table(table_id)
        records = [record for record in records if record.id not in moved]
        self.crossing.held_elsewhere([record.id for record in records])
        return records

    def has_table(self, table_id: str) -> bool:
        """Whether any table of the host, held here or anywhere, has this id."""
        return self.local.has_table(table_id) or self.archive.has_table(table_id)

    # -- the log only ----------------------------------------------------------------------

    def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        self.local.save_seats(table_id, seats)

    def delete_seat(self, table_id: str, seat: int) -> None:
        self.local.delete_seat(table_id, seat)

    def set_password_hash(self, table_id: str, password_hash: str) -> None:
        self.local.set_password_hash(table_id, password_hash)

    def start_game(
        self,
        table_id: str,
        game_no: int,
        seed: int,
        seats: Sequence[SeatRecord] = (),
        start: Start | None = None,
    ) -> None:
        self.local.start_game(table_id, game_no, seed, seats, start)

    def add_move(
        self,
        table_id: str,
        game_no: int,
        idx: int,
        seat: int,
        move: Move,
        bank: float | None = None,
        cover: bool = False,
    ) -> None:
        self.local.add_move(table_id, game_no, idx, seat, move, bank, cover)

    def add_hint(self, table_id: str, game_no: int, step: int, seat: int, move: Move) -> None:
        self.local.add_hint(table_id, game_no, step, seat, move)

    def add_chat(self, table_id: str, game_no: int, line: ChatLine) -> None:
        self.local.add_chat(table_id, game_no, line)

    def table(self, table_id: str) -> TableRecord:
        return self.local.table(table_id)

    def game(self, table_id: str, game_no: int) -> tuple[int | None, list[Played]]:
        return self.local.game(table_id, game_no)

    def start(self, table_id: str, game_no: int) -> Start | None:
        return self.local.start(table_id, game_no)

    def movers(self, table_id: str, game_no: int) -> list[tuple[int, bool]]:
        return self.local.movers(table_id, game_no)

    def ended(self, table_id: str, game_no: int) -> str | None:
        return self.local.ended(table_id, game_no)

    def hints(self, table_id: str, game_no: int, seat: int) -> dict[int, Move]:
        return self.local.hints(table_id, game_no, seat)

    def played_on(self, table_id: str) -> bool:
        return self.local.played_on(table_id)


class CrossingOutcomes(StoredOutcomes):
    """Outcomes in PostgreSQL, where a game's end is written as the game crosses."""

    def __init__(self, database: PostgresDatabase, crossing: Crossing) -> None:
        super().__init__(database)
        self.crossing = crossing

    def finish_game(self, table_id: str, game_no: int, outcome: str) -> None:
        self.crossing.finish(table_id, game_no, outcome)
