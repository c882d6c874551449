"""The embedded store: every repository over one SQLite file, through one connection and
its one owner of transactions (database.py). It is the default, and all a host on one
machine needs.

Its callers hold no `SqliteStore`: each is given the repositories it uses, by the interface
its module declares (the lobby and its tables a `TableStore` and an `OutcomeStore`, the
ratings an `OutcomeStore`, the tournament director a `TournamentStore`…), so a repository
kept elsewhere is another implementation of the same interface.
"""

from __future__ import annotations

from server.store.database import SqliteDatabase
from server.store.directory import Directory
from server.store.ended import Ended
from server.store.holds import Holds
from server.store.outcomes import OutcomeStore, SqliteOutcomes
from server.store.people import People, PeopleStore
from server.store.placements import Placements
from server.store.tables import GameArchive, SqliteTables, TableStore
from server.store.tournaments import Tournaments, TournamentStore


class SqliteStore:
    def __init__(self, path: str = ":memory:", readonly: bool = False) -> None:
        """`readonly`: a host's database read by another process (an export, the ratings'
        rebuild), never changed, whatever schema it has."""
        self.database = SqliteDatabase(path, readonly)
        self.tables: TableStore = SqliteTables(self.database)
        self.archive: GameArchive = self.tables  # the live tables' log is the archive too
        self.people: PeopleStore = People(self.database)
        self.outcomes: OutcomeStore = SqliteOutcomes(self.database)
        self.tournaments: TournamentStore = Tournaments(self.database)
        self.directory: Directory | None = None  # one process: no lobby to share
        self.ended: Ended | None = None  # nor games ended elsewhere
        self.holds: Holds | None = None  # it runs every tournament
        self.placements: Placements | None = None  # and seats every table of their rounds
        self.placed: Placements | None = None

    def close(self) -> None:
        self.database.close()
