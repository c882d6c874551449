"""The house rules a host may choose, as data: for each field of `Variants` (protocol/view.py:
its type, default and check), the words every door says it in. The full-screen forms and the
plain mode's words (gother_tui/core/forms.py, gother_tui/plain/options.py), `gother play`'s
and `gother simulate`'s options (gother_tui/cli/) and docs/protocol.md's table of `variants`
are built from `HOUSE_RULES`, so a new house rule is one field of Variants, one entry here,
and its engine code and tests.

A rule is typed one of three ways: chosen from a `Menu` of named values, a `Count` (a whole
number, or off, with presets), or a `Flag` the table's seats turn on (R2's 2 or 6 players).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.constants import DEFAULT_ROUND_CAP, ROUND_CAPS, SHORT_ROUND_CAP
from protocol.view import Variants


@dataclass(frozen=True, slots=True)
class HouseRule:
    field: str  # Variants' field: the key in a request's `variants`
    rule_id: str  # its id in docs/rules.md (RULES.md)
    option: str  # the command line's option
    help: str  # what it changes, in a few words (--help, the docs)

    @property
    def default(self) -> Any:
        return getattr(Variants(), self.field)


@dataclass(frozen=True, slots=True)
class Asked(HouseRule):
    """A rule the forms and the plain words ask for."""

    label: str  # a form's label; lowercased, the name a form's refusal gives it
    word: str  # the plain mode's NAME in NAME=VALUE, and the form's field id


@dataclass(frozen=True, slots=True)
class Menu(Asked):
    """A rule chosen by name: a form's menu, `WORD=VALUE` in plain mode."""

    choices: tuple[tuple[str, str], ...]  # (what a form's menu says, the value on the wire)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for _, value in self.choices)


@dataclass(frozen=True, slots=True)
class Preset:
    label: str  # what a form's menu of presets says
    value: int | None  # the count it writes (None: off)
    word: str = ""  # the plain `create` word and the command line's `--WORD` ("": neither)


@dataclass(frozen=True, slots=True)
class Count(Asked):
    """A whole number in `span`, or off: a form's field (empty: off), `WORD=N|off` in plain
    mode; its presets a form's menu that writes the field, and words of their own."""

    span: range
    off: str  # what off means, in the docs' words
    off_option: str  # the command line's option turning it off
    off_help: str
    presets_label: str  # the label of the form's menu of presets; lowercased, its id
    presets: tuple[Preset, ...]


@dataclass(frozen=True, slots=True)
class Flag(HouseRule):
    """A rule on or off, off by default. The one there is (R2) follows the seats a table is
    made with, so the forms and the plain words do not ask it: the command line does."""


OFF = "off"  # the plain word for a count turned off

ROUND_CAP = Count(  # H1, its presets the short game
    field="round_cap",
    rule_id="H1",
    label="Round cap",
    word="cap",
    option="--round-cap",
    help="rounds before the highest Goth wins",
    span=ROUND_CAPS,
    off="no cap",
    off_option="--no-round-cap",
    off_help="play until someone wins",
    presets_label="Length",
    presets=(
        Preset(f"the published game: {DEFAULT_ROUND_CAP} rounds", DEFAULT_ROUND_CAP),
        Preset(f"a short game: {SHORT_ROUND_CAP} rounds", SHORT_ROUND_CAP, "short"),
        Preset("no round cap", None),
    ),
)

HOUSE_RULES: tuple[HouseRule, ...] = (
    Menu(
        field="fate_discard",
        rule_id="R10",
        label="Fate discard",
        word="fate",
        option="--fate-discard",
        help="which card of their Fate pile a player may discard",
        choices=(("any card (standard)", "any"), ("the top card only", "top")),
    ),
    Menu(
        field="overflow",
        rule_id="R13",
        label="Over the limit",
        word="overflow",
        option="--overflow",
        help="when a hand over its limit is discarded down",
        choices=(
            ("at the draw step (standard)", "draw_step"),
            ("immediately, any turn", "immediate"),
        ),
    ),
    ROUND_CAP,
    Flag(
        field="two_or_six",
        rule_id="R2",
        option="--two-or-six",
        help="allow 2 or 6 players",
    ),
)


def asked() -> tuple[Asked, ...]:
    """The rules a form and the plain words ask for, in order (a flag follows the seats)."""
    return tuple(rule for rule in HOUSE_RULES if isinstance(rule, Asked))


def plain_options() -> tuple[str, ...]:
    """The plain mode's `WORD=VALUE` options, as its help says them: fate=any|top, …"""
    return tuple(f"{rule.word}={'|'.join(_values(rule))}" for rule in asked())


def _values(rule: Asked) -> tuple[str, ...]:
    return rule.values if isinstance(rule, Menu) else ("N", OFF)


def plain_defaults() -> dict[str, str]:
    """Each rule's default under its plain word, as typed (a count turned off: `off`)."""
    return {rule.word: OFF if rule.default is None else str(rule.default) for rule in asked()}


def plain_words() -> dict[str, str]:
    """A field of a request's variants -> the plain word for it: variants.overflow -> overflow."""
    return {f"variants.{rule.field}": rule.word for rule in asked()}


def differing(variants: Variants) -> tuple[str, ...]:
    """The rules `variants` holds that differ from the published game, each in a few words
    (the lobby's, at every door): "Fate discard: the top card only", "Round cap: 20", "No
    round cap", "Allow 2 or 6 players"."""
    said = []
    for rule in HOUSE_RULES:
        value = getattr(variants, rule.field)
        if value == rule.default:
            continue
        match rule:
            case Menu():
                named = next(words for words, wire in rule.choices if wire == value)
                said.append(f"{rule.label}: {named}")
            case Count():
                said.append(
                    f"No {rule.label.lower()}" if value is None else f"{rule.label}: {value}"
                )
            case Flag():
                said.append(rule.help[:1].upper() + rule.help[1:])
    return tuple(said)


def protocol_table() -> str:
    """docs/protocol.md's table of `variants`' keys (a test holds the page to it)."""
    rows = [("key", "values", "default")]
    for rule in HOUSE_RULES:
        match rule:
            case Menu():
                values = " or ".join(f'`"{value}"`' for value in rule.values)
            case Count():
                span = f"integer {rule.span.start}…{rule.span.stop - 1}"
                values = f"{span}, or `nil` = {rule.off}"
            case Flag():
                values = f"bool: {rule.help}"
        rows.append((f"`{rule.field}`", f"{values} ({rule.rule_id})", _wire(rule.default)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [_row(row, widths) for row in rows]
    lines.insert(1, "|" + "|".join("-" * (width + 2) for width in widths) + "|")
    return "\n".join(lines)


def _row(cells: tuple[str, str, str], widths: list[int]) -> str:
    return (
        "|"
        + "|".join(f" {cell:<{width}} " for cell, width in zip(cells, widths, strict=True))
        + "|"
    )


def _wire(value: object) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value is None:
        return "`nil`"
    return f'`"{value}"`' if isinstance(value, str) else f"`{value}`"
