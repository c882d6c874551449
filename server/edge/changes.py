"""After a table changes: everyone there told, its timer armed, and what a game's end means
beyond its table (the host's standings, the names its players own, a tournament's round)."""

from __future__ import annotations

from server.edge.connection import Connection
from server.edge.identity import Names
from server.ratings.host import HostStandings
from server.tables.fanout import close_table, publish
from server.tables.lobby import Lobby
from server.tables.outcome import Outcome
from server.tables.pacer import Pacer
from server.tables.table import Peer, Table
from server.tournament.director import Director


class Changes:
    """The one way a change of a table is told, by a request's handler or the table's timer."""

    def __init__(
        self,
        lobby: Lobby,
        pacer: Pacer,
        standings: HostStandings,
        names: Names,
        director: Director,
    ) -> None:
        self.lobby = lobby
        self.pacer = pacer
        self.standings = standings
        self.names = names
        self.director = director

    def after_change(self, table: Table, mover: Peer | None = None, rid: int | None = None) -> None:
        """Tell everyone at `table` of its change (`mover`'s state answers its request `rid`)
        and arm the table's timer for what is due next."""
        publish(table, mover, rid)
        self.pacer.arm(table)
        if table.outcome is not None:
            self.standings.game_over(table.outcome)
            self._names_played(table, table.outcome)
        tournament = self.director.table_changed(table)  # a game over may end a round
        if tournament is not None:
            self.director.tell(tournament)

    def end_game(self, table: Table, closer: Peer | None = None, rid: int | None = None) -> None:
        """Every voter wants the game ended: archive the table and tell everyone there; the
        deciding voter's copy answers its request `rid` (StoreError: it goes on as it was)."""
        self.lobby.retire(table, "the players ended the game")
        self.pacer.disarm(table)
        for listener in close_table(table, "the players ended the game", closer, rid):
            if isinstance(listener, Connection):
                listener.gone_from(table)
        tournament = self.director.table_gone(table)  # a round waits on it no more
        if tournament is not None:
            self.director.tell(tournament)

    def _names_played(self, table: Table, outcome: Outcome) -> None:
        """A game played to its end: its players own their names (server/edge/identity.py)."""
        for holder, result in zip(table.seats, outcome.seats, strict=True):
            if holder is not None and holder.identity is not None:
                self.names.played(holder.name, holder.identity, holder.address, result.share)
