"""The keys: a user's keymap file, and the help's key table built from the live bindings.

Every binding has an id (`draw.deck`, `lobby.join`…) and a tooltip saying what it does. A
keymap file maps ids to keys and is applied with Textual's `set_keymap`, as Posting does:

    # ~/.config/gother/keymap.toml
    "draw.deck" = "D"
    "confirm" = "enter,space"

The help screen lists the bindings with the keys the keymap gives them, so it cannot drift
from what the keys really do.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path

from platformdirs import user_config_dir
from textual.binding import Binding, BindingsMap, BindingType

KEYMAP_FILE = "keymap.toml"


class KeymapError(ValueError):
    """The keymap file cannot be used; the message says why, for the player."""


def keymap_path() -> Path:
    return Path(user_config_dir("gother")) / KEYMAP_FILE


def load_keymap(path: Path, known: Collection[str]) -> dict[str, str]:
    """The keymap in `path` ({} when there is none), binding id -> keys ("d" or
    "ctrl+d,D"); KeymapError when the file is unreadable or names an unknown id."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise KeymapError(f"cannot read {path}: {exc}") from None
    import tomllib  # only when there is a file to read: most have none

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise KeymapError(f"{path} is not valid TOML: {exc}") from None
    keymap: dict[str, str] = {}
    for binding_id, keys in _flatten(data):
        if binding_id not in known:
            raise KeymapError(f"{path}: there is no key binding {binding_id!r}")
        parts = [part.strip() for part in keys.split(",")] if isinstance(keys, str) else []
        if not parts or not all(part and " " not in part for part in parts):
            raise KeymapError(f'{path}: {binding_id} must be keys, like "d" or "ctrl+d,D"')
        keymap[binding_id] = ",".join(parts)
    return keymap


def _flatten(table: Mapping[str, object], prefix: str = "") -> Iterator[tuple[str, object]]:
    # `draw.deck = "D"` unquoted is a TOML table {"draw": {"deck": "D"}}: read it as the id
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def binding_ids(bindings: Iterable[BindingType]) -> set[str]:
    return {b.id for b in Binding.make_bindings(bindings) if b.id}


def key_rows(
    bindings: Iterable[BindingType],
    keymap: Mapping[str, str],
    display: Callable[[Binding], str],
) -> list[tuple[str, str]]:
    """(keys, what they do) for the help: one row per tooltip, in the order the bindings
    are declared, each key as the keymap has it now and as the footer would show it."""
    declared = list(Binding.make_bindings(bindings))
    live = BindingsMap(declared)
    live.apply_keymap(keymap)
    keys: dict[str, list[str]] = {}
    for binding in (b for found in live.key_to_bindings.values() for b in found):
        # the key alone, not a footer's key_display ("1-5" stands for five bindings there)
        keys.setdefault(binding.tooltip, []).append(display(binding.with_key(binding.key)))
    rows: dict[str, str] = {}
    for binding in declared:
        if binding.tooltip and binding.tooltip not in rows:
            rows[binding.tooltip] = _join(keys.get(binding.tooltip, []))
    return [(shown, tooltip) for tooltip, shown in rows.items()]


def _join(keys: list[str]) -> str:
    unique = list(dict.fromkeys(keys))
    digits = [int(k) for k in unique if k.isdigit() and len(k) == 1]
    if len(digits) == len(unique) > 2 and digits == list(range(digits[0], digits[-1] + 1)):
        return f"{digits[0]}-{digits[-1]}"  # the seat keys: "1-5"
    return " ".join(unique)
