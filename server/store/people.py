"""People: who owns which name on this host, and when they last used it.

An identity is the hash of the key its player proved (server/edge/identity.py): nothing of
it is kept but the names it owns (here) and the seats it holds (the tables'). A name is
owned under each of its skeleton keys (protocol.text.skeletons), so that a name which would
pass for another is owned with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Protocol

from server.store.database import Database, Statement


class NameOwner(NamedTuple):
    identity: str
    seen: float  # when its owner last used the name (Unix time)


class PeopleStore(Protocol):
    def claim_name(self, keys: Iterable[str], name: str, identity: str, seen: float) -> None:
        """`identity` owns `name` under each of its skeleton keys, seen now."""
        ...

    def release_name(self, keys: Iterable[str]) -> int:
        """Free these skeleton keys; how many were owned."""
        ...

    def name_owners(self, keys: Iterable[str]) -> list[NameOwner]:
        """Whoever owns any of these skeleton keys."""
        ...

    def name_of(self, identity: str) -> str | None:
        """The name `identity` last used, if it owns one."""
        ...


class SqlitePeople:
    """People in the embedded store's SQLite file."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def claim_name(self, keys: Iterable[str], name: str, identity: str, seen: float) -> None:
        claims: list[Statement] = [
            (
                "INSERT OR REPLACE INTO names (skeleton, name, identity, seen)"
                " VALUES (:key, :name, :identity, :seen)",
                {"key": key, "name": name, "identity": identity, "seen": seen},
            )
            for key in sorted(keys)
        ]
        self.database.write(*claims)

    def release_name(self, keys: Iterable[str]) -> int:
        keys = sorted(keys)
        owned = len(self.name_owners(keys))
        self.database.write(
            *(("DELETE FROM names WHERE skeleton = :key", {"key": key}) for key in keys)
        )
        return owned

    def name_owners(self, keys: Iterable[str]) -> list[NameOwner]:
        return [
            NameOwner(str(identity), float(seen))
            for key in keys
            for identity, seen in self.database.rows(
                "SELECT identity, seen FROM names WHERE skeleton = :key", {"key": key}
            )
        ]

    def name_of(self, identity: str) -> str | None:
        row = self.database.row(
            "SELECT name FROM names WHERE identity = :identity ORDER BY seen DESC LIMIT 1",
            {"identity": identity},
        )
        return None if row is None else str(row[0])
