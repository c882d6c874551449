"""The host's standings (server/ratings/), a page a request, once they are rebuilt."""

from __future__ import annotations

import asyncio

from protocol import ProtocolError, server_messages
from protocol import requests as rq
from server.edge.connection import Connection
from server.ratings.host import HostStandings


class StandingsHandlers:
    def __init__(self, standings: HostStandings) -> None:
        self.standings = standings
        self.answering: set[asyncio.Task[None]] = set()  # standings asked during the rebuild

    def on_standings(self, conn: Connection, request: rq.Standings) -> None:
        """A page of the host's standings (server/ratings/), once they are rebuilt."""
        offset, rid = request.offset, request.rid
        if not self.standings.rebuilding:
            conn.send(self.standings.page(offset, rid))
            return
        task = asyncio.get_running_loop().create_task(self._standings_later(conn, offset, rid))
        self.answering.add(task)
        task.add_done_callback(self.answering.discard)

    async def _standings_later(self, conn: Connection, offset: int, rid: int | None) -> None:
        await self.standings.when_rebuilt()
        try:
            conn.send(self.standings.page(offset, rid))
        except ProtocolError as exc:
            conn.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))

    def close(self) -> None:
        """Call off the pages still waiting on the rebuild."""
        for task in self.answering:
            task.cancel()
