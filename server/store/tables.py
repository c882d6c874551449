"""The tables: each table, its seats, its games with their moves, and its chat.

Games are event-sourced (Principle 3): a restarted server rebuilds each game by replaying its
moves on the same deck, variants and seed. A live table writes each change here before it
makes it (Principle 6): `TableStore` is that log, read back whole when the server starts.
What the rest of the server reads of any table's games (records, reviews, games played on,
exports, the ratings' replays) is the smaller `GameArchive`.

Typed values go in and come out: a move is kept as the wire's msgpack map (encoded straight
from the protocol's `Move`, decoded straight into one), the variants, a clock and a start as
JSON of their fields, each read back into its type once, here.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import msgspec

from protocol.moves import Move
from protocol.requests import Clock
from protocol.view import Variants
from server.game import Played, Start
from server.store.database import Database, SqlValue, Statement
from server.store.schema import CHAT_STORED, PLAYED_ON

# A move each way between its type and its stored bytes: msgpack of the wire's map, as ever.
_MOVE_IN = msgspec.msgpack.Decoder(Move)
_MOVE_OUT = msgspec.msgpack.Encoder()


class ChatLine(NamedTuple):
    sender: str
    text: str
    watching: bool = False  # said by a spectator, not by a seated player


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
    trait: str | None = None  # whom its bots hurt, as chosen; None: from before traits
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


@dataclass(frozen=True)
class BrokenRecord:
    """A stored table that cannot be read back: its id, name and what is wrong."""

    id: str
    name: str
    problem: str


class GameArchive(Hashable, Protocol):
    """What may be read of any table's games, live or archived: the record, a review, a game
    played on, an export and the ratings' replays read nothing else. Hashable: what a
    finished game was never changes, so readers may keep it by archive."""

    def has_table(self, table_id: str) -> bool:
        """Whether any table, live, archived or broken, has this id."""
        ...

    def table(self, table_id: str) -> TableRecord:
        """One stored table with its seats and its current game's seed, moves and chat;
        KeyError when there is none, ValueError (and kin) when a field cannot be read."""
        ...

    def game(self, table_id: str, game_no: int) -> tuple[int | None, list[Played]]:
        """One game's seed (None: no such game) and its moves, in order; ValueError when a
        move is missing from the sequence or cannot be read."""
        ...

    def start(self, table_id: str, game_no: int) -> Start | None:
        """Where a game began when not at a deal; ValueError naming what is wrong when it
        cannot be read (the table is then quarantined)."""
        ...

    def movers(self, table_id: str, game_no: int) -> list[tuple[int, bool]]:
        """Each move's seat and whether a bot made it for the seat's player, in order."""
        ...

    def hints(self, table_id: str, game_no: int, seat: int) -> dict[int, Move]:
        """The hints `seat` was given in a game, by the step they were for (one that cannot
        be read is left out: it only tells a review what was said)."""
        ...

    def ended(self, table_id: str, game_no: int) -> str | None:
        """How a game ended when its players ended it ('abandoned'), else None."""
        ...

    def played_on(self, table_id: str) -> bool:
        """Whether the table was made to play on from a position (`play_on`: its first game
        began at a `start`): its games are practice."""
        ...


class TableStore(GameArchive, Protocol):
    """A live table's log: each write lands whole before the change it records is made, or
    raises StoreError and nothing is written (Principle 6); and the live tables read back
    when the server starts."""

    def probe(self, now: int) -> None:
        """A real write, to learn whether writes land again after a failure."""
        ...

    def save_table(self, record: TableRecord) -> None: ...

    def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        """Write these seats as one change (a seat taken, bots filling a table)."""
        ...

    def delete_seat(self, table_id: str, seat: int) -> None: ...

    def set_password_hash(self, table_id: str, password_hash: str) -> None: ...

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
        ...

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
        ...

    def add_hint(self, table_id: str, game_no: int, step: int, seat: int, move: Move) -> None:
        """The hint `seat` was given for its decision after `step` moves (asked again, the
        same position gets the same hint: the row is simply written again)."""
        ...

    def add_chat(self, table_id: str, game_no: int, line: ChatLine) -> None:
        """A chat line; only the newest CHAT_STORED of a table are kept."""
        ...

    def archive_table(self, table_id: str, abandoned: bool) -> None:
        """The table is no longer live: its games stay for records and export, its seat
        tokens stop working; `abandoned` marks a current game that did not finish."""
        ...

    def delete_table(self, table_id: str) -> None:
        """A table that never dealt a game: nothing of it is worth keeping."""
        ...

    def load(self) -> list[TableRecord | BrokenRecord]:
        """Every live table, as `table` reads it; one that cannot be read is a BrokenRecord,
        on its own."""
        ...


class Archive:
    """Any table's games read from the store's database: the SQLite file, or PostgreSQL's
    finished games (the same SQL, over the same columns)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def has_table(self, table_id: str) -> bool:
        return (
            self.database.row("SELECT 1 FROM tables WHERE id = :table", {"table": table_id})
            is not None
        )

    def table(self, table_id: str) -> TableRecord:
        row = self.database.row(
            "SELECT id, name, seats, bot_kind, variants, deck_name, deck_toml, password_hash,"
            " clock, game_no, trait FROM tables WHERE id = :table",
            {"table": table_id},
        )
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
            trait=row[10],
        )
        record.seat_records = [
            SeatRecord(*r)
            for r in self.database.rows(
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
            for name, text, watching in self.database.rows(
                "SELECT name, text, watching FROM chat WHERE table_id = :table ORDER BY id",
                {"table": table_id},
            )
        ]
        return record

    def game(self, table_id: str, game_no: int) -> tuple[int | None, list[Played]]:
        key: dict[str, SqlValue] = {"table": table_id, "game": game_no}
        row = self.database.row(
            "SELECT seed FROM games WHERE table_id = :table AND game_no = :game", key
        )
        moves = []
        for expected, (idx, seat, blob) in enumerate(
            self.database.rows(
                "SELECT idx, seat, move FROM moves WHERE table_id = :table AND game_no = :game"
                " ORDER BY idx",
                key,
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
        row = self.database.row(
            "SELECT start FROM games WHERE table_id = :table AND game_no = :game",
            {"table": table_id, "game": game_no},
        )
        if row is None or row[0] is None:
            return None
        try:
            data = json.loads(row[0])
        except json.JSONDecodeError as exc:
            raise ValueError(f"the start of game {game_no} is not JSON ({exc})") from None
        return Start.from_json(data)

    def movers(self, table_id: str, game_no: int) -> list[tuple[int, bool]]:
        rows = self.database.rows(
            "SELECT seat, cover FROM moves WHERE table_id = :table AND game_no = :game"
            " ORDER BY idx",
            {"table": table_id, "game": game_no},
        )
        return [(seat, bool(cover)) for seat, cover in rows]

    def hints(self, table_id: str, game_no: int, seat: int) -> dict[int, Move]:
        given = {}
        for step, blob in self.database.rows(
            "SELECT step, move FROM hints WHERE table_id = :table AND game_no = :game"
            " AND seat = :seat",
            {"table": table_id, "game": game_no, "seat": seat},
        ):
            try:
                given[step] = _MOVE_IN.decode(blob)
            except msgspec.DecodeError:
                continue
        return given

    def ended(self, table_id: str, game_no: int) -> str | None:
        row = self.database.row(
            "SELECT ended FROM games WHERE table_id = :table AND game_no = :game",
            {"table": table_id, "game": game_no},
        )
        return None if row is None else row[0]

    def played_on(self, table_id: str) -> bool:
        row = self.database.row(
            f"SELECT 1 FROM games WHERE table_id = :table AND {PLAYED_ON}", {"table": table_id}
        )
        return row is not None


class SqliteTables(Archive):
    """The tables in the embedded store's SQLite file: its live tables' log, and the
    archive of every game it holds."""

    # -- writes ----------------------------------------------------------------------------

    def probe(self, now: int) -> None:
        self.database.write(("INSERT OR REPLACE INTO probe (id, at) VALUES (1, :at)", {"at": now}))

    def save_table(self, record: TableRecord) -> None:
        self.database.write(
            (
                f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES ({TABLE_VALUES})",
                table_values(record),
            )
        )

    def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        self.database.write(*(seat_statement(table_id, seat) for seat in seats))

    def delete_seat(self, table_id: str, seat: int) -> None:
        self.database.write(
            (
                "DELETE FROM seats WHERE table_id = :table AND seat = :seat",
                {"table": table_id, "seat": seat},
            )
        )

    def set_password_hash(self, table_id: str, password_hash: str) -> None:
        self.database.write(
            (
                "UPDATE tables SET password_hash = :hash WHERE id = :id",
                {"hash": password_hash, "id": table_id},
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
        self.database.write(
            *(seat_statement(table_id, seat) for seat in seats),
            (
                "INSERT INTO games (table_id, game_no, seed, start)"
                " VALUES (:table, :game, :seed, :start)",
                {
                    "table": table_id,
                    "game": game_no,
                    "seed": seed,
                    "start": None if start is None else json_text(start),
                },
            ),
            (
                "UPDATE tables SET game_no = :game WHERE id = :table",
                {"table": table_id, "game": game_no},
            ),
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
        statements = [move_statement(table_id, game_no, idx, Played(seat, move), cover)]
        if bank is not None:
            statements.append(
                (
                    "UPDATE seats SET bank = :bank WHERE table_id = :table AND seat = :seat",
                    {"bank": bank, "table": table_id, "seat": seat},
                )
            )
        self.database.write(*statements)

    def add_hint(self, table_id: str, game_no: int, step: int, seat: int, move: Move) -> None:
        self.database.write(
            (
                "INSERT OR REPLACE INTO hints (table_id, game_no, step, seat, move)"
                " VALUES (:table, :game, :step, :seat, :move)",
                hint_values(table_id, game_no, step, seat, move),
            )
        )

    def add_chat(self, table_id: str, game_no: int, line: ChatLine) -> None:
        self.database.write(
            chat_statement(table_id, game_no, line),
            (
                "DELETE FROM chat WHERE table_id = :table AND id <= (SELECT id FROM chat"
                " WHERE table_id = :table ORDER BY id DESC LIMIT 1 OFFSET :kept)",
                {"table": table_id, "kept": CHAT_STORED},
            ),
        )

    def archive_table(self, table_id: str, abandoned: bool) -> None:
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
        self.database.write(*statements)

    def delete_table(self, table_id: str) -> None:
        self.database.write(
            *(
                (f"DELETE FROM {name} WHERE table_id = :table", {"table": table_id})
                for name in ("chat", "moves", "hints", "games", "seats")
            ),
            ("DELETE FROM tables WHERE id = :table", {"table": table_id}),
        )

    # -- the live tables, read back ------------------------------------------------------

    def load(self) -> list[TableRecord | BrokenRecord]:
        records: list[TableRecord | BrokenRecord] = []
        rows = self.database.rows(  # as bytes: one row's bad text must not stop the listing
            "SELECT CAST(id AS BLOB), CAST(name AS BLOB) FROM tables WHERE archived = 0"
            " ORDER BY rowid"
        )
        for raw_id, raw_name in rows:
            table_id, name = (bytes(b).decode(errors="replace") for b in (raw_id, raw_name))
            try:
                records.append(self.table(table_id))
            except (ValueError, TypeError, KeyError) as exc:
                records.append(BrokenRecord(table_id, name, str(exc) or type(exc).__name__))
        return records


# A table's own columns, and the values of a record for them: as each database keeps them.
TABLE_COLUMNS = (
    "id, name, seats, bot_kind, variants, deck_name, deck_toml, password_hash, clock, game_no,"
    " trait"
)
TABLE_VALUES = ", ".join(f":{column.strip()}" for column in TABLE_COLUMNS.split(","))


def table_values(record: TableRecord) -> dict[str, SqlValue]:
    return {
        "id": record.id,
        "name": record.name,
        "seats": record.seats,
        "bot_kind": record.bot_kind,
        "variants": json_text(record.variants),
        "deck_name": record.deck_name,
        "deck_toml": record.deck_toml,
        "password_hash": record.password_hash,
        "clock": None if record.clock is None else json_text(record.clock),
        "game_no": record.game_no,
        "trait": record.trait,
    }


def seat_statement(table_id: str, seat: SeatRecord) -> Statement:
    """A seat, written over the one it replaces."""
    return (
        "INSERT INTO seats (table_id, seat, name, token_hash, bot_kind, bank, left_game,"
        " identity) VALUES (:table, :seat, :name, :token_hash, :bot_kind, :bank, :left_game,"
        " :identity) ON CONFLICT (table_id, seat) DO UPDATE SET name = excluded.name,"
        " token_hash = excluded.token_hash, bot_kind = excluded.bot_kind, bank = excluded.bank,"
        " left_game = excluded.left_game, identity = excluded.identity",
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


def move_statement(
    table_id: str, game_no: int, idx: int, played: Played, cover: bool = False
) -> Statement:
    return (
        "INSERT INTO moves (table_id, game_no, idx, seat, move, cover)"
        " VALUES (:table, :game, :idx, :seat, :move, :cover)",
        {
            "table": table_id,
            "game": game_no,
            "idx": idx,
            "seat": played.seat,
            "move": _MOVE_OUT.encode(played.move),
            "cover": int(cover),
        },
    )


def chat_statement(table_id: str, game_no: int, line: ChatLine) -> Statement:
    return (
        "INSERT INTO chat (table_id, game_no, name, text, watching)"
        " VALUES (:table, :game, :name, :text, :watching)",
        {
            "table": table_id,
            "game": game_no,
            "name": line.sender,
            "text": line.text,
            "watching": int(line.watching),
        },
    )


def json_text(value: Variants | Clock | Start) -> str:
    """A typed value as the JSON text of its column, encoded straight from its fields."""
    return msgspec.json.encode(value).decode()


def hint_values(
    table_id: str, game_no: int, step: int, seat: int, move: Move
) -> dict[str, SqlValue]:
    return {
        "table": table_id,
        "game": game_no,
        "step": step,
        "seat": seat,
        "move": _MOVE_OUT.encode(move),
    }
