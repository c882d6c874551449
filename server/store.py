"""SQLite persistence: tables, seats (token hashes only), decks, seeds, every move and chat line.

Games are event-sourced (Principle 3): a restarted server rebuilds each game by replaying its
moves on the same deck, variants and seed. Each write is committed at once, so a `kill -9`
loses nothing that a client was told about.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from server.files import private_database

SCHEMA = """
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


@dataclass
class SeatRecord:
    seat: int
    name: str
    token_hash: str | None
    bot_kind: str | None


@dataclass
class TableRecord:
    id: str
    name: str
    seats: int
    bot_kind: str
    variants: dict[str, Any]
    deck_name: str
    deck_toml: str
    password_hash: str | None
    clock: dict[str, float] | None
    game_no: int = 0
    seat_records: list[SeatRecord] = field(default_factory=list)
    seed: int | None = None  # of the current game
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (seat, wire move)
    chat: list[tuple[str, str]] = field(default_factory=list)


class Store:
    def __init__(self, path: str = ":memory:", readonly: bool = False) -> None:
        if readonly:  # export reads a host's database and must never change it
            uri = f"{Path(path).resolve().as_uri()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None)
            return
        private_database(path)  # it holds the seeds: no one else may read it
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit: every write lands
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def save_table(self, record: TableRecord) -> None:
        self.db.execute(
            "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                record.name,
                record.seats,
                record.bot_kind,
                json.dumps(record.variants),
                record.deck_name,
                record.deck_toml,
                record.password_hash,
                None if record.clock is None else json.dumps(record.clock),
                record.game_no,
            ),
        )

    def set_password_hash(self, table_id: str, password_hash: str) -> None:
        self.db.execute(
            "UPDATE tables SET password_hash = ? WHERE id = ?", (password_hash, table_id)
        )

    def save_seat(
        self, table_id: str, seat: int, name: str, token_hash: str | None, bot_kind: str | None
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?)",
            (table_id, seat, name, token_hash, bot_kind),
        )

    def delete_seat(self, table_id: str, seat: int) -> None:
        self.db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))

    def start_game(self, table_id: str, game_no: int, seed: int) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO games VALUES (?, ?, ?)", (table_id, game_no, seed))
            self.db.execute("UPDATE tables SET game_no = ? WHERE id = ?", (game_no, table_id))

    def add_move(
        self, table_id: str, game_no: int, idx: int, seat: int, move: dict[str, Any]
    ) -> None:
        self.db.execute(
            "INSERT INTO moves VALUES (?, ?, ?, ?, ?)",
            (table_id, game_no, idx, seat, msgpack.packb(move)),
        )

    def add_chat(self, table_id: str, game_no: int, name: str, text: str) -> None:
        self.db.execute(
            "INSERT INTO chat (table_id, game_no, name, text) VALUES (?, ?, ?, ?)",
            (table_id, game_no, name, text),
        )

    def load(self) -> list[TableRecord]:
        """Every table, with its seats and its current game's seed, moves and chat."""
        records = []
        for row in self.db.execute("SELECT * FROM tables ORDER BY rowid"):
            record = TableRecord(
                id=row[0],
                name=row[1],
                seats=row[2],
                bot_kind=row[3],
                variants=json.loads(row[4]),
                deck_name=row[5],
                deck_toml=row[6],
                password_hash=row[7],
                clock=None if row[8] is None else json.loads(row[8]),
                game_no=row[9],
            )
            record.seat_records = [
                SeatRecord(*r)
                for r in self.db.execute(
                    "SELECT seat, name, token_hash, bot_kind FROM seats WHERE table_id = ?"
                    " ORDER BY seat",
                    (record.id,),
                )
            ]
            record.seed, record.moves = self.game(record.id, record.game_no)
            record.chat = [
                (name, text)
                for name, text in self.db.execute(
                    "SELECT name, text FROM chat WHERE table_id = ? ORDER BY id", (record.id,)
                )
            ]
            records.append(record)
        return records

    def game(
        self, table_id: str, game_no: int
    ) -> tuple[int | None, list[tuple[int, dict[str, Any]]]]:
        """One game's seed and its moves as (seat, wire move), in order."""
        row = self.db.execute(
            "SELECT seed FROM games WHERE table_id = ? AND game_no = ?", (table_id, game_no)
        ).fetchone()
        moves = [
            (seat, msgpack.unpackb(blob))
            for seat, blob in self.db.execute(
                "SELECT seat, move FROM moves WHERE table_id = ? AND game_no = ? ORDER BY idx",
                (table_id, game_no),
            )
        ]
        return (None if row is None else row[0]), moves
