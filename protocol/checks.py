"""Reading a decoded value into a typed one, and saying why not.

msgspec reads it, by the constraints each field declares on its type (`Annotated[int,
Meta(ge=0, le=5)]`, protocol/fields.py): the one engine that decides. This module only says
a refusal in the protocol's words, a ProtocolError("bad_message") that names the field
(`create.seats: must be between 2 and 6, got 9`, docs/protocol.md "Validation"): from the
path msgspec gives, the field's declared type and the value the peer sent. What a type
cannot say (a rule across fields, a text measured after its clean-up) is the `check` method
of the typed value, run once it is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args, get_origin, get_type_hints

import msgspec
from msgspec import inspect

from protocol.errors import ProtocolError

T = TypeVar("T")

__all__ = ["Absent", "bad", "read", "show", "wire_name"]

if TYPE_CHECKING:
    from typing import Optional as Absent
else:

    class Absent:
        """`Absent[X]`: a field a request may leave out (it reads None) but never send as
        nil, which would say nothing its absence does not (docs/protocol.md: absent and nil
        differ). mypy sees `X | None`; msgspec sees `X`, and refuses a nil."""

        def __class_getitem__(cls, kind: Any) -> Any:
            return kind


_WIRE_NAMES = {
    type(None): "nil",
    bool: "bool",
    int: "integer",
    float: "float",
    str: "string",
    bytes: "binary",
    list: "array",
    tuple: "array",
    dict: "map",
}


def bad(where: str, problem: str) -> ProtocolError:
    return ProtocolError("bad_message", f"{where}: {problem}")


def show(value: object) -> str:
    """A short rendering of an offending value, safe to echo in an error message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def wire_name(value: object) -> str:
    return _WIRE_NAMES.get(type(value), type(value).__name__)


def read(kind: type[T], data: object, where: str) -> T:
    """`data` (decoded msgpack) as a `kind`, its `check` passed, or ProtocolError naming
    the field at fault under `where` (the request's type, e.g. "create")."""
    try:
        value: T = msgspec.convert(data, kind, builtin_types=(bytes,))  # a string is no binary
    except msgspec.ValidationError as exc:
        raise _refusal(str(exc), kind, data, where) from None
    check = getattr(value, "check", None)
    if check is not None:
        check(where)
    return value


# msgspec's message: what is wrong, then where (absent at the top): "... - at `$.give[0][1]`"
_AT = re.compile(r"(?s)(.*) - at `\$((?:\.\w+|\[\d+\])*)`")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
_MISSING = re.compile(r"Object missing required field `(\w+)`")


def _refusal(message: str, kind: Any, data: object, where: str) -> ProtocolError:
    at = _AT.fullmatch(message)
    problem, path = (at[1], at[2]) if at else (message, "")
    steps: list[str | int] = [name if name else int(index) for name, index in _STEP.findall(path)]
    if problem.startswith("Object contains unknown field"):
        # The key is read from the peer's map, not from msgspec's quote of it, which a key
        # holding "` - at `$" could make ambiguous.
        for trail in (steps, []):
            found = _unknown(_type(kind), data, trail)
            if found is not None:
                return bad(where + _path(trail), f"unknown field {show(found)}")
    missing = _MISSING.fullmatch(problem)
    if missing:
        return bad(f"{where}{path}.{missing[1]}", "missing")
    info, value, hint = _walk(_type(kind), data, steps)
    return bad(where + path, _fault(info, value, hint) or problem)


@lru_cache(maxsize=64)
def _type(kind: Any) -> inspect.Type:
    return inspect.type_info(kind)


@lru_cache(maxsize=64)
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls, include_extras=True)


def _path(steps: list[str | int]) -> str:
    return "".join(f".{step}" if isinstance(step, str) else f"[{step}]" for step in steps)


def _walk(info: inspect.Type, value: object, steps: list[str | int]) -> tuple[Any, object, Any]:
    """The declared type at `steps`, the value the peer sent there, and the field's own
    annotation when `steps` ends at a field (its choices in their written order: msgspec
    sorts them)."""
    hint: Any = None
    for step in steps:
        info, hint = _chosen(info, value), None
        if isinstance(step, int):
            value = value[step] if isinstance(value, list | tuple) and step < len(value) else None
            if isinstance(info, inspect.TupleType):
                info = info.item_types[step] if step < len(info.item_types) else info
            elif isinstance(info, inspect.VarTupleType | inspect.ListType):
                info = info.item_type
            continue
        value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(info, inspect.UnionType):  # the tag of a union of typed maps
            tags = [str(s.tag) for s in info.types if isinstance(s, inspect.StructType)]
            info = inspect.LiteralType(tuple(tags))
        elif isinstance(info, inspect.StructType):
            hint = _hints(info.cls).get(step)
            info = next((f.type for f in info.fields if f.encode_name == step), info)
    return _chosen(info, value), value, hint


def _chosen(info: Any, value: object) -> Any:
    """Of a union, the member `value` stands for: not nil, or the typed map its tag names."""
    if isinstance(info, inspect.Metadata):
        info = info.type
    if not isinstance(info, inspect.UnionType):
        return info
    members = [t for t in info.types if not isinstance(t, inspect.NoneType)]
    if isinstance(value, Mapping):
        for member in members:
            if isinstance(member, inspect.StructType) and value.get(member.tag_field) == member.tag:
                return member
    return members[0] if len(members) == 1 else info


def _unknown(info: inspect.Type, data: object, steps: list[str | int]) -> str | None:
    """The first key of the map at `steps` that its type does not know, if any."""
    struct, value, _ = _walk(info, data, steps)
    if not isinstance(struct, inspect.StructType) or not isinstance(value, Mapping):
        return None
    known = {f.encode_name for f in struct.fields} | {struct.tag_field}
    return next((key for key in value if key not in known), None)


def _fault(info: Any, value: object, hint: Any) -> str | None:
    """What is wrong with `value` as a value of the declared type, in the protocol's words."""
    got = wire_name(value)
    match info:
        case inspect.IntType(ge=lo, le=hi):
            if type(value) is not int:
                return f"must be an integer, got {got}"
            return f"must be between {lo} and {hi}, got {value}"
        case inspect.BoolType():
            return f"must be a bool, got {got}"
        case inspect.StrType(min_length=lo, max_length=hi, pattern=pattern):
            if not isinstance(value, str):
                return f"must be a string, got {got}"
            if pattern is not None and (lo or 0) <= len(value) <= (hi or len(value)):
                return f"must match {_unanchored(pattern)}"
            return f"must be {lo} to {hi} characters, got {len(value)}"
        case inspect.BytesType(min_length=size):
            if type(value) is not bytes:
                return f"must be binary, got {got}"
            return f"must be {size} bytes, got {len(value)}"
        case inspect.LiteralType(values=choices):
            said = ", ".join(map(str, _written(hint) or choices))
            return f"must be one of {said}, got {show(value)}"
        case inspect.StructType() | inspect.UnionType():
            return f"must be a map, got {got}"
        case inspect.VarTupleType(min_length=lo, max_length=hi):
            if not isinstance(value, list | tuple):
                return f"must be an array, got {got}"
            return f"must have {lo} to {hi} items, got {len(value)}"
        case inspect.TupleType(item_types=items):
            if not isinstance(value, list | tuple):
                return f"must be an array, got {got}"
            return f"must have exactly {len(items)} items, got {len(value)}"
    return None


def _written(hint: Any) -> tuple[Any, ...]:
    """The choices of a Literal field as its annotation writes them (`X | None` too)."""
    for kind in (hint, *get_args(hint)):
        if get_origin(kind) is Literal:
            return get_args(kind)
    return ()


def _unanchored(pattern: str) -> str:
    # Meta's patterns are searched, so fields.py anchors them; the sentence shows the shape.
    return pattern.removeprefix("^").removesuffix("\\Z")
