"""Frames ⇄ maps. The only place in the project where received bytes are decoded."""

from collections.abc import Mapping
from typing import Any, NoReturn

import msgpack
import msgspec

from protocol.constants import MAX_DEPTH, MAX_FRAME
from protocol.errors import ProtocolError

# Types a frame may decode to once extension types are refused; anything else (such as the
# msgpack.Timestamp produced for ext type -1, which bypasses ext_hook) is rejected.
_SCALARS = frozenset((type(None), bool, int, float, str, bytes))
_PLAIN = _SCALARS | {dict, list}
_KEYS = frozenset((str,))


_ENCODER = msgspec.msgpack.Encoder()  # maps and the protocol's typed values alike


def encode(msg: Any) -> bytes:
    """Pack one message (a map or a typed message of `server_messages`); refuse to produce
    a frame the peer would reject as too big."""
    frame = _ENCODER.encode(dict(msg) if isinstance(msg, Mapping) else msg)
    if len(frame) > MAX_FRAME:
        raise ProtocolError("bad_frame", f"frame of {len(frame)} bytes exceeds {MAX_FRAME}")
    return frame


# A map of whatever a peer sent, not yet any type: `validate_request` or `parse` reads it.
def decode(data: bytes) -> dict[str, Any]:
    """Unpack one frame into a map with a string `t`, or raise ProtocolError("bad_frame")."""
    if not isinstance(data, bytes):
        raise ProtocolError("bad_frame", "frames must be binary")
    if len(data) > MAX_FRAME:
        raise ProtocolError("bad_frame", f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    try:
        msg = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            ext_hook=_refuse_ext,
            # Every element costs at least one byte (a map entry two), so these bounds stop
            # a tiny header from declaring a huge container without limiting real messages.
            max_str_len=MAX_FRAME,
            max_bin_len=MAX_FRAME,
            max_array_len=MAX_FRAME,
            max_map_len=MAX_FRAME // 2,
            max_ext_len=MAX_FRAME,
        )
    except ProtocolError:
        raise
    # msgpack documents that unpacking may raise more than its own exception types
    # (ValueError, UnicodeDecodeError, TypeError, StackError, ...); all mean a bad frame.
    except Exception as exc:
        raise ProtocolError("bad_frame", "not a valid msgpack frame") from exc
    _check_tree(msg)
    if not isinstance(msg, dict):
        raise ProtocolError("bad_frame", "a frame must be a map")
    if not isinstance(msg.get("t"), str):
        raise ProtocolError("bad_frame", "a frame must have a string `t`")
    return msg


def _refuse_ext(code: int, data: bytes) -> NoReturn:
    raise ProtocolError("bad_frame", "extension types are not accepted")


def _check_tree(value: object) -> None:
    """Reject nesting deeper than MAX_DEPTH, non-string map keys and non-plain values.

    Iterative on purpose: the C unpacker accepts up to 1024 levels, deep enough for any
    recursive walk (this one, repr, ==) to hit RecursionError. Every request is walked, so
    a level at a time, its values' exact types (the unpacker makes no subclasses) looked
    at in one pass: a move's frame in about 2 µs, not 7.
    """
    level: list[Any] = [value]
    for depth in range(1, MAX_DEPTH + 2):
        kinds = set(map(type, level))
        if kinds <= _SCALARS:
            return
        if not kinds <= _PLAIN:
            raise ProtocolError("bad_frame", "extension types are not accepted")
        if depth > MAX_DEPTH:
            raise ProtocolError("bad_frame", f"nested deeper than {MAX_DEPTH} levels")
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                if not set(map(type, item)) <= _KEYS:
                    raise ProtocolError("bad_frame", "map keys must be strings")
                below.extend(item.values())
            elif kind is list:
                below.extend(item)
        level = below
