"""Tournaments (server/tournament/): making one, entering, starting, dropping out, watching."""

from __future__ import annotations

import hmac

from protocol import ProtocolError, server_messages
from protocol import requests as rq
from server.edge.changes import Changes
from server.edge.connection import Connection
from server.edge.identity import Names
from server.edge.passwords import TOURNAMENTS, Passwords
from server.tournament.director import Director, Tournament


class TournamentHandlers:
    def __init__(
        self,
        password: str | None,
        passwords: Passwords,
        names: Names,
        director: Director,
        changes: Changes,
    ) -> None:
        self.password = password  # the host's for making tournaments; None: no tournaments
        self.passwords = passwords
        self.names = names
        self.director = director
        self.changes = changes

    def on_tournament_create(self, conn: Connection, request: rq.TournamentCreate) -> None:
        right = self.password
        if right is None:
            raise ProtocolError(
                "no_tournaments", "this server runs no tournaments (its host has not allowed any)"
            )
        given = request.password or ""
        self.passwords.check(
            conn,
            TOURNAMENTS,
            lambda: hmac.compare_digest(given.encode(), right.encode()),
            "creating a tournament needs the host's password for it",
        )
        if request.play:  # refused before anything is made
            self.names.check(conn.name, conn.identity)
        tournament = self.director.create(conn, request)
        secret = self._register(conn, tournament) if request.play else None
        conn.send(self.director.message(tournament, request.rid, secret))

    def on_tournament_join(self, conn: Connection, request: rq.TournamentJoin) -> None:
        tournament = self.director.find(request.tournament)
        secret = self._register(conn, tournament, request.secret)
        self.director.tell(tournament, conn, request.rid, secret)

    def _register(
        self, conn: Connection, tournament: Tournament, secret: str | None = None
    ) -> str | None:
        """Register `conn`'s player; the secret of a new anonymous entry (theirs alone)."""
        self.names.check(conn.name, conn.identity)  # its player sits under the name
        return self.director.register(tournament, conn, secret)

    def on_tournament_start(self, conn: Connection, request: rq.TournamentStart) -> None:
        tournament = self.director.find(request.tournament)
        self.director.start(tournament, conn, request.rid)  # answered once seated

    def on_tournament_drop(self, conn: Connection, request: rq.TournamentDrop) -> None:
        tournament = self.director.find(request.tournament)
        given_up = self.director.drop(tournament, conn)
        if given_up is not None:  # a bot plays the seat on: everyone there hears it
            table, was_at = given_up
            if isinstance(was_at, Connection):  # told its seat is gone, as by `leave`
                was_at.gone_from(table)
                was_at.send(server_messages.Left(table=table.id))
            self.changes.after_change(table)
        self.director.tell(tournament, conn, request.rid)

    def on_tournament_watch(self, conn: Connection, request: rq.TournamentWatch) -> None:
        tournament = self.director.find(request.tournament)
        tournament.watchers.add(conn)
        conn.send(self.director.message(tournament, request.rid))
