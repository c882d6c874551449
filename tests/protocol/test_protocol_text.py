"""The rules of untrusted text (protocol/text.py) for look-alikes: names compared by their
TS #39 skeletons, and the marks that draw nothing (variation selectors, the combining
grapheme joiner) gone from chat and names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import ProtocolError, validate_request
from protocol.text import clean_text, looks_like

IGNORABLE = ["\u034f", "\ufe00", "\ufe0f", "\U000e0100", "\U000e01ef", "\u180b", "\u17b4"]
# Latin letters and a Cyrillic or Greek letter drawn the same
TWINS = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445"}
NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1)


@given(NAMES, st.lists(st.tuples(st.integers(0, 30), st.sampled_from(IGNORABLE)), max_size=5))
def test_marks_that_draw_nothing_make_no_new_name(
    name: str, inserts: list[tuple[int, str]]
) -> None:
    disguised = name
    for at, mark in inserts:
        disguised = disguised[:at] + mark + disguised[at:]
    assert looks_like(disguised, name)
    assert clean_text(disguised) == name


@given(NAMES, st.data())
def test_case_spacing_and_twin_letters_make_no_new_name(name: str, data: st.DataObject) -> None:
    twin = "".join(TWINS.get(c, c) if data.draw(st.booleans()) else c for c in name)
    cased = "".join(c.upper() if data.draw(st.booleans()) else c.lower() for c in twin)
    spaced = " ".join(cased) if data.draw(st.booleans()) else cased
    assert looks_like(spaced, name)


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("Lidia", "Lydia"),
        ("Lydian", "Lydia"),
        ("Vladimir", "Vlad"),
        ("Zo\u00eb", "Zoe"),
        ("🦇", "🦇🦇"),
    ],
)
def test_names_that_only_resemble_are_different(name: str, other: str) -> None:
    assert not looks_like(name, other)


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("Vlad \u26ed", "Vlad"),  # a gear beside a name is decoration, not a new person
        ("Lydia!", "Lydia"),
        ("\uff2c\uff59\uff44\uff49\uff41", "Lydia"),  # fullwidth (NFKC)
        ("\u041corticia", "Morticia"),  # Cyrillic capital em
        ("LYDIA", "Lydia"),
    ],
)
def test_decoration_width_and_case_make_no_new_name(name: str, other: str) -> None:
    assert looks_like(name, other)


def test_a_sentence_hidden_in_variation_selectors_is_dropped_from_chat() -> None:
    hidden = "hi" + "".join(chr(0xE0100 + b) for b in b"secret") + "\ufe0f\u034f"
    assert validate_request({"t": "chat", "text": hidden}).text == "hi"


def test_a_name_keeps_no_variation_selector() -> None:
    request = validate_request({"t": "hello", "v": 1, "name": "Lydia\ufe0f\u034f "})
    assert request.name == "Lydia"
    with pytest.raises(ProtocolError, match=r"hello\.name") as caught:
        validate_request({"t": "hello", "v": 1, "name": "\ufe0f\u034f"})
    assert caught.value.code == "bad_message"
