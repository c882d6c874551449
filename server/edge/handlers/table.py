"""At a table: making one, sitting, coming back, watching, and what a seat does there
(start, play, chat, hint, leave, rematch, pause, end)."""

from __future__ import annotations

from protocol import ProtocolError, server_messages
from protocol import requests as rq
from server.edge.changes import Changes
from server.edge.connection import Connection
from server.edge.health import Counters
from server.edge.identity import Names
from server.edge.passwords import Passwords
from server.edge.quotas import Quotas
from server.edge.seating import Seating
from server.game import SPECTATOR
from server.store.database import StoreError
from server.tables.fanout import chat, replay_chat, show, tell_story
from server.tables.hint import Hints
from server.tables.lobby import Lobby
from server.tables.table import Table


class TableHandlers:
    def __init__(
        self,
        spectators: str,
        lobby: Lobby,
        names: Names,
        passwords: Passwords,
        quotas: Quotas,
        seating: Seating,
        changes: Changes,
        hints: Hints,
        counters: Counters,
    ) -> None:
        self.spectators = spectators  # who may watch: "all", "public" or "none"
        self.lobby = lobby
        self.names = names
        self.passwords = passwords
        self.quotas = quotas
        self.seating = seating
        self.changes = changes
        self.hints = hints
        self.counters = counters  # the moves made, for the host

    def on_create(self, conn: Connection, request: rq.Create) -> None:
        self.quotas.tables(conn)
        table = self.lobby.create(request, conn, conn.address_key)
        conn.send(server_messages.Created(table=table.id, rid=request.rid))

    def on_join(self, conn: Connection, request: rq.Join) -> None:
        table = self.lobby.find(request.table)
        held = table.seat_of(conn)
        if held is not None:  # one connection, one seat: a second would be left away forever
            raise ProtocolError("seat_taken", f"you already sit at seat {held} of this table")
        mine = None if conn.identity is None else table.seat_for_identity(conn.identity)
        if mine is not None:  # this person's seat already: back in it, no token asked
            self.seating.resume(conn, table, mine, table.new_token(mine), request.rid)
            return
        self.passwords.table(conn, table, request.password)
        table.check_join(request.seat)  # refused: no change
        table.check_name(conn.name, conn)
        self.names.check(conn.name, conn.identity)
        self.quotas.seats(conn)
        self.seating.sit(conn, table, request.seat, request.rid)

    def on_resume(self, conn: Connection, request: rq.Resume) -> None:
        token = request.token
        if token is not None:
            table, seat = self.lobby.find_seat(token, request.table)
        else:
            assert request.table is not None  # the one or the other (Resume.check)
            table, seat = self._held_seat(conn, request.table)
            token = table.new_token(seat)
        self.seating.resume(conn, table, seat, token, request.rid)

    def _held_seat(self, conn: Connection, table_id: str) -> tuple[Table, int]:
        """The seat this connection's proven identity holds at `table_id`."""
        if conn.identity is None:
            raise ProtocolError("bad_token", "prove your key to resume by table, or give a token")
        table = self.lobby.find(table_id)
        seat = table.seat_for_identity(conn.identity)
        if seat is None:
            raise ProtocolError("bad_token", f"you hold no seat at table {table_id!r}")
        return table, seat

    def on_watch(self, conn: Connection, request: rq.Watch) -> None:
        table = self.lobby.find(request.table)
        policy = self.spectators
        if policy == "none":
            raise ProtocolError("no_spectators", "this server does not allow spectators")
        if table.password_hash is not None:
            if policy == "public":
                raise ProtocolError("no_spectators", "private tables cannot be watched here")
            self.passwords.table(conn, table, request.password)
        if table in (conn.watched, conn.seated):  # watched or played already: a no-op
            conn.send(server_messages.Watching(table=table.id, cards=(), rid=request.rid))
            return
        self.seating.stop_watching(conn)  # one table watched at a time; a seat stays played
        conn.watched = table
        conn.at(table)
        conn.send(
            server_messages.Watching(table=table.id, cards=table.deck.catalogue(), rid=request.rid)
        )
        replay_chat(table, conn)
        tell_story(table, conn, SPECTATOR)
        table.watch(conn)
        show(table, conn)

    def on_start(self, conn: Connection, request: rq.Start) -> None:
        table, _ = self.seating.seated(conn, request)
        table.start()
        self.changes.after_change(table, conn, request.rid)  # the starter's `state` is its reply

    def on_play(self, conn: Connection, request: rq.Play) -> None:
        table, seat = self.seating.seated(conn, request)
        table.move(seat, request.move)
        self.counters.count("moves")
        self.changes.after_change(table, conn, request.rid)

    def on_hint(self, conn: Connection, request: rq.Hint) -> None:
        table, seat = self.seating.seated(conn, request)
        self.hints.ask(table, seat, conn, request.rid)  # answered when thought

    def on_chat(self, conn: Connection, request: rq.Chat) -> None:
        table = self.seating.present(conn, request, "join or watch a table to chat")
        if not conn.chat_limiter.allow():
            raise ProtocolError("rate_limited", "chatting too fast: wait a moment")
        chat(table, conn, table.say(conn, request.text), request.rid)  # its copy answers

    def on_leave(self, conn: Connection, request: rq.Leave) -> None:
        table = self.seating.present(conn, request, "you are at no table")
        if table.leave(conn):  # StoreFailed: still seated, nothing changed
            self.changes.after_change(table)
        conn.gone_from(table)
        conn.send(server_messages.Left(table=table.id, rid=request.rid))

    def on_rematch(self, conn: Connection, request: rq.Rematch) -> None:
        table, seat = self.seating.seated(conn, request)
        table.vote_rematch(seat)
        self.changes.after_change(table, conn, request.rid)

    def on_pause(self, conn: Connection, request: rq.Pause) -> None:
        table, seat = self.seating.seated(conn, request)
        table.vote_pause(seat, request.on)
        self.changes.after_change(table, conn, request.rid)

    def on_end(self, conn: Connection, request: rq.End) -> None:
        table, seat = self.seating.seated(conn, request)
        if not table.vote_end(seat):
            self.changes.after_change(table, conn, request.rid)
            return
        try:
            self.changes.end_game(table, conn, request.rid)
        except StoreError as exc:
            raise ProtocolError("store_failed", f"the game cannot be ended now ({exc})") from None
