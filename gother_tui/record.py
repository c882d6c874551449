"""Reading a game record written by `gother export` (msgpack) for `gother replay`.

The client never runs the engine: a record carries `views`, the referee's view after the
deal and after every move, and the replay only shows them. The record is parsed whole into
typed values, each view as the protocol's `View` (validated as every `state` is), so a
wrong file gives one clear sentence naming the field at fault (RecordError), never a
traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import msgspec

from protocol import ProtocolError
from protocol.view import Card, View, convert

MAX_RECORD = 64 * 1024 * 1024  # bytes: a game record is a few hundred kB
FETCH_TIMEOUT = 10.0  # seconds for each answer of a server


class RecordError(ValueError):
    pass


class RecordTable(msgspec.Struct, frozen=True):
    id: str
    name: str


class RecordMove(msgspec.Struct, frozen=True):
    """A move as the record holds it (the wire's `move`); the replay only names its kind."""

    kind: str


class GameRecord(msgspec.Struct, frozen=True):
    views: tuple[View, ...]  # after the deal, then after each move
    moves: tuple[tuple[int, RecordMove], ...]  # (seat, move), for the position line
    cards: tuple[Card, ...]
    players: tuple[str, ...]
    table: RecordTable
    chat: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        return self.table.name or self.table.id or "a game"


def fetch_record(
    url: str, table: str, game: int | None = None, password: str | None = None, name: str = "Replay"
) -> GameRecord:
    """A finished game's record from the server at `url` (`record` requests, one part at a
    time); RecordError with one sentence when it cannot be had."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode

    def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
        ws.send(encode(message))
        while True:  # skip broadcasts; the reply is the one frame that is not one
            reply = decode(ws.recv(timeout=FETCH_TIMEOUT))
            if reply.get("t") == "error":
                raise RecordError(f"{url}: {reply.get('message')}")
            if reply.get("t") not in ("state", "chat"):
                return reply

    request: dict[str, Any] = {"t": "record", "table": table}
    if game is not None:
        request["game"] = game
    if password is not None:
        request["password"] = password
    parts: list[bytes] = []
    try:
        with connect(url, max_size=MAX_FRAME, compression=None, open_timeout=FETCH_TIMEOUT) as ws:
            ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": name})
            while True:
                reply = ask(ws, {**request, "part": len(parts)})
                data = reply.get("data")
                if reply.get("t") != "record" or not isinstance(data, bytes):
                    raise RecordError(f"{url} did not answer with a record")
                parts.append(data)
                if len(parts) >= reply.get("parts", 1) or len(parts) * len(data) > MAX_RECORD:
                    break
    except (OSError, TimeoutError, WebSocketException) as exc:
        raise RecordError(f"cannot fetch the record from {url}: {exc}") from None
    try:
        data = msgpack.unpackb(b"".join(parts), raw=False, strict_map_key=False)
    except Exception:  # msgpack raises several kinds (ExtraData, FormatError, ValueError…)
        raise RecordError("the server's record is not msgpack") from None
    try:
        return parse_record(data)
    except RecordError as exc:
        raise RecordError(f"the server's record is not a game record: {exc}") from None


def load_record(path: str | Path) -> GameRecord:
    try:
        raw = Path(path).read_bytes()[: MAX_RECORD + 1]
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD:
        raise RecordError(f"{path} is too large for a game record")
    try:
        data = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except Exception:  # msgpack raises several kinds (ExtraData, FormatError, ValueError…)
        raise RecordError(f"{path} is not a game record (not msgpack)") from None
    try:
        return parse_record(data)
    except RecordError as exc:
        raise RecordError(f"{path} is not a game record: {exc}") from None


def parse_record(data: Any) -> GameRecord:
    try:
        record = convert(data, GameRecord, "record")
    except ProtocolError as exc:
        raise RecordError(exc.message) from None
    if not record.views:
        raise RecordError("it holds no views")
    if len(record.moves) != len(record.views) - 1:
        raise RecordError("its moves do not match its views")
    return record
