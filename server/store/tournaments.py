"""Tournaments: what a restart cannot derive of one (its settings, its players in the order
they registered, each round's tables). Results are not kept here: they are the outcomes of
game 1 of each tournament table.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import msgspec

from protocol.view import Variants
from server.store.database import Database, SqlValue, Statement

ROUNDS_OF_AT_ONCE = 500  # tables a statement of `rounds_of` names


class Entrant(NamedTuple):
    """A registered player as stored, in registration order."""

    player: str  # a PlayerId
    dropped: bool
    forfeit: str | None  # the table whose game they dropped out of mid-game
    secret: str | None  # the hash of an anonymous entry's secret (None: its identity proves it)


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
    players: list[Entrant] = field(default_factory=list)
    rounds_played: list[list[tuple[str, list[str]]]] = field(default_factory=list)  # tables


class TournamentStore(Protocol):
    """Each write lands whole before the change it records is made, or raises StoreError."""

    def save_tournament(self, t: TournamentRecord) -> None:
        """A new tournament (its players and rounds come after, one write each)."""
        ...

    def add_tournament_player(
        self, tournament: str, n: int, player: str, secret: str | None = None
    ) -> None:
        """`player` registers, the `n`th (an anonymous one with the hash of its secret)."""
        ...

    def remove_tournament_players(self, tournament: str, players: Sequence[str]) -> None:
        """`players` are taken off the list (not there at its start), all or none."""
        ...

    def drop_tournament_player(self, tournament: str, player: str, forfeit: str | None) -> None:
        """`player` is out of the rounds to come (and of `forfeit`'s game, being played)."""
        ...

    def save_tournament_round(
        self, tournament: str, round_no: int, tables: Sequence[tuple[str, Sequence[str]]]
    ) -> None:
        """A round's tables (table id, its players in seat order), all or none."""
        ...

    def all(self) -> list[TournamentRecord]:
        """Every tournament, with its players and the rounds played, in creation order."""
        ...

    def rounds_of(self, table_ids: Collection[str]) -> dict[str, tuple[str, int]]:
        """The tournament and round each of these tables seats (those that seat one)."""
        ...


class Tournaments:
    """Tournaments in the store's database: the SQLite file, or PostgreSQL (the same SQL)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def save_tournament(self, t: TournamentRecord) -> None:
        self.database.write(
            (
                "INSERT INTO tournaments (id, name, rounds, seats, variants, bot, duplicate,"
                " organiser) VALUES (:id, :name, :rounds, :seats, :variants, :bot, :duplicate,"
                " :organiser)",
                {
                    "id": t.id,
                    "name": t.name,
                    "rounds": t.rounds,
                    "seats": t.seats,
                    "variants": msgspec.json.encode(t.variants).decode(),
                    "bot": t.bot_kind,
                    "duplicate": int(t.duplicate),
                    "organiser": t.organiser,
                },
            )
        )

    def add_tournament_player(
        self, tournament: str, n: int, player: str, secret: str | None = None
    ) -> None:
        self.database.write(
            (
                "INSERT INTO tournament_players (tournament, n, player, secret)"
                " VALUES (:tournament, :n, :player, :secret)",
                {"tournament": tournament, "n": n, "player": player, "secret": secret},
            )
        )

    def remove_tournament_players(self, tournament: str, players: Sequence[str]) -> None:
        self.database.write(
            *(
                (
                    "DELETE FROM tournament_players"
                    " WHERE tournament = :tournament AND player = :player",
                    {"tournament": tournament, "player": player},
                )
                for player in players
            )
        )

    def drop_tournament_player(self, tournament: str, player: str, forfeit: str | None) -> None:
        self.database.write(
            (
                "UPDATE tournament_players SET dropped = 1, forfeit = :forfeit"
                " WHERE tournament = :tournament AND player = :player",
                {"tournament": tournament, "player": player, "forfeit": forfeit},
            )
        )

    def save_tournament_round(
        self, tournament: str, round_no: int, tables: Sequence[tuple[str, Sequence[str]]]
    ) -> None:
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
        self.database.write(*rows)

    def all(self) -> list[TournamentRecord]:
        records = {}
        for row in self.database.rows(
            "SELECT id, name, rounds, seats, variants, bot, duplicate, organiser"
            " FROM tournaments ORDER BY rowid"
        ):
            variants = msgspec.json.decode(row[4], type=Variants)
            records[row[0]] = TournamentRecord(
                row[0], row[1], row[2], row[3], variants, row[5], bool(row[6]), row[7]
            )
        for tournament, player, dropped, forfeit, secret in self.database.rows(
            "SELECT tournament, player, dropped, forfeit, secret FROM tournament_players"
            " ORDER BY tournament, n"
        ):
            records[tournament].players.append(Entrant(player, bool(dropped), forfeit, secret))
        for tournament, round_no, table, players in self.database.rows(
            "SELECT tournament, round, table_id, players FROM tournament_tables"
            " ORDER BY tournament, round, n"
        ):
            played = records[tournament].rounds_played
            while len(played) < round_no:
                played.append([])
            played[round_no - 1].append((table, json.loads(players)))
        return list(records.values())

    def rounds_of(self, table_ids: Collection[str]) -> dict[str, tuple[str, int]]:
        # a statement for every ROUNDS_OF_AT_ONCE tables: read on the game's loop, as a server
        # starts or takes tables over, each far within the parameters a statement may have
        # (PostgreSQL 65,535; SQLite 32,766 as built by python.org, 250,000 by Debian)
        found: dict[str, tuple[str, int]] = {}
        ordered = sorted(table_ids)
        for start in range(0, len(ordered), ROUNDS_OF_AT_ONCE):
            by_name: dict[str, SqlValue] = {
                f"t{n}": t for n, t in enumerate(ordered[start : start + ROUNDS_OF_AT_ONCE])
            }
            wanted = ", ".join(f":{name}" for name in by_name)
            rows = self.database.rows(
                "SELECT table_id, tournament, round FROM tournament_tables"
                f" WHERE table_id IN ({wanted})",
                by_name,
            )
            found |= {table: (tournament, int(n)) for table, tournament, n in rows}
        return found
