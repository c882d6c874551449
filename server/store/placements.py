"""A tournament round's tables placed at the host's processes (issue 34 §2; docs/
architecture.md, "Several processes of one host"). A host on SQLite is one process, which
seats every table itself, and has none.

The process running a tournament places each table of a round at the live process holding
the fewest tables (`loads`): a row saying what to make (its players by identity, its seed,
variants and bots), written with a NOTIFY on the lobby's channel in one transaction, so the
target is woken only once it landed (`place`). The target reads the rows placed at it and not
made yet (`pending`) whenever it is woken and at every renewal, never trusting that it heard
every notification; it makes each table and answers with its id in the row, waking the
runner the same way (`made`), which reads the answers (`answers`). A process that withdraws
takes the rows placed at it with it (a cascade), so a runner never waits on a process gone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

import msgspec

from protocol.view import Variants
from server.store.database import Row, SqlValue, Statement
from server.store.directory import CHANNEL

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

COLUMNS = "tournament, round, number, name, seats, variants, bot, seed, players, table_id"


class Placement(NamedTuple):
    """A table of a tournament's round, to be made at another process."""

    tournament: str
    round: int
    number: int  # the table's, in its round (1, 2, ...)
    name: str  # the table's
    seats: int
    variants: Variants
    bot_kind: str  # how its bots play (a bot name)
    seed: int | None  # duplicate: the round's deal, the same at every table; None: its own
    players: tuple[tuple[str, str], ...]  # (PlayerId, name shown), in seat order
    table_id: str | None = None  # the table made, once it is


class Placements(Protocol):
    process: str  # this one, as the host knows it (its table log)

    def loads(self) -> dict[str, int]:
        """The live processes of the host and the tables each holds, as last published
        (StoreUnavailable)."""
        ...

    def place(self, placed: Sequence[tuple[str, Placement]]) -> None:
        """Place tables of a round this process runs, each at its process (process,
        placement), all or none (StoreError)."""
        ...

    def pending(self) -> list[Placement]:
        """The tables placed at this process and not made yet (StoreUnavailable)."""
        ...

    def made(self, placement: Placement, table_id: str) -> None:
        """`placement`'s table was made here (StoreError)."""
        ...

    def withdraw(self, placement: Placement) -> bool:
        """Take back `placement`, not made yet (its process went): True when it was not
        made, so it is the runner's to make (StoreUnavailable)."""
        ...

    def live(self, table_ids: Sequence[str]) -> set[str]:
        """Those of these tables a process of the host holds live (its log, `tables.log`:
        a process that died holds its own until they are taken over) (StoreUnavailable)."""
        ...

    def answers(self, tournament: str, round_no: int) -> dict[int, str | None]:
        """The tables of a round placed elsewhere, by number: the table made there, None
        while it is not; one whose process went is missing (StoreUnavailable)."""
        ...

    def rounds_of(self, table_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The tournament and round of each of these tables made as placed (a round's
        tables are stored with it only once all are made) (StoreUnavailable)."""
        ...


class PostgresPlacements:
    def __init__(self, database: PostgresDatabase, process: str) -> None:
        self.database = database
        self.process = process

    def loads(self) -> dict[str, int]:
        rows = self.database.rows(
            "SELECT processes.id, count(lobby.table_id) FROM processes"
            " LEFT JOIN lobby ON lobby.process = processes.id"
            " AND lobby.table_id NOT LIKE 'tournament:%'"
            " WHERE processes.lease_until > now() GROUP BY processes.id"
        )
        return {process: int(tables) for process, tables in rows}

    def place(self, placed: Sequence[tuple[str, Placement]]) -> None:
        statements: list[Statement] = [
            (
                f"INSERT INTO placements (process, runner, {COLUMNS}) VALUES (:process, :runner,"
                " :tournament, :round, :number, :name, :seats, :variants, :bot, :seed, :players,"
                " NULL)",
                {
                    "process": process,
                    "runner": self.process,
                    "tournament": p.tournament,
                    "round": p.round,
                    "number": p.number,
                    "name": p.name,
                    "seats": p.seats,
                    "variants": msgspec.json.encode(p.variants).decode(),
                    "bot": p.bot_kind,
                    "seed": p.seed,
                    "players": json.dumps([list(player) for player in p.players]),
                },
            )
            for process, p in placed
        ]
        # each target woken once, when it landed
        statements += [_woken(process) for process in sorted({process for process, _ in placed})]
        self.database.write(*statements)

    def pending(self) -> list[Placement]:
        rows = self.database.rows(
            f"SELECT {COLUMNS} FROM placements WHERE process = :process AND table_id IS NULL"
            " ORDER BY tournament, round, number",
            {"process": self.process},
        )
        return [_placement(row) for row in rows]

    def made(self, placement: Placement, table_id: str) -> None:
        key: dict[str, SqlValue] = {
            "tournament": placement.tournament,
            "round": placement.round,
            "number": placement.number,
        }
        self.database.write(  # made once; its runner woken to read it
            (
                "UPDATE placements SET table_id = :table WHERE tournament = :tournament"
                " AND round = :round AND number = :number AND table_id IS NULL",
                key | {"table": table_id},
            ),
            (
                "SELECT pg_notify(:channel, runner) FROM placements WHERE tournament = :tournament"
                " AND round = :round AND number = :number",
                key | {"channel": CHANNEL},
            ),
        )

    def withdraw(self, placement: Placement) -> bool:
        found = self.database.rows(
            "DELETE FROM placements WHERE tournament = :tournament AND round = :round"
            " AND number = :number AND table_id IS NULL RETURNING number",
            {"tournament": placement.tournament, "round": placement.round,
             "number": placement.number},
        )  # fmt: skip
        return bool(found)

    def live(self, table_ids: Sequence[str]) -> set[str]:
        rows = self.database.rows(
            "SELECT id FROM tables WHERE id = ANY(:ids) AND log IS NOT NULL",
            {"ids": list(table_ids)},  # type: ignore[dict-item]
        )
        return {table_id for (table_id,) in rows}

    def answers(self, tournament: str, round_no: int) -> dict[int, str | None]:
        rows = self.database.rows(
            "SELECT number, table_id FROM placements"
            " WHERE tournament = :tournament AND round = :round",
            {"tournament": tournament, "round": round_no},
        )
        return {int(number): table_id for number, table_id in rows}

    def rounds_of(self, table_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        rows = self.database.rows(
            "SELECT table_id, tournament, round FROM placements WHERE table_id = ANY(:ids)",
            {"ids": list(table_ids)},  # type: ignore[dict-item]
        )
        return {table_id: (tournament, int(round_no)) for table_id, tournament, round_no in rows}


def _woken(process: str) -> Statement:
    return ("SELECT pg_notify(:channel, :process)", {"channel": CHANNEL, "process": process})


def _placement(row: Row) -> Placement:
    tournament, round_no, number, name, seats, variants, bot, seed, players, table_id = row
    return Placement(
        tournament,
        round_no,
        number,
        name,
        seats,
        msgspec.json.decode(variants, type=Variants),
        bot,
        seed,
        tuple((player, shown) for player, shown in json.loads(players)),
        table_id,
    )
