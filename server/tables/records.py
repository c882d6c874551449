"""A finished game's record over the protocol (`record`): the same record `gother export`
writes, cut in parts that each fit in a frame.

A record reveals the seed and so every card, which is harmless once the game is over: only
finished games (or games their players ended) are given out. Making a record replays the
game (tens of milliseconds on the event loop), so builds are bounded: the newest records
are kept encoded, up to KEPT_BYTES, and served free from there; a build is charged to the
asker (BUILD_COST of its dear-request budget, on top of the part's own cost) and to the
server, whose builds may take only a share of its time (`build_share`, measured): a flood of
requests for records nobody else wants is refused with `rate_limited` instead of making
every player at every table wait behind it.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

import msgspec

from protocol import ProtocolError, server_messages
from protocol.constants import RECORD_PART
from server.ratelimit import TokenBucket
from server.store.tables import GameArchive
from server.tables.export import ExportError, game_records

KEPT_BYTES = 16 * 1024 * 1024  # encoded records kept (a long game's is ~200 KB)
BUILD_COST = 20.0  # of the asker's dear-request budget a build takes: a second of it
BUILD_SHARE = 0.025  # seconds of building a second, server-wide: 2.5% of the event loop
BUILD_BURST = 0.1  # seconds of building that may come at once: a few records in a row


class Records:
    def __init__(
        self,
        archive: GameArchive,
        build_share: float = BUILD_SHARE,
        build_burst: float = BUILD_BURST,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.archive = archive
        # by (table, game, seat): a seat's record holds its own views too
        self.encoded: OrderedDict[tuple[str, int, int | None], bytes] = OrderedDict()
        self.kept = 0  # bytes in `encoded`
        self.clock = clock
        self.builds = TokenBucket(build_share, build_burst, clock)  # in seconds of building

    def part(
        self,
        table_id: str,
        game_no: int,
        part: int,
        rid: int | None = None,
        asker: TokenBucket | None = None,
        seat: int | None = None,
    ) -> server_messages.Record:
        data = self._encoded(table_id, game_no, seat, asker)
        parts = max(1, -(-len(data) // RECORD_PART))
        if part >= parts:
            raise ProtocolError("no_record", f"the record has parts 0-{parts - 1}, not {part}")
        chunk = data[part * RECORD_PART : (part + 1) * RECORD_PART]
        return server_messages.Record(
            table=table_id, game=game_no, part=part, parts=parts, data=chunk, seat=seat, rid=rid
        )

    def _encoded(
        self, table_id: str, game_no: int, seat: int | None, asker: TokenBucket | None
    ) -> bytes:
        key = (table_id, game_no, seat)
        if key in self.encoded:
            self.encoded.move_to_end(key)
            return self.encoded[key]
        self._charge(asker)
        # a seat's record comes with every seat's of the game, made in the one replay (a few
        # ms more than one seat's): a player fetching each seat's replay pays one build
        started = self.clock()
        try:
            records = game_records(
                self.archive, table_id, game_no, (seat,), every_seat=seat is not None
            )
        except (ExportError, ValueError) as exc:  # ValueError: a stored move the engine refuses
            raise ProtocolError("no_record", str(exc)) from None
        finally:
            self.builds.spend(self.clock() - started)
        record = records[seat]
        if record.views[-1].phase != "over" and record.ended is None:
            raise ProtocolError("no_record", f"game {game_no} of table {table_id} is not over")
        for made in sorted(records, key=lambda other: other == seat):  # the one asked, newest
            data = msgspec.msgpack.encode(records[made])
            self._keep((table_id, game_no, made), data)
        return data

    def _keep(self, key: tuple[str, int, int | None], data: bytes) -> None:
        """Keep an encoded record, the newest last; the oldest go past KEPT_BYTES."""
        self.kept += len(data) - len(self.encoded.pop(key, b""))
        self.encoded[key] = data
        while self.kept > KEPT_BYTES and len(self.encoded) > 1:
            self.kept -= len(self.encoded.popitem(last=False)[1])

    def _charge(self, asker: TokenBucket | None) -> None:
        """Refuse a build the server or the asker cannot afford now (nothing is taken)."""
        if self.builds.tokens_now() < 0:
            wait = math.ceil(-self.builds.tokens_now() / self.builds.rate)
            raise ProtocolError(
                "rate_limited",
                f"the server is busy making other records: try again in {wait} s",
            )
        if asker is not None and not asker.allow(BUILD_COST):
            raise ProtocolError(
                "rate_limited", "making a record costs more than you have left: wait a moment"
            )
