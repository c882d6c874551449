"""A finished game's record over the protocol (`record`): the same record `gother export`
writes, cut in parts that each fit in a frame.

A record reveals the seed and so every card, which is harmless once the game is over: only
finished games (or games their players ended) are given out. Making a record replays the
game, so the newest few are kept encoded, and each part request costs the asker more of its
rate budget than a cheap one.
"""

from __future__ import annotations

from collections import OrderedDict

import msgpack

from protocol import ProtocolError, server_messages
from protocol.constants import RECORD_PART
from server.export import ExportError, game_record
from server.store import Store

KEPT = 8  # encoded records kept: someone stepping through parts asks for each in turn


class Records:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.encoded: OrderedDict[tuple[str, int], bytes] = OrderedDict()

    def part(
        self, table_id: str, game_no: int, part: int, rid: int | None = None
    ) -> server_messages.Record:
        data = self._encoded(table_id, game_no)
        parts = max(1, -(-len(data) // RECORD_PART))
        if part >= parts:
            raise ProtocolError("no_record", f"the record has parts 0-{parts - 1}, not {part}")
        chunk = data[part * RECORD_PART : (part + 1) * RECORD_PART]
        return server_messages.Record(
            table=table_id, game=game_no, part=part, parts=parts, data=chunk, rid=rid
        )

    def _encoded(self, table_id: str, game_no: int) -> bytes:
        key = (table_id, game_no)
        if key in self.encoded:
            self.encoded.move_to_end(key)
            return self.encoded[key]
        try:
            record = game_record(self.store, table_id, game_no)
        except ExportError as exc:
            raise ProtocolError("no_record", str(exc)) from None
        finished = record["views"][-1]["phase"] == "over" or record["ended"] is not None
        if not finished:
            raise ProtocolError("no_record", f"game {game_no} of table {table_id} is not over")
        data: bytes = msgpack.packb(record)
        self.encoded[key] = data
        while len(self.encoded) > KEPT:
            self.encoded.popitem(last=False)
        return data
