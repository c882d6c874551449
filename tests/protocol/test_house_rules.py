"""House rules as data (protocol/house_rules.py, issue 33 §4): one entry for each field of
`Variants`, whose words agree with the field's type, default and check; the forms, the plain
words, the command line and the docs built from them offer every rule, and every choice typed
at any of them reaches the request as that choice."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args, get_origin, get_type_hints

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import fields

from gother_tui.cli import host, parser
from gother_tui.core.forms import house_rules, table_request
from gother_tui.plain.tournament_new import tournament_new
from protocol import ProtocolError
from protocol.house_rules import (
    HOUSE_RULES,
    OFF,
    ROUND_CAP,
    Asked,
    Count,
    Flag,
    Menu,
    asked,
    differing,
    plain_defaults,
    plain_options,
    protocol_table,
)
from protocol.view import Variants

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = DOCS.parent / "README.md"
HINTS = get_type_hints(Variants, include_extras=True)


def wire_type(field: str) -> object:
    """A field's type, without the checks annotated on it."""
    hint = HINTS[field]
    return get_args(hint)[0] if get_origin(hint) is Annotated else hint


def test_h2_every_field_of_variants_is_one_house_rule_in_order():
    assert [rule.field for rule in HOUSE_RULES] == [field.name for field in fields(Variants)]
    for kind in ("word", "label"):
        said = [getattr(rule, kind) for rule in asked()]
        assert len(said) == len(set(said)), kind  # a form's ids and the plain words are unique
    options = [rule.option for rule in HOUSE_RULES]
    assert len(options) == len(set(options))


@pytest.mark.parametrize("rule", [r for r in HOUSE_RULES if isinstance(r, Menu)], ids=str)
def test_h2_a_menus_choices_are_its_fields_values_and_the_protocol_takes_them(rule):
    assert rule.values == get_args(wire_type(rule.field))
    assert rule.default in rule.values
    for value in rule.values:
        assert getattr(Variants.from_wire({rule.field: value}), rule.field) == value
    with pytest.raises(ProtocolError):
        Variants.from_wire({rule.field: "not " + rule.values[0]})


@pytest.mark.parametrize("rule", [r for r in HOUSE_RULES if isinstance(r, Count)], ids=str)
def test_h1_a_counts_span_is_what_the_protocol_takes_and_its_presets_lie_in_it(rule):
    low, high = rule.span.start, rule.span.stop - 1
    for value in (low, high, None):
        assert getattr(Variants.from_wire({rule.field: value}), rule.field) == value
    for value in (low - 1, high + 1):
        with pytest.raises(ProtocolError):
            Variants.from_wire({rule.field: value})
    assert rule.default in rule.span
    assert all(p.value is None or p.value in rule.span for p in rule.presets)
    assert rule.presets[0].value == rule.default  # the form opens on the published game


def test_r2_a_flag_is_a_bool_off_by_default():
    flags = [rule for rule in HOUSE_RULES if isinstance(rule, Flag)]
    assert [rule.field for rule in flags] == ["two_or_six"]
    assert all(wire_type(rule.field) is bool and rule.default is False for rule in flags)


def test_the_docs_table_of_variants_is_the_data():
    page = (DOCS / "protocol.md").read_text(encoding="utf-8")
    table = "\n".join("  " + line for line in protocol_table().splitlines())
    assert table in page


def test_the_docs_name_every_rules_option_and_plain_word():
    plain = (DOCS / "plain.md").read_text(encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    for rule in HOUSE_RULES:
        assert f"`{rule.option}" in readme, rule.option
    for option in plain_options():
        assert f"`{option}`" in plain, option


@st.composite
def choices(draw: st.DrawFn) -> dict[str, str]:
    """A value for each rule a form asks, as it is typed (a count: a number in its span, or
    off), some left out."""
    typed = {}
    for rule in asked():
        if isinstance(rule, Menu):
            value = draw(st.sampled_from(rule.values))
        else:
            assert isinstance(rule, Count)
            number = st.integers(rule.span.start, rule.span.stop - 1).map(str)
            value = draw(st.one_of(number, st.sampled_from(["", OFF])))
        if draw(st.booleans()):
            typed[rule.word] = value
    return typed


def expected(typed: dict[str, str]) -> Variants:
    """The variants chosen: a menu's value as typed, a count's number (empty or off: None)."""
    chosen: dict[str, str | int | None] = {}
    for rule in asked():
        said = typed.get(rule.word)
        if said is None:
            continue
        off = isinstance(rule, Count) and said in ("", OFF)
        chosen[rule.field] = None if off else said if isinstance(rule, Menu) else int(said)
    return Variants(**chosen)  # type: ignore[arg-type]


@given(choices())
def test_what_a_form_and_the_plain_words_choose_reaches_the_request(typed):
    fields = {"name": "Crypt", "seats": "4", "bots": "3", "bot": "normal", "aim": ""}
    table = table_request({**fields, "password": "", **typed})
    assert table.variants == expected(typed)
    words = " ".join(f"{word}={value or OFF}" for word, value in typed.items())
    night = tournament_new(f"3 4 secret Night {words}")
    assert night.variants == expected({**plain_defaults(), **typed})
    assert Variants.from_wire(house_rules(typed)) == expected(typed)


@given(choices(), st.booleans())
def test_what_the_command_line_chooses_reaches_the_variants(typed, flag):
    argv = ["play"]
    for rule in asked():
        said = typed.get(rule.word)
        if said is None:
            continue
        if isinstance(rule, Count) and said in ("", OFF):
            argv.append(rule.off_option)
        else:
            argv += [rule.option, said]
    argv += ["--two-or-six"] * flag
    args = parser.build_parser().parse_args(argv)
    assert host.variants_of(args) == Variants(**{**expected(typed).to_wire(), "two_or_six": flag})


def test_h1_each_named_preset_is_a_word_and_an_option():
    short = [preset for preset in ROUND_CAP.presets if preset.word]
    assert [preset.word for preset in short] == ["short"]
    args = parser.build_parser().parse_args(["play", "--short"])
    assert host.variants_of(args).round_cap == short[0].value == 20


def test_h2_the_lobby_says_each_rule_that_is_not_the_published_games():
    assert differing(Variants()) == ()
    every = Variants(fate_discard="top", overflow="immediate", round_cap=None, two_or_six=True)
    assert differing(every) == (
        "Fate discard: the top card only",
        "Over the limit: immediately, any turn",
        "No round cap",
        "Allow 2 or 6 players",
    )
    assert differing(Variants(round_cap=20)) == ("Round cap: 20",)


@given(choices(), st.booleans())
def test_h2_the_lobby_says_as_many_rules_as_differ_from_the_published_game(typed, flag):
    variants = Variants(**{**expected(typed).to_wire(), "two_or_six": flag})
    changed = [rule for rule in HOUSE_RULES if getattr(variants, rule.field) != rule.default]
    said = differing(variants)
    assert len(said) == len(changed)
    for rule, words in zip(changed, said, strict=True):  # each names its rule, in order
        named = rule.label if isinstance(rule, Asked) else rule.help
        assert named.lower() in words.lower()
