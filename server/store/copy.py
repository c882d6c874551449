"""`gother db copy SOURCE TARGET`: a host's whole store moved to the other kind of database,
from a SQLite file (`sqlite:PATH`) into PostgreSQL (`postgresql://…`), or back.

Into PostgreSQL, everything lands where a running host keeps it (server/store/postgres.py):
names, tournaments and every table's finished games (with their outcomes, seats and chat) in
PostgreSQL, and the live tables whole in the table log of the process that will serve them
(`--table-log`), held by it. Out of PostgreSQL, the other way round: the live tables are the
table log's, and a table another log holds is copied as archived (its game in progress is in
that log only: the summary says how many).

A target with anything in it is refused unless `replace` (then emptied first, in the same
transaction). Each database is written in one transaction: a copy that fails leaves each
target as it was. The host is stopped first: a table log is taken under its lock, and a
database read while a server writes it would be a copy of no one moment.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from server.store.database import (
    Database,
    Row,
    SqliteDatabase,
    SqlValue,
    StoreError,
    StoreUnavailable,
)
from server.store.kinds import default_table_log, is_postgres
from server.store.postgres import TableLog
from server.store.postgres_database import PostgresDatabase, shown
from server.store.postgres_schema import LOBBY, TABLES
from server.store.tables import TABLE_COLUMNS

SEATS = "table_id, seat, name, token_hash, bot_kind, bank, left_game, identity"
GAMES = "table_id, game_no, seed, ended, outcome, start"
MOVES = "table_id, game_no, idx, seat, move, cover"
HINTS = "table_id, game_no, step, seat, move"
CHAT = "table_id, game_no, name, text, watching"
NAMES = "skeleton, name, identity, seen"
TOURNAMENTS = "id, name, rounds, seats, variants, bot, duplicate, organiser"
ENTRANTS = "tournament, n, player, dropped, forfeit, secret"
ROUNDS = "tournament, round, n, table_id, players"
SQLITE = "sqlite:"

Values = dict[str, SqlValue]
Steps = list[tuple[str, Iterable[Mapping[str, SqlValue]]]]


class CopyError(OSError):
    """The copy cannot be made, and nothing was written: why, in a sentence for the host (an
    OSError, as StoreUnavailable is: something the host must look at)."""


@dataclass
class Copied:
    source: str
    target: str
    table_log: str
    tables: int = 0
    live: int = 0  # of them, the live tables, to or from the table log
    let_go: int = 0  # held by a log not given: copied as archived
    games: int = 0  # over, or ended by their players
    playing: int = 0  # games being played, at the live tables
    moves: int = 0  # of the games over
    names: int = 0  # name keys (a name is owned under each of its look-alike keys)
    tournaments: int = 0
    entries: int = 0

    def summary(self) -> str:
        into = is_postgres(self.target)
        log = f"{'into' if into else 'from'} the table log {self.table_log}"
        lines = [
            f"copied {_named(self.source)} into {_named(self.target)}:",
            f"  {self.tables} tables ({self.live} live, {log}), {self.games} games over or ended"
            f" ({self.moves} moves) and {self.playing} being played",
            f"  {self.names} name keys, {self.tournaments} tournaments ({self.entries} entries)",
        ]
        if self.let_go:
            lines.append(
                f"  {self.let_go} tables held by another table log were copied as archived:"
                " their games in progress are in that log only"
            )
        return "\n".join(lines)


def copy_host(
    source: str, target: str, table_log: str | None = None, replace: bool = False
) -> Copied:
    """Copy the host at `source` into `target` (one a `sqlite:PATH`, the other a PostgreSQL
    URL), with the PostgreSQL side's table log (by default, as `gother serve` has it).
    CopyError: not done, and why."""
    copied = Copied(source, target, str(Path(table_log or default_table_log()).resolve()))
    if is_postgres(source) == is_postgres(target):
        raise CopyError(
            "copy between a SQLite file (sqlite:PATH) and PostgreSQL (postgresql://…);"
            " a database of one kind is copied by its own tools (cp, pg_dump)"
        )
    for named in (source, target):
        if not (is_postgres(named) or named.startswith(SQLITE)):
            raise CopyError(f"{named}: name a SQLite file as sqlite:PATH")
    try:
        if is_postgres(target):
            _into_postgres(source.removeprefix(SQLITE), target, copied, replace)
        else:
            _out_of_postgres(source, target.removeprefix(SQLITE), copied, replace)
    except (StoreUnavailable, StoreError) as exc:
        raise CopyError(f"nothing copied: {exc}") from None
    except ValueError as exc:  # a row of the source that cannot be read
        message = f"nothing copied: a row of {_named(source)} cannot be read ({exc})"
        raise CopyError(message) from None
    return copied


# -- from SQLite into PostgreSQL -----------------------------------------------------------


def _into_postgres(path: str, url: str, copied: Copied, replace: bool) -> None:
    if not Path(path).is_file():
        raise CopyError(f"no database at {path}")
    source = SqliteDatabase(path, readonly=True)
    target = PostgresDatabase(url)
    log = TableLog(copied.table_log)
    try:
        _refuse_unless_empty(target, shown(url), replace)
        _refuse_unless_empty(log.database, f"the table log {log.path}", replace)
        live = {table for (table,) in source.rows("SELECT id FROM tables WHERE archived = 0")}
        # every game over (or ended, or followed by another) crosses; a live one stays
        crossed = source.rows(
            "SELECT g.table_id, g.game_no FROM games g JOIN tables t ON t.id = g.table_id"
            " WHERE t.archived = 1 OR g.game_no < t.game_no OR g.outcome IS NOT NULL"
            " OR g.ended IS NOT NULL ORDER BY g.table_id, g.game_no"
        )
        newest: dict[str, int] = {}
        for table, game in crossed:
            newest[table] = max(newest.get(table, 0), game)

        def table_row(row: Values) -> Values:
            copied.tables += 1
            copied.live += row["id"] in live
            held = log.holder if row["id"] in live else None
            return {**row, "game_no": newest.get(str(row["id"]), 0), "log": held}

        shared: Steps = [
            *_emptied(replace, (*LOBBY, *TABLES)),
            *_people_and_tournaments(source, copied),
            (
                _insert("tables", f"{TABLE_COLUMNS}, log"),
                map(table_row, _rows(source, "tables", TABLE_COLUMNS, "ORDER BY rowid")),
            ),
            (
                _insert("seats", SEATS),
                ({**seat, "token_hash": None} for seat in _rows(source, "seats", SEATS)),
            ),
            (_insert("games", GAMES), _counted(_games(source, crossed), copied, "games")),
            (_insert("moves", MOVES), _counted(_moves(source, crossed), copied, "moves")),
            (_insert("hints", HINTS), _hints(source, crossed)),
            (_insert("chat", CHAT), _rows(source, "chat", CHAT, "ORDER BY id")),
        ]
        target.write_many(shared)
        logged = [g for g in source.rows("SELECT table_id, game_no FROM games") if g[0] in live]
        copied.playing = len(set(logged) - set(crossed))
        log.database.write_many(
            [
                *_emptied(replace),
                (
                    _insert("tables", TABLE_COLUMNS),
                    _of(_rows(source, "tables", TABLE_COLUMNS, "ORDER BY rowid"), live, "id"),
                ),
                (_insert("seats", SEATS), _of(_rows(source, "seats", SEATS), live)),
                (_insert("games", GAMES), _games(source, logged)),
                (_insert("moves", MOVES), _moves(source, logged)),
                (_insert("hints", HINTS), _hints(source, logged)),
                (_insert("chat", CHAT), _of(_rows(source, "chat", CHAT, "ORDER BY id"), live)),
            ]
        )
    finally:
        source.close()
        target.close()
        log.close()


# -- from PostgreSQL into SQLite -----------------------------------------------------------


def _out_of_postgres(url: str, path: str, copied: Copied, replace: bool) -> None:
    if not Path(copied.table_log).is_file():
        raise CopyError(f"no table log at {copied.table_log}: --table-log FILE, the host's")
    source = PostgresDatabase(url, readonly=True)
    log = TableLog(copied.table_log)
    try:
        target = SqliteDatabase(path)
    except StoreUnavailable:
        source.close()
        log.close()
        raise
    try:
        _refuse_unless_empty(target, path, replace)
        logged = log.database
        live = {table for (table,) in logged.rows("SELECT id FROM tables WHERE archived = 0")}
        crossed = source.rows("SELECT table_id, game_no FROM games ORDER BY table_id, game_no")
        in_postgres = set(crossed)
        playing = [
            game
            for game in logged.rows("SELECT table_id, game_no FROM games ORDER BY 1, 2")
            if game[0] in live and game not in in_postgres
        ]
        copied.playing = len(playing)
        held = {table for (table,) in source.rows("SELECT id FROM tables WHERE log IS NOT NULL")}

        def archived(row: Values) -> Values:
            copied.tables += 1
            copied.let_go += row["id"] in held
            return {**row, "archived": 1}

        def kept(row: Values) -> Values:
            copied.tables += 1
            copied.live += 1
            return row

        elsewhere = _of(_rows(source, "tables", TABLE_COLUMNS, "ORDER BY id"), live, "id", False)
        target.write_many(
            [
                *_emptied(replace),
                *_people_and_tournaments(source, copied),
                (_insert("tables", f"{TABLE_COLUMNS}, archived"), map(archived, elsewhere)),
                (
                    _insert("tables", TABLE_COLUMNS),
                    map(kept, _of(_rows(logged, "tables", TABLE_COLUMNS), live, "id")),
                ),
                (_insert("seats", SEATS), _of(_rows(source, "seats", SEATS), live, keep=False)),
                (_insert("seats", SEATS), _of(_rows(logged, "seats", SEATS), live)),
                (_insert("games", GAMES), _counted(_games(source, crossed), copied, "games")),
                (_insert("games", GAMES), _games(logged, playing)),
                (_insert("moves", MOVES), _counted(_moves(source, crossed), copied, "moves")),
                (_insert("hints", HINTS), _hints(source, crossed)),
                (_insert("moves", MOVES), _moves(logged, playing)),
                (_insert("hints", HINTS), _hints(logged, playing)),
                (
                    _insert("chat", CHAT),
                    _of(_rows(source, "chat", CHAT, "ORDER BY id"), live, keep=False),
                ),
                (_insert("chat", CHAT), _of(_rows(logged, "chat", CHAT, "ORDER BY id"), live)),
            ]
        )
    finally:
        source.close()
        target.close()
        log.close()


# -- shared --------------------------------------------------------------------------------


def _people_and_tournaments(source: Database, copied: Copied) -> Steps:
    return [
        (_insert("names", NAMES), _counted(_rows(source, "names", NAMES), copied, "names")),
        (
            _insert("tournaments", TOURNAMENTS),
            _counted(
                _rows(source, "tournaments", TOURNAMENTS, "ORDER BY rowid"), copied, "tournaments"
            ),
        ),
        (
            _insert("tournament_players", ENTRANTS),
            _counted(_rows(source, "tournament_players", ENTRANTS), copied, "entries"),
        ),
        (_insert("tournament_tables", ROUNDS), _rows(source, "tournament_tables", ROUNDS)),
    ]


def _refuse_unless_empty(database: Database, named: str, replace: bool) -> None:
    if replace:
        return
    holds = [
        table
        for table in ("tables", "names", "tournaments")
        if database.row(f"SELECT 1 FROM {table} LIMIT 1") is not None
    ]
    if holds:
        raise CopyError(
            f"{named} is not empty (it holds {', '.join(holds)}): copy into an empty one, or"
            " give --replace to empty it first"
        )


def _emptied(replace: bool, tables: tuple[str, ...] = TABLES) -> Steps:
    return [(f"DELETE FROM {table}", [{}]) for table in tables] if replace else []


def _games(source: Database, games: Iterable[Row]) -> Iterator[Values]:
    for table, game in games:
        yield from _rows(
            source, "games", GAMES, "WHERE table_id = :t AND game_no = :g", {"t": table, "g": game}
        )


def _moves(source: Database, games: Iterable[Row]) -> Iterator[Values]:
    for table, game in games:
        yield from _rows(
            source,
            "moves",
            MOVES,
            "WHERE table_id = :t AND game_no = :g ORDER BY idx",
            {"t": table, "g": game},
        )


def _hints(source: Database, games: Iterable[Row]) -> Iterator[Values]:
    for table, game in games:
        yield from _rows(
            source, "hints", HINTS, "WHERE table_id = :t AND game_no = :g", {"t": table, "g": game}
        )


def _rows(
    source: Database,
    table: str,
    columns: str,
    rest: str = "",
    params: Mapping[str, SqlValue] | None = None,
) -> Iterator[Values]:
    names = [column.strip() for column in columns.split(",")]
    for row in source.rows(f"SELECT {columns} FROM {table} {rest}", params):
        yield dict(zip(names, row, strict=True))


def _of(
    rows: Iterable[Values], tables: set[str], key: str = "table_id", keep: bool = True
) -> Iterator[Values]:
    """The rows of these tables (`keep`), or of every other table."""
    return (row for row in rows if (row[key] in tables) == keep)


def _counted(rows: Iterable[Values], copied: Copied, what: str) -> Iterator[Values]:
    for row in rows:
        setattr(copied, what, getattr(copied, what) + 1)
        yield row


def _insert(table: str, columns: str) -> str:
    names = [column.strip() for column in columns.split(",")]
    values = ", ".join(f":{name}" for name in names)
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({values})"


def _named(database: str) -> str:
    return shown(database) if is_postgres(database) else database
