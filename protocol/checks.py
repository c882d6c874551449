"""Small composable validators for decoded values; each raises ProtocolError("bad_message").

A check is called with the value and `where`, the path used in the error message
(e.g. "create.variants.round_cap"), and returns the value, cleaned.
"""

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, get_args, get_type_hints

import msgspec

from protocol.errors import ProtocolError

Check = Callable[[Any, str], Any]
S = TypeVar("S", bound=msgspec.Struct)

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


def integer(lo: int, hi: int) -> Check:
    def check(value: Any, where: str) -> int:
        # `type(...) is int`, not isinstance: bool is an int subclass, but True is no seat.
        if type(value) is not int:
            raise bad(where, f"must be an integer, got {wire_name(value)}")
        if not lo <= value <= hi:
            raise bad(where, f"must be between {lo} and {hi}, got {value}")
        return value

    return check


def binary(size: int) -> Check:
    """Exactly `size` raw bytes (msgpack bin): a key, a signature."""

    def check(value: Any, where: str) -> bytes:
        if type(value) is not bytes:
            raise bad(where, f"must be binary, got {wire_name(value)}")
        if len(value) != size:
            raise bad(where, f"must be {size} bytes, got {len(value)}")
        return value

    return check


def boolean(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise bad(where, f"must be a bool, got {wire_name(value)}")
    return value


def string(
    lo: int,
    hi: int,
    *,
    tidy: Callable[[str], str] | None = None,
    printable: bool = False,
    pattern: re.Pattern[str] | None = None,
) -> Check:
    """A string of lo..hi characters, measured after `tidy`."""

    def check(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise bad(where, f"must be a string, got {wire_name(value)}")
        text: str = value if tidy is None else tidy(value)
        if not lo <= len(text) <= hi:
            raise bad(where, f"must be {lo} to {hi} characters, got {len(text)}")
        if printable and not text.isprintable():
            raise bad(where, "must not contain control or invisible characters")
        if pattern is not None and not pattern.fullmatch(text):
            raise bad(where, f"must match {pattern.pattern}")
        return text

    return check


def one_of(*choices: str) -> Check:
    def check(value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise bad(where, f"must be one of {', '.join(choices)}, got {show(value)}")
        return value

    return check


def nullable(inner: Check) -> Check:
    def check(value: Any, where: str) -> Any:
        return None if value is None else inner(value, where)

    return check


def array(item: Check, lo: int, hi: int) -> Check:
    """An array of lo..hi items, each passing `item`, as a tuple (a typed value's field)."""

    def check(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise bad(where, f"must be an array, got {wire_name(value)}")
        if not lo <= len(value) <= hi:
            raise bad(where, f"must have {lo} to {hi} items, got {len(value)}")
        return tuple(item(element, f"{where}[{i}]") for i, element in enumerate(value))

    return check


def fixed(*items: Check) -> Check:
    """An array of exactly len(items) positional items, e.g. a [seat, card] pair, as a tuple."""

    def check(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise bad(where, f"must be an array, got {wire_name(value)}")
        if len(value) != len(items):
            raise bad(where, f"must have exactly {len(items)} items, got {len(value)}")
        positions = enumerate(zip(items, value, strict=True))
        return tuple(item(element, f"{where}[{i}]") for i, (item, element) in positions)

    return check


def typed(cls: type[S]) -> Callable[[Any, str], S]:
    """A map whose keys are `cls`'s fields (absent ones take their default, unknown ones are
    refused), each passing the check its annotation carries (`Annotated[int, CARD]`), made
    into a `cls`; then `cls.check(value, where)`, if it has one, for what spans fields. The
    checks of a field are written once, on the typed value itself."""
    fields: list[tuple[str, Check, bool]] = []  # name, check, required
    tag = cls.__struct_config__.tag_field
    hints = get_type_hints(cls, include_extras=True)
    for field in msgspec.structs.fields(cls):
        if field.name != tag:
            fields.append((field.name, hints[field.name].__metadata__[0], field.required))
    fields.sort(key=lambda f: not f[2])  # the required first: their faults are told first
    known = {name for name, _, _ in fields}
    rule = getattr(cls, "check", None)

    def check(value: Any, where: str) -> S:
        if not isinstance(value, Mapping):
            raise bad(where, f"must be a map, got {wire_name(value)}")
        for key in value:
            if key not in known:
                raise bad(where, f"unknown field {show(key)}")
        for name, _, required in fields:
            if required and name not in value:
                raise bad(f"{where}.{name}", "missing")
        made = cls(
            **{
                name: check_field(value[name], f"{where}.{name}")
                for name, check_field, _ in fields
                if name in value
            }
        )
        if rule is not None:
            rule(made, where)
        return made

    return check


def tagged(union: Any, tag: str) -> Check:
    """A map whose `tag` picks which type of `union` it is (`typed`, the tag left out)."""
    shapes = {str(cls.__struct_config__.tag): typed(cls) for cls in get_args(union)}
    choose = one_of(*shapes)

    def check(value: Any, where: str) -> Any:
        if not isinstance(value, Mapping):
            raise bad(where, f"must be a map, got {wire_name(value)}")
        if tag not in value:
            raise bad(f"{where}.{tag}", "missing")
        choice = choose(value[tag], f"{where}.{tag}")
        rest = {key: item for key, item in value.items() if key != tag}
        return shapes[choice](rest, where)

    return check
