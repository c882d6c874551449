"""What one connection, and one address, may hold at once: tables made and seats taken."""

from __future__ import annotations

from protocol import ProtocolError
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.identity import Names
from server.tables.lobby import Lobby


class Quotas:
    """The checks made before a table is made or a seat taken (refused: nothing changes)."""

    def __init__(self, config: ServerConfig, lobby: Lobby, names: Names) -> None:
        self.config = config
        self.lobby = lobby
        self.names = names

    def tables(self, conn: Connection) -> None:
        """A connection, and an address, may make only so many tables."""
        c = self.config
        self.lobby.check_quota(
            conn, conn.address_key, c.tables_per_connection, c.tables_per_address
        )

    def seats(self, conn: Connection) -> None:
        """A connection, and an address, may hold only so many seats in games not over:
        squatting every seat of every table takes more than a few connections."""
        held = [
            holder
            for table in self.lobby.tables.values()
            if table.game is None or not table.game.over
            for holder in table.seats
            if holder is not None and holder.token_hash is not None
        ]
        # by identity, once: every join walks every seat of every table (800 at 200 tables)
        still = {id(h) for h in held}
        conn.taken = [s for s in conn.taken if id(s) in still]
        if len(conn.taken) >= self.config.seats_per_connection:
            raise ProtocolError("too_many_seats", "this connection holds enough seats")
        address = conn.address_key
        if sum(h.address == address for h in held) >= self.config.seats_per_address:
            raise ProtocolError("too_many_seats", "your address holds enough seats")

    def room_to_play_on(self, conn: Connection) -> None:
        """A played-on table counts as a created table and its seat as a seat taken."""
        self.tables(conn)
        self.seats(conn)
        self.names.check(conn.name, conn.identity)  # the one that reads the store
