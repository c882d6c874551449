"""Games the host's other processes ended, heard as they land (issue 34 §2; docs/
architecture.md, "Several processes of one host"): the standings of every process count
every game of the host, not its own only. A host on SQLite is one process and has none.

A game's end NOTIFYs in the transaction that writes its outcome (`told`), so it is heard
only once it landed. A listener that listens anew (its first call, a connection lost) cannot
know what was said meanwhile: it says so, and every outcome is read again. The listener has
a connection of its own, used from a thread, never from the game's loop.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple, Protocol

from server.store.database import Statement, StoreUnavailable
from server.store.schema import PLAYED_ON

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

CHANNEL = "gother_ended"  # NOTIFY: a game's outcome landed (the process, the table, the game)


class HeardEnd(NamedTuple):
    """A game another process ended: its outcome's JSON, and whether it was practice."""

    table: str
    game: int
    outcome: str
    practice: bool


class Ended(Protocol):
    def heard(self, timeout: float) -> list[HeardEnd] | None:
        """Wait up to `timeout` seconds for games the others ended: theirs ([]: none); None
        when what was said cannot be known (read every outcome again)."""
        ...

    def close(self) -> None: ...


def told(process: str, table_id: str, game_no: int) -> Statement:
    """What a game's end says to the others, in the transaction that writes its outcome."""
    said = json.dumps([process, table_id, game_no])
    return ("SELECT pg_notify(:channel, :said)", {"channel": CHANNEL, "said": said})


class PostgresEnded:
    def __init__(self, listener: PostgresDatabase, process: str) -> None:
        self.listener = listener  # a PostgreSQL connection of its own, that LISTENs
        self.process = process  # this one: its own games it counted as they ended

    def heard(self, timeout: float) -> list[HeardEnd] | None:
        said = self.listener.said(CHANNEL, timeout)
        if said is None:
            return None
        ends = []
        try:
            for process, table_id, game_no in map(json.loads, said):
                if process == self.process:
                    continue
                row = self.listener.row(
                    "SELECT outcome, EXISTS (SELECT 1 FROM games"
                    f" WHERE table_id = :table AND {PLAYED_ON}) FROM games"
                    " WHERE table_id = :table AND game_no = :game"
                    " AND outcome IS NOT NULL AND ended IS NULL",
                    {"table": table_id, "game": game_no},
                )
                if row is not None:
                    ends.append(HeardEnd(table_id, game_no, str(row[0]), bool(row[1])))
        except StoreUnavailable:  # heard, but not read: read everything again
            return None
        return ends

    def close(self) -> None:
        self.listener.close()
