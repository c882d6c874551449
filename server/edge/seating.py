"""Where a connection plays and watches: taking a seat, coming back to it, going away from
it, and the `joined` reply that tells a player their seat (built here once, for a join, a
resume and a tournament's seating alike)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from protocol import ProtocolError, server_messages
from protocol import requests as rq
from server.edge.changes import Changes
from server.edge.closes import CLOSE_REPLACED
from server.edge.connection import Connection
from server.tables.fanout import replay_chat, tell_story
from server.tables.lobby import Lobby
from server.tables.pacer import Pacer
from server.tables.table import Peer, StoreFailed, Table


class Seating:
    """Every move of a connection between seats and tables, each told to everyone there."""

    def __init__(
        self,
        lobby: Lobby,
        changes: Changes,
        pacer: Pacer,
        resumed: Callable[[Connection, Table], None],
    ) -> None:
        self.lobby = lobby  # a table full once a seat is taken deals
        self.changes = changes
        self.pacer = pacer  # the rounds a bot covered a seat in, told to its player back
        self.resumed = resumed  # the director's: a tournament's player is back at its table

    def joined(
        self,
        conn: Connection,
        table: Table,
        seat: int,
        token: str,
        rid: int | None = None,
        covered_rounds: int = 0,
    ) -> None:
        """Tell `conn` the seat it now plays at `table`, and where it plays it from."""
        holder = table.seats[seat]
        assert holder is not None
        holder.address = conn.address_key  # where it plays from now (a restart forgot it)
        conn.seated = table
        conn.at(table)
        conn.send(
            server_messages.Joined(
                table=table.id,
                seat=seat,
                token=token,
                cards=table.deck.catalogue(),
                covered_rounds=covered_rounds,
                rid=rid,
            )
        )

    def sit(
        self, conn: Connection, table: Table, seat: int | None, rid: int | None, deal: bool = False
    ) -> None:
        """Seat `conn` at `table` (every check passed) and tell it, and everyone there; with
        `deal`, bots take the other seats and the game begins first (a table played on: its
        first `state` is the position, not an empty lobby)."""
        self.away_from_seat(conn)  # one seat played at a time: the former one waits, away
        if conn.watched is table:  # a spectator sitting down: one role at a table
            self.stop_watching(conn)
        seat, token = table.join(conn, seat, conn.identity)
        holder = table.seats[seat]
        assert holder is not None
        conn.taken.append(holder)
        self.joined(conn, table, seat, token, rid)
        replay_chat(table, conn)
        if deal:  # the game begins before its story is told: no lobby to wait in
            with contextlib.suppress(StoreFailed):  # answered: the table says it stopped
                table.start()
        tell_story(table, conn, seat)
        self.changes.after_change(table)
        self.lobby.start_if_full(table)

    def resume(
        self, conn: Connection, table: Table, seat: int, token: str, rid: int | None
    ) -> None:
        """Give `seat` back to `conn`, which holds `token` for it."""
        if conn.seated is not table:
            self.away_from_seat(conn)
        if conn.watched is table:  # `table.resume` takes it from the spectators
            conn.watched = None
        covered = self.pacer.covered_rounds(table, seat)
        self.joined(conn, table, seat, token, rid, covered)
        replay_chat(table, conn)
        tell_story(table, conn, seat)
        replaced = table.resume(conn, seat)
        holder = table.seats[seat]
        assert holder is not None
        holder.address = conn.address_key  # `resume` gave the seat a holder of its own
        self.resumed(conn, table)
        self.changes.after_change(table)
        if isinstance(replaced, Connection):
            replaced.gone_from(table)
            asyncio.get_running_loop().create_task(
                replaced.ws.close(CLOSE_REPLACED, "seat resumed from another connection")
            )

    def seat_for_tournament(self, peer: Peer, table: Table, seat: int, token: str) -> None:
        """The director seated a connected player: they move to that table, told its seat."""
        assert isinstance(peer, Connection)
        if peer.seated is not table:
            self.away_from_seat(peer)  # one seat played at a time: the former one waits
        if peer.watched is table:
            self.stop_watching(peer)
        self.joined(peer, table, seat, token)

    def seated(self, conn: Connection, request: rq.AtTable) -> tuple[Table, int]:
        """The table and seat a seat's request acts on: the table it names, else the one
        where this connection plays its seat (whatever it watches meanwhile)."""
        table = conn.seated
        seat = None if table is None else table.seat_of(conn)
        named = request.table
        if named is not None and (table is None or table.id != named):
            raise ProtocolError("not_seated", f"you hold no seat at table {named!r}")
        if table is None or seat is None:
            raise ProtocolError("not_seated", "you hold no seat: join a table first")
        return table, seat

    def present(self, conn: Connection, request: rq.AtTable, nowhere: str) -> Table:
        """The table a `chat` or `leave` acts on: the one it names (played or watched),
        else the one this connection joined, resumed or watched last."""
        named = request.table
        if named is None:
            if conn.last is None:
                raise ProtocolError("not_seated", nowhere)
            return conn.last
        for table in (conn.seated, conn.watched):
            if table is not None and table.id == named:
                return table
        raise ProtocolError("not_seated", f"you neither sit at nor watch table {named!r}")

    def away_from_seat(self, conn: Connection) -> None:
        """Going to another seat (or going) keeps the seat, marked away and resumable;
        `leave` gives it up."""
        table = conn.seated
        if table is not None:
            conn.gone_from(table)
            if table.disconnected(conn):
                self.changes.after_change(table)

    def stop_watching(self, conn: Connection) -> None:
        table = conn.watched
        if table is not None:
            conn.gone_from(table)
            table.spectators.discard(conn)

    def gone(self, conn: Connection) -> None:
        """A connection closed: its table watched no more, its seat kept, away."""
        self.stop_watching(conn)
        self.away_from_seat(conn)
