"""Arriving: `hello` (the server's password, the name), `prove` (the key), `list`."""

from __future__ import annotations

import hmac

from protocol import ProtocolError, server_messages
from protocol import requests as rq
from protocol.version import software_version
from server.edge.caps import Caps
from server.edge.connection import Connection
from server.edge.identity import Names, identity_of, new_challenge, proves
from server.edge.passwords import SERVER, Passwords
from server.tables.lobby import Lobby
from server.tournament.director import Director

SERVER_NAME = f"gother {software_version()}"


class ArrivalHandlers:
    def __init__(
        self,
        password: str | None,
        passwords: Passwords,
        names: Names,
        before_hello: Caps,
        lobby: Lobby,
        director: Director,
    ) -> None:
        self.password = password  # the server's, if its host set one
        self.passwords = passwords
        self.names = names
        self.before_hello = before_hello  # the places of connections yet to say hello
        self.lobby = lobby
        self.director = director

    def on_hello(self, conn: Connection, request: rq.Hello) -> None:
        if conn.name:
            raise ProtocolError("bad_message", "hello: already said")
        if conn.bad_door is not None:  # a claim of an address this server's doors never made
            raise conn.bad_door
        right = self.password
        if right is not None:
            given = request.password or ""
            self.passwords.check(
                conn,
                SERVER,
                lambda: hmac.compare_digest(given.encode(), right.encode()),
                "wrong password" if given else "this server needs a password",
            )
        # A name another identity owns is refused now, not at a first join: a key's identity
        # is its hash, known before the proof (naming the owner's public key gets one past
        # here, but never proved, it sits under the name nowhere)
        self.names.check(request.name, None if request.key is None else identity_of(request.key))
        conn.name = request.name
        conn.key = request.key
        conn.challenge = None if conn.key is None else new_challenge()
        self.before_hello.release(conn)
        welcome = server_messages.Welcome.of(SERVER_NAME, request.rid, conn.challenge)
        conn.send(welcome)

    def on_prove(self, conn: Connection, request: rq.Prove) -> None:
        key, challenge = conn.key, conn.challenge
        if key is None or challenge is None:
            raise ProtocolError("bad_message", "prove: no key to prove (say it in hello, once)")
        conn.challenge = None  # one try a challenge: a forger cannot keep guessing
        if not proves(key, challenge, request.signature):
            raise ProtocolError(
                "bad_signature", "that signature does not prove your key: you play anonymously"
            )
        conn.identity = identity_of(key)
        held = tuple(
            server_messages.HeldSeat(table=table_id, seat=seat)
            for table_id, seat in self.lobby.held_by(conn.identity)
        )
        conn.send(server_messages.Proven(identity=conn.identity, seats=held, rid=request.rid))

    def on_list(self, conn: Connection, request: rq.List) -> None:
        rows, total = self.lobby.listing(request.offset)
        conn.send(
            server_messages.Tables(
                tables=tuple(rows),
                offset=request.offset,
                total=total,
                tournaments=self.director.listing() + self.lobby.tournaments_elsewhere(),
                rid=request.rid,
            )
        )
