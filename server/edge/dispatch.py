"""One frame in, one request answered: the rate limits, the decoding and reading of the
frame, and the one exhaustive `match` that hands each type of request to its handler
(server/edge/handlers/). A refusal is an `error {rid, code, message}` reply that changes
nothing."""

from __future__ import annotations

import asyncio
import logging
from typing import assert_never

from protocol import ProtocolError, decode, request_id, server_messages, validate_request
from protocol import requests as rq
from server.edge.changes import Changes
from server.edge.closes import CLOSE_FLOOD, CLOSE_GUESSING
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.handlers.arrival import ArrivalHandlers
from server.edge.handlers.finished import FinishedHandlers
from server.edge.handlers.standings import StandingsHandlers
from server.edge.handlers.table import TableHandlers
from server.edge.handlers.tournaments import TournamentHandlers
from server.edge.health import Counters
from server.game import MoveError
from server.store.database import StoreUnavailable
from server.tables.lobby import HeldElsewhere
from server.tables.table import StoreFailed

log = logging.getLogger("gother.server")
# What a dear request costs of a connection's second budget (`costly_rate`, `costly_burst`):
# a `list`, a `watch` or a record part costs the server far more than a move.
COSTS: dict[type[rq.Request], int] = {
    rq.List: 5,
    rq.Watch: 5,
    rq.Create: 5,
    rq.Record: 2,  # a part of a kept record; a record made is charged its build too
    rq.Review: 5,
    rq.PlayOn: 5,
    rq.Standings: 5,
    rq.Join: 2,
    rq.Resume: 2,
    rq.Hint: 2,
    rq.TournamentCreate: 5,
    rq.TournamentWatch: 5,
}
# A connection's refusals the log says one by one; the rest it counts, in the line that says
# the connection closed: a fuzz's 100,000 refusals were as many lines, a tenth of its CPU.
REFUSALS_LOGGED = 10


class Dispatch:
    def __init__(
        self,
        config: ServerConfig,
        counters: Counters,
        changes: Changes,
        arrival: ArrivalHandlers,
        table: TableHandlers,
        finished: FinishedHandlers,
        tournaments: TournamentHandlers,
        standings: StandingsHandlers,
    ) -> None:
        self.config = config
        self.counters = counters
        self.changes = changes  # a table whose write failed tells everyone it stopped
        self.arrival = arrival
        self.table = table
        self.finished = finished
        self.tournaments = tournaments
        self.standings = standings

    def dispatch(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame. Nothing here awaits: a request is applied whole, in order."""
        rid = None
        try:
            if not conn.limiter.allow():
                conn.refused += 1
                rid = _peek_rid(frame)  # the refusal still answers the request's rid
                if conn.refused > self.config.burst:
                    conn.send(
                        server_messages.Error(
                            code="rate_limited", message="too many requests", rid=rid
                        )
                    )
                    asyncio.get_running_loop().create_task(conn.ws.close(CLOSE_FLOOD, "flood"))
                raise ProtocolError("rate_limited", "too many requests: slow down")
            conn.refused = 0
            if isinstance(frame, str):
                raise ProtocolError("bad_frame", "frames must be binary (msgpack)")
            raw = decode(frame)
            rid = request_id(raw)
            request = validate_request(raw)
            if not isinstance(request, rq.Hello) and not conn.name:
                raise ProtocolError("hello_first", "say hello first")
            cost = COSTS.get(type(request))
            if cost is not None and not conn.costly.allow(cost):
                what = type(request).__struct_config__.tag
                raise ProtocolError("rate_limited", f"too many {what} requests: slow down")
            self.answer(conn, request)
        except (ProtocolError, MoveError) as exc:
            self.counters.count("errors")
            if exc.code != "rate_limited" or conn.refused <= self.config.burst:
                url = exc.url if isinstance(exc, HeldElsewhere) else None
                conn.send(
                    server_messages.Error(code=exc.code, message=exc.message, rid=rid, url=url)
                )
            guessed = exc.code in ("wrong_password", "too_many_attempts")
            if guessed and conn.wrong_passwords >= self.config.guessing.tries:  # told, closed
                closing = conn.ws.close(CLOSE_GUESSING, "too many wrong passwords")
                asyncio.get_running_loop().create_task(closing)
            if exc.code not in ("rate_limited", "busy", "not_your_turn", "illegal_move"):
                conn.refusals += 1
                if conn.refusals <= REFUSALS_LOGGED:
                    log.info("%s: %s (%s)", conn.describe(), exc.code, exc.message)
            if isinstance(exc, StoreFailed) and exc.table is not None:
                self.changes.after_change(exc.table)  # everyone there hears that it stopped
        except StoreUnavailable as exc:  # a read the request needs (PostgreSQL away): no change
            self.counters.count("errors")
            log.warning("%s: the database cannot be read: %s", conn.describe(), exc)
            message = "the server cannot read its database now: try again in a moment"
            conn.send(server_messages.Error(code="store_failed", message=message, rid=rid))
        except Exception:  # a bug of ours: logged whole, and the request answered all the same
            log.exception("%s: a request failed on the server", conn.describe())
            self.counters.count("errors")
            message = "the server failed on this request (its log says where): ask again later"
            conn.send(server_messages.Error(code="server_error", message=message, rid=rid))

    def answer(self, conn: Connection, request: rq.Request) -> None:
        """Hand `request` to the handler of its type: one for each type of the protocol's
        `Request` (mypy holds the match whole: a type added there and not here fails it)."""
        match request:
            case rq.Hello():
                self.arrival.on_hello(conn, request)
            case rq.Prove():
                self.arrival.on_prove(conn, request)
            case rq.List():
                self.arrival.on_list(conn, request)
            case rq.Create():
                self.table.on_create(conn, request)
            case rq.Join():
                self.table.on_join(conn, request)
            case rq.Resume():
                self.table.on_resume(conn, request)
            case rq.Watch():
                self.table.on_watch(conn, request)
            case rq.Start():
                self.table.on_start(conn, request)
            case rq.Play():
                self.table.on_play(conn, request)
            case rq.Chat():
                self.table.on_chat(conn, request)
            case rq.Hint():
                self.table.on_hint(conn, request)
            case rq.Leave():
                self.table.on_leave(conn, request)
            case rq.Rematch():
                self.table.on_rematch(conn, request)
            case rq.Pause():
                self.table.on_pause(conn, request)
            case rq.End():
                self.table.on_end(conn, request)
            case rq.Record():
                self.finished.on_record(conn, request)
            case rq.Review():
                self.finished.on_review(conn, request)
            case rq.PlayOn():
                self.finished.on_play_on(conn, request)
            case rq.TournamentCreate():
                self.tournaments.on_tournament_create(conn, request)
            case rq.TournamentJoin():
                self.tournaments.on_tournament_join(conn, request)
            case rq.TournamentStart():
                self.tournaments.on_tournament_start(conn, request)
            case rq.TournamentDrop():
                self.tournaments.on_tournament_drop(conn, request)
            case rq.TournamentWatch():
                self.tournaments.on_tournament_watch(conn, request)
            case rq.Standings():
                self.standings.on_standings(conn, request)
            case _:
                assert_never(request)


def _peek_rid(frame: bytes | str) -> int | None:
    """The rid of a frame refused unread (rate limited), if it has a readable one."""
    if isinstance(frame, str):
        return None
    try:
        return request_id(decode(frame))
    except ProtocolError:
        return None
