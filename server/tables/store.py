"""SQLite persistence: tables, seats (token hashes only), decks, seeds, every move and chat line.

Games are event-sourced (Principle 3): a restarted server rebuilds each game by replaying its
moves on the same deck, variants and seed. Each write is committed at once, so a `kill -9`
loses nothing that a client was told about. A write that fails raises StoreError, and the
caller has changed nothing yet (Principle 6: durable before applied).

Typed values go in and come out: a move is kept as the wire's msgpack map (encoded straight
from the protocol's `Move`, decoded straight into one), the variants, a clock and a start as
JSON of their fields, each read back into its type once, here.

The schema has a version (`PRAGMA user_version`): a new database is made as version 0 and
brought up by the same upgrade steps as an old one, so both paths are one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import msgspec

from protocol.moves import Move
from protocol.requests import Clock
from protocol.view import Variants
from server.files import private_database
from server.game import Played, Start

CHAT_STORED = 50  # chat lines kept per table: history is bounded, not a log of everything
# A move each way between its type and its stored bytes: msgpack of the wire's map, as ever.
_MOVE_IN = msgspec.msgpack.Decoder(Move)
_MOVE_OUT = msgspec.msgpack.Encoder()

# What SQLite takes as a statement's named parameters.
SqlValue = str | int | float | bytes | None
Statement = tuple[str, Mapping[str, SqlValue]]

# Version 0: the schema before it had a version (tests/ratings/fixtures/schema0.db).
SCHEMA_0 = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    seats INTEGER NOT NULL,
    bot_kind TEXT NOT NULL,
    variants TEXT NOT NULL,          -- JSON
    deck_name TEXT NOT NULL,
    deck_toml TEXT NOT NULL,         -- the deck itself, so an edited file cannot break replay
    password_hash TEXT,
    clock TEXT,                      -- JSON {initial, increment} or NULL
    game_no INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT,
    bot_kind TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables(id),
    game_no INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    PRIMARY KEY (table_id, game_no)
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move BLOB NOT NULL,              -- msgpack of the wire move
    PRIMARY KEY (table_id, game_no, idx)
);
CREATE TABLE IF NOT EXISTS chat (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
"""

# UPGRADES[n] takes a database from version n to n + 1, inside one transaction.
UPGRADES = (
    # 1: clock banks survive a restart (issue 13, item 11); finished and deserted tables
    # move to an archive instead of counting as live; chat history is bounded per table.
    f"""
    ALTER TABLE seats ADD COLUMN bank REAL;      -- clock seconds left as its decision began
    ALTER TABLE tables ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN ended TEXT;     -- 'abandoned' when the players ended it
    CREATE INDEX chat_by_table ON chat (table_id, id);
    CREATE TABLE probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    DELETE FROM chat WHERE id IN (
        SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY table_id ORDER BY id DESC) AS n
            FROM chat
        ) WHERE n > {CHAT_STORED}
    );
    """,
    # 2: a spectator's chat line stays marked as watching after a restart (issue 18, item 3).
    "ALTER TABLE chat ADD COLUMN watching INTEGER NOT NULL DEFAULT 0;",
    # 3: standings and ratings (issue 21): how each finished game ended, which moves a bot
    # made for a seat's player, and the game in which a player left their seat to a bot.
    """
    ALTER TABLE games ADD COLUMN outcome TEXT;   -- JSON (server/tables/outcome.py) once over
    ALTER TABLE moves ADD COLUMN cover INTEGER NOT NULL DEFAULT 0;  -- 1: a bot played it
    ALTER TABLE seats ADD COLUMN left_game INTEGER;  -- its player left during this game
    """,
    # 4: tournaments (issue 21): what a restart cannot derive. Results are not stored: they
    # are the stored outcomes of game 1 of each tournament table.
    """
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        seats INTEGER NOT NULL,
        variants TEXT NOT NULL,  -- JSON
        bot TEXT NOT NULL,
        duplicate INTEGER NOT NULL,
        organiser TEXT NOT NULL  -- the PlayerId of its creator
    );
    CREATE TABLE tournament_players (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        n INTEGER NOT NULL,  -- registration order
        player TEXT NOT NULL,  -- a PlayerId
        dropped INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament, player)
    );
    CREATE TABLE tournament_tables (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        n INTEGER NOT NULL,  -- the table's number in its round
        table_id TEXT NOT NULL,
        players TEXT NOT NULL,  -- JSON: the PlayerIds at it in seat order
        PRIMARY KEY (tournament, round, n)
    );
    """,
    # 5: lasting identities (issue 18, item 2): the identity a seat is held by, so it comes
    # back without its token; and every name's first identity (item 3), by skeleton.
    """
    ALTER TABLE seats ADD COLUMN identity TEXT;
    CREATE TABLE names (
        skeleton TEXT PRIMARY KEY,  -- one of protocol.text.skeletons(name)
        name TEXT NOT NULL,         -- as its owner wrote it
        identity TEXT NOT NULL,
        seen REAL NOT NULL          -- when its owner last used it (Unix time)
    );
    """,
    # 6: a game played on from a position of another (issue 22 §3) begins there, not at a
    # deal from its seed: the position is part of the game, as its seed and moves are.
    """
    ALTER TABLE games ADD COLUMN start TEXT;  -- JSON (protocol/start.py); NULL: dealt
    """,
    # 7: the hints each seat was given (issue 29 §3): a review says which moments were the
    # hint's own advice, and never calls one a mistake.
    """
    CREATE TABLE hints (
        table_id TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        step INTEGER NOT NULL,           -- the moves made before it: the decision it was for
        seat INTEGER NOT NULL,
        move BLOB NOT NULL,              -- msgpack of the wire move, as `moves.move`
        PRIMARY KEY (table_id, game_no, step, seat)
    );
    """,
)
SCHEMA_VERSION = len(UPGRADES)


class ChatLine(NamedTuple):
    sender: str
    text: str
    watching: bool = False  # said by a spectator, not by a seated player


class StoreError(Exception):
    """A write did not reach the database (disk full, I/O error, read-only file…)."""


@dataclass
class SeatRecord:
    seat: int
    name: str
    token_hash: str | None
    bot_kind: str | None
    bank: float | None = None
    left_game: int | None = None  # the game its player left in; a bot has played it since
    identity: str | None = None  # the proven identity holding it (None: a token only)


@dataclass
class TableRecord:
    id: str
    name: str
    seats: int
    bot_kind: str  # a bot name, as chosen: the lobby makes it a kind as it builds the table
    variants: Variants
    deck_name: str
    deck_toml: str
    password_hash: str | None
    clock: Clock | None
    game_no: int = 0
    seat_records: list[SeatRecord] = field(default_factory=list)
    seed: int | None = None  # of the current game
    moves: list[Played] = field(default_factory=list)
    chat: list[ChatLine] = field(default_factory=list)
    ended: str | None = None  # the current game's end, when the players ended it
    start: Start | None = None  # where the current game began, if not at a deal

    def players(self) -> tuple[str, ...]:
        """The name of each seat, in seat order ("Seat 2" for one with none stored, counted
        from 1 as players count seats): what a record or a review calls them."""
        names = {s.seat: s.name for s in self.seat_records}
        return tuple(names.get(seat, f"Seat {seat + 1}") for seat in range(self.seats))


@dataclass
class TournamentRecord:
    id: str
    name: str
    rounds: int
    seats: int
    variants: Variants
    bot_kind: str  # a bot name, as chosen (column `bot`): the director makes it a kind
    duplicate: bool
    organiser: str
    players: list[tuple[str, bool]] = field(default_factory=list)  # (player, dropped) in order
    rounds_played: list[list[tuple[str, list[str]]]] = field(default_factory=list)  # tables


@dataclass(frozen=True)
class BrokenRecord:
    """A stored table that cannot be read back: its id, name and what is wrong."""

    id: str
    name: str
    problem: str


class Store:
    def __init__(self, path: str = ":memory:", readonly: bool = False) -> None:
        if readonly:  # export reads a host's database and must never change it
            uri = f"{Path(path).resolve().as_uri()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None)
            if self.version < SCHEMA_VERSION:  # read an older schema through a copy
                self.db = _upgraded_copy(self.db)
            return
        private_database(path)  # it holds the seeds: no one else may read it
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit: every write lands
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.upgrade()

    def close(self) -> None:
        self.db.close()

    # -- the schema ------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def upgrade(self) -> None:
        """Bring the database to SCHEMA_VERSION, one step (one transaction) at a time."""
        with self._write():
            self.db.executescript(SCHEMA_0)
        version = self.version
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"schema version {version} is newer than this server's ({SCHEMA_VERSION})"
            )
        for step in range(version, SCHEMA_VERSION):
            # executescript commits first; BEGIN…COMMIT in the script makes the step atomic
            self.db.executescript(
                f"BEGIN; {UPGRADES[step]}; PRAGMA user_version = {step + 1}; COMMIT;"
            )

    @contextmanager
    def _write(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.rollback()
            raise StoreError(str(exc)) from exc

    def _transaction(self, *statements: Statement) -> None:
        """Run `statements` as one transaction: all of them land, or none (StoreError).
        A single statement is a transaction by itself (autocommit): no BEGIN to pay for."""
        with self._write():
            if len(statements) == 1:
                self.db.execute(*statements[0])
                return
            self.db.execute("BEGIN IMMEDIATE")
            for sql, params in statements:
                self.db.execute(sql, params)
            self.db.execute("COMMIT")

    # -- writes ----------------------------------------------------------------------------

    def probe(self, now: int) -> None:
        """A real write, to learn whether writes land again after a failure."""
        self._transaction(("INSERT OR REPLACE INTO probe (id, at) VALUES (1, :at)", {"at": now}))

    def save_table(self, record: TableRecord) -> None:
        self._transaction(
            (
                "INSERT INTO tables (id, name, seats, bot_kind, variants, deck_name, deck_toml,"
                " password_hash, clock, game_no) VALUES (:id, :name, :seats, :bot_kind,"
                " :variants, :deck_name, :deck_toml, :password_hash, :clock, :game_no)",
                {
                    "id": record.id,
                    "name": record.name,
                    "seats": record.seats,
                    "bot_kind": record.bot_kind,
                    "variants": _json(record.variants),
                    "deck_name": record.deck_name,
                    "deck_toml": record.deck_toml,
                    "password_hash": record.password_hash,
                    "clock": None if record.clock is None else _json(record.clock),
                    "game_no": record.game_no,
                },
            )
        )

    def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        """Write these seats as one change (a seat taken, bots filling a table)."""
        self._transaction(*(_seat_statement(table_id, seat) for seat in seats))

    def save_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str | None,
        bot_kind: str | None,
        bank: float | None = None,
    ) -> None:
        self.save_seats(table_id, [SeatRecord(seat, name, token_hash, bot_kind, bank)])

    def claim_name(self, keys: Iterable[str], name: str, identity: str, seen: float) -> None:
        """`identity` owns `name` under each of its skeleton keys, seen now."""
        claims: list[Statement] = [
            (
                "INSERT OR REPLACE INTO names (skeleton, name, identity, seen)"
                " VALUES (:key, :name, :identity, :seen)",
                {"key": key, "name": name, "identity": identity, "seen": seen},
            )
            for key in sorted(keys)
        ]
        self._transaction(*claims)

    def release_name(self, keys: Iterable[str]) -> int:
        """Free these skeleton keys; how many were owned."""
        keys = sorted(keys)
        owned = sum(len(self.name_owners([key])) for key in keys)
        self._transaction(
            *(("DELETE FROM names WHERE skeleton = :key", {"key": key}) for key in keys)
        )
        return owned

    def delete_seat(self, table_id: str, seat: int) -> None:
        self._transaction(
            (
                "DELETE FROM seats WHERE table_id = :table AND seat = :seat",
                {"table": table_id, "seat": seat},
            )
        )

    def start_game(
        self,
        table_id: str,
        game_no: int,
        seed: int,
        seats: Sequence[SeatRecord] = (),
        start: Start | None = None,
    ) -> None:
        """A deal (or a `start` position), with the seats it fills with bots and the banks it
        sets, as one change."""
        self._transaction(
            *(_seat_statement(table_id, seat) for seat in seats),
            (
                "INSERT INTO games (table_id, game_no, seed, start)"
                " VALUES (:table, :game, :seed, :start)",
                {
                    "table": table_id,
                    "game": game_no,
                    "seed": seed,
                    "start": None if start is None else _json(start),
                },
            ),
            (
                "UPDATE tables SET game_no = :game WHERE id = :table",
                {"table": table_id, "game": game_no},
            ),
        )

    def set_password_hash(self, table_id: str, password_hash: str) -> None:
        self._transaction(
            (
                "UPDATE tables SET password_hash = :hash WHERE id = :id",
                {"hash": password_hash, "id": table_id},
            )
        )

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
        """One move, and the mover's clock bank after it when the table has a clock;
        `cover`: a bot made it in the place of the seat's player."""
        statements: list[Statement] = [
            (
                "INSERT INTO moves (table_id, game_no, idx, seat, move, cover)"
                " VALUES (:table, :game, :idx, :seat, :move, :cover)",
                {
                    "table": table_id,
                    "game": game_no,
                    "idx": idx,
                    "seat": seat,
                    "move": _MOVE_OUT.encode(move),
                    "cover": int(cover),
                },
            )
        ]
        if bank is not None:
            statements.append(
                (
                    "UPDATE seats SET bank = :bank WHERE table_id = :table AND seat = :seat",
                    {"bank": bank, "table": table_id, "seat": seat},
                )
            )
        self._transaction(*statements)

    def add_hint(self, table_id: str, game_no: int, step: int, seat: int, move: Move) -> None:
        """The hint `seat` was given for its decision after `step` moves (asked again, the
        same position gets the same hint: the row is simply written again)."""
        self._transaction(
            (
                "INSERT OR REPLACE INTO hints (table_id, game_no, step, seat, move)"
                " VALUES (:table, :game, :step, :seat, :move)",
                {
                    "table": table_id,
                    "game": game_no,
                    "step": step,
                    "seat": seat,
                    "move": _MOVE_OUT.encode(move),
                },
            )
        )

    def finish_game(self, table_id: str, game_no: int, outcome: str) -> None:
        """How a game that is over ended (its JSON, `Outcome.to_json`), for the standings."""
        self._transaction(
            (
                "UPDATE games SET outcome = :outcome WHERE table_id = :table AND game_no = :game",
                {"outcome": outcome, "table": table_id, "game": game_no},
            )
        )

    def add_chat(self, table_id: str, game_no: int, line: ChatLine) -> None:
        """A chat line; only the newest CHAT_STORED of a table are kept."""
        self._transaction(
            (
                "INSERT INTO chat (table_id, game_no, name, text, watching)"
                " VALUES (:table, :game, :name, :text, :watching)",
                {
                    "table": table_id,
                    "game": game_no,
                    "name": line.sender,
                    "text": line.text,
                    "watching": int(line.watching),
                },
            ),
            (
                "DELETE FROM chat WHERE table_id = :table AND id <= (SELECT id FROM chat"
                " WHERE table_id = :table ORDER BY id DESC LIMIT 1 OFFSET :kept)",
                {"table": table_id, "kept": CHAT_STORED},
            ),
        )

    def archive_table(self, table_id: str, abandoned: bool) -> None:
        """The table is no longer live: its games stay for records and export, its seat
        tokens stop working; `abandoned` marks a current game that did not finish."""
        statements: list[Statement] = [
            ("UPDATE tables SET archived = 1 WHERE id = :table", {"table": table_id}),
            ("UPDATE seats SET token_hash = NULL WHERE table_id = :table", {"table": table_id}),
        ]
        if abandoned:
            statements.append(
                (
                    "UPDATE games SET ended = 'abandoned' WHERE table_id = :table"
                    " AND game_no = (SELECT game_no FROM tables WHERE id = :table)",
                    {"table": table_id},
                )
            )
        self._transaction(*statements)

    def delete_table(self, table_id: str) -> None:
        """A table that never dealt a game: nothing of it is worth keeping."""
        self._transaction(
            *(
                (f"DELETE FROM {name} WHERE table_id = :table", {"table": table_id})
                for name in ("chat", "moves", "hints", "games", "seats")
            ),
            ("DELETE FROM tables WHERE id = :table", {"table": table_id}),
        )

    # -- reads -----------------------------------------------------------------------------

    def name_owners(self, keys: Iterable[str]) -> list[tuple[str, float]]:
        """(identity, last seen) of whoever owns any of these skeleton keys."""
        return [
            (str(identity), float(seen))
            for key in keys
            for identity, seen in self.db.execute(
                "SELECT identity, seen FROM names WHERE skeleton = :key", {"key": key}
            )
        ]

    def name_of(self, identity: str) -> str | None:
        """The name `identity` last used, if it owns one."""
        row = self.db.execute(
            "SELECT name FROM names WHERE identity = :identity ORDER BY seen DESC LIMIT 1",
            {"identity": identity},
        ).fetchone()
        return None if row is None else str(row[0])

    def load(self, archived: bool = False) -> list[TableRecord | BrokenRecord]:
        """Every live table (or every archived one) with its seats and its current game's
        seed, moves and chat. A table that cannot be read is a BrokenRecord, on its own."""
        records: list[TableRecord | BrokenRecord] = []
        rows = self.db.execute(  # as bytes: one row's bad text must not stop the listing
            "SELECT CAST(id AS BLOB), CAST(name AS BLOB) FROM tables"
            " WHERE archived = :archived ORDER BY rowid",
            {"archived": int(archived)},
        ).fetchall()
        for raw_id, raw_name in rows:
            table_id, name = (bytes(b).decode(errors="replace") for b in (raw_id, raw_name))
            try:
                records.append(self.table(table_id))
            except (ValueError, TypeError, KeyError) as exc:
                records.append(BrokenRecord(table_id, name, str(exc) or type(exc).__name__))
        return records

    def has_table(self, table_id: str) -> bool:
        """Whether any table, live, archived or broken, has this id."""
        row = self.db.execute("SELECT 1 FROM tables WHERE id = :table", {"table": table_id})
        return row.fetchone() is not None

    def table(self, table_id: str) -> TableRecord:
        """One stored table; ValueError (and kin) when a stored field cannot be read."""
        with _utf8(table_id):
            return self._table(table_id)

    def _table(self, table_id: str) -> TableRecord:
        row = self.db.execute(
            "SELECT id, name, seats, bot_kind, variants, deck_name, deck_toml, password_hash,"
            " clock, game_no FROM tables WHERE id = :table",
            {"table": table_id},
        ).fetchone()
        if row is None:
            raise KeyError(f"no table {table_id!r}")
        try:
            variants = msgspec.json.decode(row[4], type=Variants)
            clock = None if row[8] is None else msgspec.json.decode(row[8], type=Clock)
        except msgspec.DecodeError as exc:
            raise ValueError(f"its variants or clock cannot be read ({exc})") from None
        record = TableRecord(
            id=row[0],
            name=row[1],
            seats=row[2],
            bot_kind=row[3],
            variants=variants,
            deck_name=row[5],
            deck_toml=row[6],
            password_hash=row[7],
            clock=clock,
            game_no=row[9],
        )
        record.seat_records = [
            SeatRecord(*r)
            for r in self.db.execute(
                "SELECT seat, name, token_hash, bot_kind, bank, left_game, identity FROM seats"
                " WHERE table_id = :table ORDER BY seat",
                {"table": table_id},
            )
        ]
        record.seed, record.moves = self.game(table_id, record.game_no)
        record.start = self.start(table_id, record.game_no)
        record.ended = self.ended(table_id, record.game_no)
        record.chat = [
            ChatLine(name, text, bool(watching))
            for name, text, watching in self.db.execute(
                "SELECT name, text, watching FROM chat WHERE table_id = :table ORDER BY id",
                {"table": table_id},
            )
        ]
        return record

    def game(self, table_id: str, game_no: int) -> tuple[int | None, list[Played]]:
        """One game's seed and its moves, in order; ValueError when a move is missing from
        the sequence or cannot be read."""
        row = self.db.execute(
            "SELECT seed FROM games WHERE table_id = :table AND game_no = :game",
            {"table": table_id, "game": game_no},
        ).fetchone()
        moves = []
        for expected, (idx, seat, blob) in enumerate(
            self.db.execute(
                "SELECT idx, seat, move FROM moves WHERE table_id = :table AND game_no = :game"
                " ORDER BY idx",
                {"table": table_id, "game": game_no},
            )
        ):
            if idx != expected:
                raise ValueError(f"game {game_no} has no move {expected}")
            try:
                moves.append(Played(seat, _MOVE_IN.decode(blob)))
            except msgspec.DecodeError as exc:
                raise ValueError(f"move {idx} of game {game_no} is not a move ({exc})") from None
        return (None if row is None else row[0]), moves

    def start(self, table_id: str, game_no: int) -> Start | None:
        """Where a game began when not at a deal; ValueError naming what is wrong when it
        cannot be read (the table is then quarantined)."""
        row = self.db.execute(
            "SELECT start FROM games WHERE table_id = :table AND game_no = :game",
            {"table": table_id, "game": game_no},
        ).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            data = json.loads(row[0])
        except json.JSONDecodeError as exc:
            raise ValueError(f"the start of game {game_no} is not JSON ({exc})") from None
        return Start.from_json(data)

    def movers(self, table_id: str, game_no: int) -> list[tuple[int, bool]]:
        """Each move's seat and whether a bot made it for the seat's player, in order."""
        rows = self.db.execute(
            "SELECT seat, cover FROM moves WHERE table_id = :table AND game_no = :game"
            " ORDER BY idx",
            {"table": table_id, "game": game_no},
        )
        return [(seat, bool(cover)) for seat, cover in rows]

    def hints(self, table_id: str, game_no: int, seat: int) -> dict[int, Move]:
        """The hints `seat` was given in a game, by the step they were for (one that cannot
        be read is left out: it only tells a review what was said)."""
        rows = self.db.execute(
            "SELECT step, move FROM hints WHERE table_id = :table AND game_no = :game"
            " AND seat = :seat",
            {"table": table_id, "game": game_no, "seat": seat},
        )
        given = {}
        for step, blob in rows:
            try:
                given[step] = _MOVE_IN.decode(blob)
            except msgspec.DecodeError:
                continue
        return given

    def outcomes(self) -> list[tuple[str, int, str]]:
        """(table, game, outcome JSON) of every game that ended by being played out."""
        rows = self.db.execute(
            "SELECT table_id, game_no, outcome FROM games"
            " WHERE outcome IS NOT NULL AND ended IS NULL"
        )
        return [(table, game, outcome) for table, game, outcome in rows]

    # -- tournaments ---------------------------------------------------------------------

    def save_tournament(self, t: TournamentRecord) -> None:
        self._transaction(
            (
                "INSERT INTO tournaments (id, name, rounds, seats, variants, bot, duplicate,"
                " organiser) VALUES (:id, :name, :rounds, :seats, :variants, :bot, :duplicate,"
                " :organiser)",
                {
                    "id": t.id,
                    "name": t.name,
                    "rounds": t.rounds,
                    "seats": t.seats,
                    "variants": _json(t.variants),
                    "bot": t.bot_kind,
                    "duplicate": int(t.duplicate),
                    "organiser": t.organiser,
                },
            )
        )

    def add_tournament_player(self, tournament: str, n: int, player: str) -> None:
        self._transaction(
            (
                "INSERT INTO tournament_players (tournament, n, player)"
                " VALUES (:tournament, :n, :player)",
                {"tournament": tournament, "n": n, "player": player},
            )
        )

    def drop_tournament_player(self, tournament: str, player: str) -> None:
        self._transaction(
            (
                "UPDATE tournament_players SET dropped = 1"
                " WHERE tournament = :tournament AND player = :player",
                {"tournament": tournament, "player": player},
            )
        )

    def save_tournament_round(
        self, tournament: str, round_no: int, tables: Sequence[tuple[str, Sequence[str]]]
    ) -> None:
        """A round's tables (table id, its players in seat order), all or none."""
        rows: list[Statement] = [
            (
                "INSERT INTO tournament_tables (tournament, round, n, table_id, players)"
                " VALUES (:tournament, :round, :n, :table, :players)",
                {
                    "tournament": tournament,
                    "round": round_no,
                    "n": n,
                    "table": table,
                    "players": json.dumps(list(players)),
                },
            )
            for n, (table, players) in enumerate(tables, 1)
        ]
        self._transaction(*rows)

    def tournaments(self) -> list[TournamentRecord]:
        records = {}
        for row in self.db.execute(
            "SELECT id, name, rounds, seats, variants, bot, duplicate, organiser"
            " FROM tournaments ORDER BY rowid"
        ):
            variants = msgspec.json.decode(row[4], type=Variants)
            records[row[0]] = TournamentRecord(
                row[0], row[1], row[2], row[3], variants, row[5], bool(row[6]), row[7]
            )
        for tournament, player, dropped in self.db.execute(
            "SELECT tournament, player, dropped FROM tournament_players ORDER BY tournament, n"
        ):
            records[tournament].players.append((player, bool(dropped)))
        for tournament, round_no, table, players in self.db.execute(
            "SELECT tournament, round, table_id, players FROM tournament_tables"
            " ORDER BY tournament, round, n"
        ):
            played = records[tournament].rounds_played
            while len(played) < round_no:
                played.append([])
            played[round_no - 1].append((table, json.loads(players)))
        return list(records.values())

    def outcome(self, table_id: str, game_no: int) -> str | None:
        """A game's stored outcome (its JSON, `Outcome.from_json`), if it was played out."""
        row = self.db.execute(
            "SELECT outcome FROM games WHERE table_id = :table AND game_no = :game"
            " AND outcome IS NOT NULL AND ended IS NULL",
            {"table": table_id, "game": game_no},
        ).fetchone()
        return None if row is None else str(row[0])

    def has_games(self) -> bool:
        return self.db.execute("SELECT 1 FROM games LIMIT 1").fetchone() is not None

    def games_without_outcome(self) -> list[tuple[str, int]]:
        """(table, game) of every game with no stored outcome that its players did not end:
        being played, or played out before outcomes were stored (schema 1)."""
        rows = self.db.execute(
            "SELECT table_id, game_no FROM games WHERE outcome IS NULL AND ended IS NULL"
        )
        return [(table, game) for table, game in rows]

    def has_outcome(self, table_id: str, game_no: int) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM games WHERE table_id = :table AND game_no = :game"
            " AND outcome IS NOT NULL",
            {"table": table_id, "game": game_no},
        )
        return row.fetchone() is not None

    def ended(self, table_id: str, game_no: int) -> str | None:
        row = self.db.execute(
            "SELECT ended FROM games WHERE table_id = :table AND game_no = :game",
            {"table": table_id, "game": game_no},
        ).fetchone()
        return None if row is None else row[0]


@contextmanager
def _utf8(table_id: str) -> Iterator[None]:
    """A text column that is not UTF-8 (SQLite stores whatever bytes it is given) is a
    ValueError of that table, like any other field that cannot be read."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "decode to UTF-8" not in str(exc):
            raise  # not the data's fault: the database itself
        column = str(exc).partition(" with text")[0].removeprefix("Could not decode to UTF-8 ")
        raise ValueError(f"its {column} holds text that is not UTF-8") from None


def _seat_statement(table_id: str, seat: SeatRecord) -> Statement:
    return (
        "INSERT OR REPLACE INTO seats (table_id, seat, name, token_hash, bot_kind, bank,"
        " left_game, identity) VALUES (:table, :seat, :name, :token_hash, :bot_kind, :bank,"
        " :left_game, :identity)",
        {
            "table": table_id,
            "seat": seat.seat,
            "name": seat.name,
            "token_hash": seat.token_hash,
            "bot_kind": seat.bot_kind,
            "bank": seat.bank,
            "left_game": seat.left_game,
            "identity": seat.identity,
        },
    )


def _json(value: Variants | Clock | Start) -> str:
    """A typed value as the JSON text of its column, encoded straight from its fields."""
    return msgspec.json.encode(value).decode()


def _upgraded_copy(db: sqlite3.Connection) -> sqlite3.Connection:
    """An in-memory copy of `db` brought to SCHEMA_VERSION; `db` itself is left as it is."""
    copy = sqlite3.connect(":memory:", isolation_level=None)
    db.backup(copy)
    db.close()
    store = Store.__new__(Store)
    store.db = copy
    store.upgrade()
    return copy
