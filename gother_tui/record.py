"""Reading a game record written by `gother export` (msgpack) for `gother replay`.

The client never runs the engine: a record carries `views`, the referee's view after the
deal and after every move, and the replay only shows them. Everything read from the file is
checked first, so a wrong file gives one clear sentence (RecordError), never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

MAX_RECORD = 64 * 1024 * 1024  # bytes: a game record is a few hundred kB
FETCH_TIMEOUT = 10.0  # seconds for each answer of a server


class RecordError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class GameRecord:
    views: list[dict[str, Any]]  # after the deal, then after each move
    moves: list[list[Any]]  # [seat, move] pairs, for the position line
    cards: list[dict[str, Any]]
    players: list[str]
    table: dict[str, Any]
    chat: list[list[Any]]

    @property
    def name(self) -> str:
        return str(self.table.get("name") or self.table.get("id") or "a game")


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
        return parse_record(msgpack.unpackb(b"".join(parts), raw=False, strict_map_key=False))
    except RecordError as exc:
        raise RecordError(f"the server's record is not a game record: {exc}") from None
    except Exception:  # msgpack raises several kinds
        raise RecordError("the server's record is not msgpack") from None


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
    if not isinstance(data, dict):
        raise RecordError("not a map")
    views = _list(data, "views")
    if not views:
        raise RecordError("it holds no views")
    for i, view in enumerate(views):
        _check_view(view, i)
    cards = _list(data, "cards")
    for card in cards:
        if not isinstance(card, dict) or not isinstance(card.get("id"), int):
            raise RecordError("a card without an id")
        if not isinstance(card.get("name", ""), str):
            raise RecordError(f"card {card['id']} has no name")
        if any(not isinstance(card.get(k, 0), int) for k in ("goth", "sickness", "money")):
            raise RecordError(f"card {card['id']} has a value that is not a number")
    moves = data.get("moves", [])
    if not isinstance(moves, list) or len(moves) != len(views) - 1:
        raise RecordError("its moves do not match its views")
    players = data.get("players", [])
    table = data.get("table", {})
    chat = data.get("chat", [])
    if not isinstance(players, list) or not isinstance(table, dict) or not isinstance(chat, list):
        raise RecordError("players, table or chat is of the wrong kind")
    return GameRecord(views, moves, cards, [str(p) for p in players], table, chat)


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise RecordError(f"no {key!r} list")
    return value


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) for v in value)


def _check_view(view: Any, i: int) -> None:
    where = f"view {i}"
    if not isinstance(view, dict):
        raise RecordError(f"{where} is not a map")
    if not isinstance(view.get("phase"), str) or not isinstance(view.get("round"), int):
        raise RecordError(f"{where} has no phase or round")
    if not isinstance(view.get("table", {}), dict) or not _ints(view.get("discard")):
        raise RecordError(f"{where} has a bad table or discard pile")
    log = view.get("log", [])
    if not isinstance(log, list) or not all(isinstance(e, dict) for e in log):
        raise RecordError(f"{where} has a bad log")
    if view.get("winner") is not None and not _ints(view["winner"]):
        raise RecordError(f"{where} has a bad winner")
    players = view.get("players")
    if not isinstance(players, list) or not players:
        raise RecordError(f"{where} has no players")
    for p in players:
        if not isinstance(p, dict) or not isinstance(p.get("seat"), int):
            raise RecordError(f"{where} has a player without a seat")
        scores = p.get("scores")
        if not isinstance(scores, dict) or not all(
            isinstance(scores.get(k), int) for k in ("goth", "sickness", "money")
        ):
            raise RecordError(f"{where} has a player without scores")
        if not _ints(p.get("fate")) or not _ints(p.get("hand", [])):
            raise RecordError(f"{where} has a bad Fate pile or hand")
