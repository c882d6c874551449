"""Outcomes: how each game that was played out ended, as the ratings, the standings and the
tournaments' results read it.

An outcome is kept as its JSON (`Outcome.to_json`, server/tables/outcome.py, which reads it
back): the store keeps what the table wrote, and knows nothing of places or ratings. A game
its players ended unfinished has none, and counts for no one.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from server.store.database import Database
from server.store.schema import PLAYED_ON


class StoredOutcome(NamedTuple):
    table: str
    game: int
    outcome: str  # its JSON


class OutcomeStore(Protocol):
    def finish_game(self, table_id: str, game_no: int, outcome: str) -> None:
        """How a game that is over ended, written once it is over."""
        ...

    def all(self) -> list[StoredOutcome]:
        """Every game that ended by being played out."""
        ...

    def outcome(self, table_id: str, game_no: int) -> str | None:
        """A game's outcome, if it was played out."""
        ...

    def has_outcome(self, table_id: str, game_no: int) -> bool:
        """Whether a game's end was written (a restart writes one it finds missing)."""
        ...

    def has_games(self) -> bool:
        """Whether any game was ever dealt here (none: a new host, nothing to rate)."""
        ...

    def games_without_outcome(self) -> list[tuple[str, int]]:
        """(table, game) of every game with no outcome that its players did not end:
        being played, or played out before outcomes were stored (schema 1)."""
        ...

    def practice_tables(self) -> set[str]:
        """Every table made to play on from a position (`GameArchive.played_on`): its
        games are practice, for a rebuild of the standings."""
        ...


class SqliteOutcomes:
    """Outcomes in the embedded store's SQLite file: a column of each game's row."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def finish_game(self, table_id: str, game_no: int, outcome: str) -> None:
        self.database.write(
            (
                "UPDATE games SET outcome = :outcome WHERE table_id = :table AND game_no = :game",
                {"outcome": outcome, "table": table_id, "game": game_no},
            )
        )

    def all(self) -> list[StoredOutcome]:
        rows = self.database.rows(
            "SELECT table_id, game_no, outcome FROM games"
            " WHERE outcome IS NOT NULL AND ended IS NULL"
        )
        return [StoredOutcome(table, game, outcome) for table, game, outcome in rows]

    def outcome(self, table_id: str, game_no: int) -> str | None:
        row = self.database.row(
            "SELECT outcome FROM games WHERE table_id = :table AND game_no = :game"
            " AND outcome IS NOT NULL AND ended IS NULL",
            {"table": table_id, "game": game_no},
        )
        return None if row is None else str(row[0])

    def has_outcome(self, table_id: str, game_no: int) -> bool:
        row = self.database.row(
            "SELECT 1 FROM games WHERE table_id = :table AND game_no = :game"
            " AND outcome IS NOT NULL",
            {"table": table_id, "game": game_no},
        )
        return row is not None

    def has_games(self) -> bool:
        return self.database.row("SELECT 1 FROM games LIMIT 1") is not None

    def games_without_outcome(self) -> list[tuple[str, int]]:
        rows = self.database.rows(
            "SELECT table_id, game_no FROM games WHERE outcome IS NULL AND ended IS NULL"
        )
        return [(table, game) for table, game in rows]

    def practice_tables(self) -> set[str]:
        rows = self.database.rows(f"SELECT table_id FROM games WHERE {PLAYED_ON}")
        return {table for (table,) in rows}
