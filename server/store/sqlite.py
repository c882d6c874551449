"""The embedded store: every repository over one SQLite file, through one connection and
its one owner of transactions (database.py). It is the default, and all a host on one
machine needs.

Its callers hold no `SqliteStore`: each is given the repositories it uses, by the interface
its module declares (the lobby and its tables a `TableStore` and an `OutcomeStore`, the
ratings an `OutcomeStore`, the tournament director a `TournamentStore`…), so a repository
kept elsewhere is another implementation of the same interface.
"""

from __future__ import annotations

from server.store.database import Database
from server.store.outcomes import OutcomeStore, SqliteOutcomes
from server.store.people import PeopleStore, SqlitePeople
from server.store.tables import SqliteTables, TableStore
from server.store.tournaments import SqliteTournaments, TournamentStore


class SqliteStore:
    def __init__(self, path: str = ":memory:", readonly: bool = False) -> None:
        """`readonly`: a host's database read by another process (an export, the ratings'
        rebuild), never changed, whatever schema it has."""
        self.database = Database(path, readonly)
        self.tables: TableStore = SqliteTables(self.database)
        self.people: PeopleStore = SqlitePeople(self.database)
        self.outcomes: OutcomeStore = SqliteOutcomes(self.database)
        self.tournaments: TournamentStore = SqliteTournaments(self.database)

    def close(self) -> None:
        self.database.close()
