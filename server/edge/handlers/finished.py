"""Finished games: a game's `record`, a seat's `review`, and `play_on` from one of its turns.
Whoever may see a game's record may ask any of the three."""

from __future__ import annotations

from websockets.protocol import State

from protocol import ProtocolError
from protocol import requests as rq
from server.bots.registry import kind_of
from server.edge.connection import Connection
from server.edge.passwords import Passwords
from server.edge.quotas import Quotas
from server.edge.seating import Seating
from server.game import Start
from server.store.tables import GameArchive, TableRecord
from server.tables.lobby import Lobby
from server.tables.play_on import PlayOns
from server.tables.records import Records
from server.tables.review import Reviews


class FinishedHandlers:
    def __init__(
        self,
        spectators: str,
        lobby: Lobby,
        archive: GameArchive,
        records: Records,
        reviews: Reviews,
        play_ons: PlayOns,
        passwords: Passwords,
        quotas: Quotas,
        seating: Seating,
    ) -> None:
        self.spectators = spectators  # who may watch, and so see finished games
        self.lobby = lobby
        self.archive = archive
        self.records = records
        self.reviews = reviews
        self.play_ons = play_ons
        self.passwords = passwords
        self.quotas = quotas
        self.seating = seating

    def on_record(self, conn: Connection, request: rq.Record) -> None:
        """A finished game's record, one part per request (server/tables/records.py)."""
        table_id, game_no = self._finished_game(conn, request)
        part = self.records.part(
            table_id, game_no, request.part, request.rid, conn.costly, request.seat
        )
        conn.send(part)

    def on_review(self, conn: Connection, request: rq.Review) -> None:
        """A seat's decisions in a finished game, judged (server/tables/review.py): answered when
        thought. Whoever may see the game's record may see its reviews."""
        table_id, game_no = self._finished_game(conn, request)
        self.reviews.ask(table_id, game_no, request.seat, conn, request.rid)

    def on_play_on(self, conn: Connection, request: rq.PlayOn) -> None:
        """A new table of the asker's, its game played on from a turn of a finished game as a
        seat knew it (server/tables/play_on.py): answered with `joined` once the start is sampled.
        Whoever may see the game's record may play on from it; quotas as for `create`. What
        is counted in memory is checked before what is read from the store: a flood of them
        from many addresses once held an honest table's p95 at ten times its pace."""
        self.play_ons.check_free(conn)
        self.quotas.room_to_play_on(conn)
        table_id, game_no = self._finished_game(conn, request)
        bot_kind = kind_of(request.bot or self.archive.table(table_id).bot_kind)

        def seat_there(source: TableRecord, seat: int, start: Start, seed: int) -> None:
            if conn.ws.state is not State.OPEN:
                return  # gone while it was thought: no table for someone not here
            self.quotas.room_to_play_on(conn)  # again: a table may have been made meanwhile
            table = self.lobby.play_on(
                source, request.turn, start, seed, bot_kind, conn, conn.address_key
            )
            # bots take the other seats and the game begins at its start before anyone is
            # told: a played-on table never shows a lobby to wait in
            self.seating.sit(conn, table, seat, request.rid, deal=True)

        self.play_ons.ask(
            table_id, game_no, request.seat, request.turn, conn, request.rid, seat_there
        )

    def _finished_game(self, conn: Connection, request: rq.Finished) -> tuple[str, int]:
        """(table, game) of a request about a finished game (`record`, `review`, `play_on`),
        once the asker may see it: at the table, or as a record may be seen; the table's
        newest game when none is named."""
        table_id = request.table
        self.lobby.check_not_broken(table_id)  # its rows cannot be read: nor its records
        live = self.lobby.tables.get(table_id)
        if live is None or live not in (conn.seated, conn.watched):
            self._check_may_see(conn, table_id, request.password)
        game_no = request.game
        if game_no is None:
            game_no = live.game_no if live is not None else self.archive.table(table_id).game_no
        return table_id, game_no

    def _check_may_see(self, conn: Connection, table_id: str, password: str | None) -> None:
        """Whoever may watch a table may see its finished games (live or archived)."""
        if not self.archive.has_table(table_id):
            raise ProtocolError("no_such_table", f"there is no table {table_id!r}")
        policy = self.spectators
        if policy == "none":
            raise ProtocolError("no_spectators", "this server shows games to their players only")
        password_hash = self.archive.table(table_id).password_hash
        if password_hash is not None:
            if policy == "public":
                raise ProtocolError("no_spectators", "private tables cannot be watched here")
            self.passwords.kept_table(conn, table_id, password_hash, password)
