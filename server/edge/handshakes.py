"""Connections still in their opening handshake (TLS, the HTTP upgrade): each holds a file
descriptor until it is done or its deadline (`hello_timeout`) closes it. Uncounted, 1,100
half-sent handshakes took every descriptor of a server held to 1,024, and an honest client
waited seconds to be accepted, when it was.

So at most `most` handshake at once (the descriptors `limits.descriptor_budget` keeps for
them beside the connections), and `per_address` of them from one address: one more from
there is closed at once. When all are taken, a new one takes the place of the oldest
handshake of the address holding the most, as before hello (server/edge/app.py): addresses
that keep reopening half-sent handshakes turn out their own, while an honest client's is
done within a moment of its place. An address here is the socket's (a door's player is
known by the door's claim only once its handshake is read).
"""

from __future__ import annotations

import asyncio

from websockets.asyncio.server import ServerConnection

from server.edge.caps import OVERALL, Caps
from server.edge.limits import address_key


class Handshakes:
    def __init__(self, most: int, per_address: int) -> None:
        self.caps = Caps(most, address=per_address)

    def connection_type(self) -> type[ServerConnection]:
        """The server's connections, counted from their accept to their handshake's end."""
        handshakes = self

        class Counted(ServerConnection):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                handshakes.opened(self, transport)

            def connection_lost(self, exc: Exception | None) -> None:
                handshakes.done(self)
                super().connection_lost(exc)

        return Counted

    def opened(self, connection: ServerConnection, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = address_key(str(peer[0])) if peer else "?"
        full = self.caps.admit(connection, address=address)
        if full == OVERALL:
            crowding = self.caps.crowding("address")
            if isinstance(crowding, ServerConnection):
                self.done(crowding)
                crowding.transport.abort()
            full = self.caps.admit(connection, address=address)
        if full is not None:  # its address has its share (or there is room for none)
            connection.transport.abort()

    def done(self, connection: ServerConnection) -> None:
        """Its handshake is over (or it is gone): its place is free."""
        self.caps.release(connection)

    def __len__(self) -> int:
        return len(self.caps)
