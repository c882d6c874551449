"""Deck files (R1, H3): every way a deck file can be wrong is refused with a message that
names the file, the card (its position: the Nth [[card]] table, counted from 1) and the
field."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from protocol import validate_request
from protocol.constants import DECK_MAX
from protocol.errors import ProtocolError
from server.game import Deck, DeckError, Game, default_deck, load_deck, parse_deck
from tests.game.enginekit import deck_toml


def card_fields(card: int, **changes: str | None) -> dict[str, str]:
    """TOML literals of a valid card; a change of None removes the field."""
    fields = {
        "id": str(card),
        "name": f'"Card {card}"',
        "flavour": '"Flavour."',
        "goth": "1",
        "sickness": "0",
        "money": "0",
    }
    for key, value in changes.items():
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    return fields


def toml(cards: list[dict[str, str]], header: str = 'name = "Test"') -> str:
    parts = [header]
    for fields in cards:
        parts.append("[[card]]\n" + "\n".join(f"{k} = {v}" for k, v in fields.items()))
    return "\n\n".join(parts) + "\n"


def deck_with(changed: int, size: int = 15, **changes: str | None) -> str:
    """A `size`-card deck whose card `changed` (an id, at position changed + 1) is altered."""
    return toml([card_fields(i, **(changes if i == changed else {})) for i in range(size)])


def refused(text: str, tmp_path: Path, name: str = "bad.toml") -> DeckError:
    """The error load_deck gives for `text` written to a file (and parse_deck agrees)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError) as from_file:
        load_deck(path)
    with pytest.raises(DeckError) as from_text:
        parse_deck(text, str(path))
    assert str(from_file.value) == str(from_text.value)
    assert str(path) in str(from_file.value)  # names the file
    return from_file.value


# -- fields ------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["id", "name", "flavour", "goth", "sickness", "money"])
def test_missing_field(field, tmp_path):
    error = refused(deck_with(6, **{field: None}), tmp_path)
    assert (error.card, error.field, error.problem) == (7, field, "missing")
    # once the id is read it is named too, since people look cards up by id
    label = "card #7" if field == "id" else "card #7 (id 6)"
    assert f"{label} field '{field}': missing" in str(error)


@pytest.mark.parametrize(
    ("field", "literal", "got"),
    [
        ("goth", "true", "bool"),  # bool is an int in Python, but not in a deck
        ("money", "false", "bool"),
        ("id", "true", "bool"),
        ("sickness", "1.5", "float"),
        ("goth", '"3"', "str"),
        ("id", '"4"', "str"),
        ("name", "5", "int"),
        ("flavour", "[1]", "list"),
    ],
)
def test_wrong_type(field, literal, got, tmp_path):
    error = refused(deck_with(4, **{field: literal}), tmp_path)
    assert (error.card, error.field) == (5, field)
    assert f"got {got}" in error.problem
    label = "card #5" if field == "id" else "card #5 (id 4)"
    assert f"{label} field '{field}'" in str(error)


@pytest.mark.parametrize(("field", "value"), [("goth", 10), ("sickness", -10), ("money", 99)])
def test_value_outside_minus_9_to_9(field, value, tmp_path):
    error = refused(deck_with(2, **{field: str(value)}), tmp_path)
    assert (error.card, error.field) == (3, field)
    assert error.problem == f"{value} is outside -9..9"


def test_values_minus_9_and_9_are_accepted():
    deck = parse_deck(deck_with(2, goth="9", sickness="-9", money="9"))
    card = deck.cards[2]
    assert (card.goth, card.sickness, card.money) == (9, -9, 9)


def test_unknown_field(tmp_path):
    error = refused(deck_with(9, colour='"black"'), tmp_path)
    assert (error.card, error.field, error.problem) == (10, "colour", "unknown field")


def test_a_card_with_no_effect(tmp_path):
    error = refused(deck_with(3, goth="0", sickness="0", money="0"), tmp_path)
    assert error.card == 4 and "changes no score" in error.problem
    assert "card #4 (id 3)" in str(error)


@pytest.mark.parametrize(
    ("field", "literal", "problem"),
    [
        ("name", '""', "1-24 printable"),
        ("name", '"   "', "1-24 printable"),
        ("name", '"' + "x" * 25 + '"', "1-24 printable"),
        ("name", '"bell\\u0007"', "1-24 printable"),
        ("flavour", '"' + "y" * 81 + '"', "at most 80"),
        ("flavour", '"tab\\there"', "at most 80"),
    ],
)
def test_bad_names_and_flavour(field, literal, problem, tmp_path):
    error = refused(deck_with(1, **{field: literal}), tmp_path)
    assert (error.card, error.field) == (2, field)
    assert problem in error.problem


def test_names_are_stripped_and_flavour_may_be_empty():
    deck = parse_deck(deck_with(0, name='"  Coffin  "', flavour='""'))
    assert deck.cards[0].name == "Coffin" and deck.cards[0].flavour == ""


# -- ids -------------------------------------------------------------------------------


def test_duplicate_id(tmp_path):
    cards = [card_fields(i) for i in range(15)]
    cards[8] = card_fields(3)  # the ninth card repeats id 3
    error = refused(toml(cards), tmp_path)
    assert (error.card, error.field) == (9, "id")
    assert error.problem == "duplicate id 3"


def test_ids_not_0_to_n_minus_1(tmp_path):
    cards = [card_fields(i) for i in range(15)]
    cards[14] = card_fields(20)
    error = refused(toml(cards), tmp_path)
    assert error.field == "id" and "0..14" in error.problem and "[20]" in error.problem


def test_h3_a_deck_larger_than_a_move_can_name_is_refused(tmp_path):
    # Card ids travel in moves as 0..DECK_MAX-1: a bigger deck would deal a card no move can
    # play, and the game could never be finished.
    assert len(parse_deck(toml([card_fields(i) for i in range(DECK_MAX)]))) == DECK_MAX
    error = refused(toml([card_fields(i) for i in range(DECK_MAX + 1)]), tmp_path)
    assert f"has {DECK_MAX + 1} cards; at most {DECK_MAX}" in str(error)
    validate_request({"t": "move", "move": {"kind": "discard_fate", "card": DECK_MAX - 1}})
    with pytest.raises(ProtocolError):
        validate_request({"t": "move", "move": {"kind": "discard_fate", "card": DECK_MAX}})


def test_negative_id(tmp_path):
    cards = [card_fields(i) for i in range(15)]
    cards[0] = card_fields(-1)
    error = refused(toml(cards), tmp_path)
    assert error.field == "id" and "[-1]" in error.problem


def test_ids_may_be_listed_in_any_order_and_are_kept_by_id():
    cards = [card_fields(i, goth=str(i % 9 + 1)) for i in range(15)]
    deck = parse_deck(toml(cards[::-1]))
    assert [c.id for c in deck.cards] == list(range(15))
    assert deck.goth == tuple(i % 9 + 1 for i in range(15))


# -- the file as a whole ---------------------------------------------------------------


def test_bad_toml(tmp_path):
    error = refused('name = "Broken"\n[[card]\nid = 0\n', tmp_path)
    assert error.card is None and "not valid TOML" in error.problem


def test_no_cards(tmp_path):
    error = refused('name = "Empty"\n', tmp_path)
    assert "no [[card]] tables" in error.problem


def test_card_not_a_table(tmp_path):
    error = refused('name = "Odd"\ncard = [1, 2]\n', tmp_path)
    assert error.card == 1 and "must be a table" in error.problem


@pytest.mark.parametrize("header", ['name = ""', "name = 3", 'name = "   "'])
def test_bad_deck_name(header, tmp_path):
    error = refused(toml([card_fields(i) for i in range(15)], header=header), tmp_path)
    assert error.field == "name" and error.card is None


def test_the_deck_name_defaults_to_the_file_stem(tmp_path):
    path = tmp_path / "midnight.toml"
    path.write_text(toml([card_fields(i) for i in range(15)], header=""))
    assert load_deck(path).name == "midnight"


def test_unreadable_file_missing(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert caught.value.source == str(path)
    assert str(path) in str(caught.value) and "cannot be read" in str(caught.value)


def test_unreadable_file_a_directory(tmp_path):
    with pytest.raises(DeckError, match="cannot be read"):
        load_deck(tmp_path)


def test_unreadable_file_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(deck_toml().encode() + b"\n# caf\xe9 noir\n")
    with pytest.raises(DeckError, match="cannot be read") as caught:
        load_deck(path)
    assert str(path) in str(caught.value)


# -- too few cards for a table ---------------------------------------------------------


@pytest.mark.parametrize(("size", "ok", "refused_at"), [(15, 3, 4), (20, 4, 5), (24, 4, 5)])
def test_too_few_cards_for_a_table(size, ok, refused_at):
    deck = parse_deck(deck_toml(size=size), "small.toml")
    deck.check_seats(ok)
    Game.new(deck, ok, seed=1)
    with pytest.raises(DeckError) as caught:
        deck.check_seats(refused_at, "small.toml")
    assert caught.value.source == "small.toml"
    assert f"has {size} cards" in str(caught.value)
    assert f"needs {refused_at * 5}" in str(caught.value)
    with pytest.raises(DeckError, match="too few"):
        Game.new(deck, refused_at, seed=1)


# -- the packaged deck -----------------------------------------------------------------


def test_the_packaged_deck_loads_from_its_file_like_any_other():
    packaged = resources.files("server.game").joinpath("decks/original.toml")
    with resources.as_file(packaged) as path:
        from_file = load_deck(path)
    shipped = default_deck()
    assert isinstance(shipped, Deck)
    assert from_file.cards == shipped.cards
    assert from_file.name == shipped.name == "Original"
    for seats in (3, 4, 5):
        shipped.check_seats(seats)
