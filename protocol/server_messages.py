"""Builders for server → client messages, so every module spells them the same way.

Replies to a request take its `rid` and echo it when there was one; `state` and `chat` are
broadcasts and carry none. Values are passed through as given: the caller builds `view`,
the card catalogue and table listings (see docs/protocol.md for their shapes).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.constants import PROTOCOL_VERSION
from protocol.errors import ErrorCode

Message = dict[str, Any]


def _reply(t: str, rid: int | None, **fields: Any) -> Message:
    msg: Message = {"t": t}
    if rid is not None:
        msg["rid"] = rid
    msg.update(fields)
    return msg


def welcome(server: str, *, rid: int | None = None) -> Message:
    return _reply("welcome", rid, v=PROTOCOL_VERSION, server=server)


def tables(listing: Sequence[Mapping[str, Any]], *, rid: int | None = None) -> Message:
    return _reply("tables", rid, tables=list(listing))


def created(table: str, *, rid: int | None = None) -> Message:
    return _reply("created", rid, table=table)


def joined(
    table: str,
    seat: int,
    token: str,
    cards: Sequence[Mapping[str, Any]],
    *,
    rid: int | None = None,
) -> Message:
    return _reply("joined", rid, table=table, seat=seat, token=token, cards=list(cards))


def watching(table: str, cards: Sequence[Mapping[str, Any]], *, rid: int | None = None) -> Message:
    return _reply("watching", rid, table=table, cards=list(cards))


def hint(move: Mapping[str, Any], *, rid: int | None = None) -> Message:
    return _reply("hint", rid, move=dict(move))


def left(table: str, *, rid: int | None = None) -> Message:
    return _reply("left", rid, table=table)


def state(seq: int, view: Mapping[str, Any]) -> Message:
    return {"t": "state", "seq": seq, "view": view}


def chat(sender: str, text: str) -> Message:
    # `from` on the wire; a Python keyword, hence `sender` here.
    return {"t": "chat", "from": sender, "text": text}


def error(code: str, message: str, *, rid: int | None = None) -> Message:
    # str(ErrorCode(...)): refuse unknown codes, and put a plain str on the wire.
    return _reply("error", rid, code=str(ErrorCode(code)), message=message)
