"""Cards, decks and deck files (R1, H3).

A deck file is TOML: an optional `name`, then one `[[card]]` table per physical card with
`id`, `name`, `flavour`, `goth`, `sickness`, `money`. Card ids are 0..n-1, each once; they
are the ids on the wire, so they follow the file, never the shuffle.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from protocol.constants import DECK_MAX, HAND_SIZE, NAME_MAX
from protocol.view import Card

VALUE_RANGE = range(-9, 10)
FLAVOUR_MAX = 80
SCORES = ("goth", "sickness", "money")


@dataclass(frozen=True, slots=True)
class Deck:
    """A validated deck. Score columns are kept as tuples indexed by card id: the engine
    sums them on every placement, so they must be cheap to read."""

    name: str
    cards: tuple[Card, ...]
    goth: tuple[int, ...]
    sickness: tuple[int, ...]
    money: tuple[int, ...]

    @classmethod
    def of(cls, name: str, cards: tuple[Card, ...]) -> Deck:
        return cls(
            name,
            cards,
            tuple(c.goth for c in cards),
            tuple(c.sickness for c in cards),
            tuple(c.money for c in cards),
        )

    def __len__(self) -> int:
        return len(self.cards)

    def card_name(self, card: int) -> str:
        return self.cards[card].name if 0 <= card < len(self.cards) else f"card {card}"

    def catalogue(self) -> tuple[Card, ...]:
        """The cards as the protocol sends them, once per table (`joined`, `watching`)."""
        return self.cards

    def check_seats(self, seats: int, source: str = "deck") -> None:
        """H3: a deck must at least deal every seat its opening hand."""
        if len(self.cards) < seats * HAND_SIZE:
            raise DeckError(
                source,
                None,
                None,
                f"has {len(self.cards)} cards, too few to deal {seats} players "
                f"{HAND_SIZE} each (needs {seats * HAND_SIZE})",
            )


class DeckError(ValueError):
    """A deck file is unusable. Says which file, card and field, and what is wrong.
    `card` counts the [[card]] tables of the file from 1; `card_id` is added once known."""

    def __init__(
        self,
        source: str,
        card: int | None,
        field: str | None,
        problem: str,
        card_id: int | None = None,
    ):
        self.source, self.card, self.field, self.problem = source, card, field, problem
        where = source
        if card is not None:
            where += f": card #{card}"
            if card_id is not None:
                where += f" (id {card_id})"
        if field is not None:
            where += f" field '{field}'"
        super().__init__(f"{where}: {problem}")


@functools.lru_cache(maxsize=32)
def parse_deck(text: str, source: str = "<deck>") -> Deck:
    """The deck a TOML text describes (H3), or DeckError naming what is wrong. Decks are
    values and most tables share one: each text is parsed once (TOML is slow, a few ms)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError(source, None, None, f"not valid TOML ({exc})") from None
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise DeckError(source, None, "name", "must be a non-empty string")
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise DeckError(source, None, None, "has no [[card]] tables")
    if len(raw_cards) > DECK_MAX:
        raise DeckError(source, None, None, f"has {len(raw_cards)} cards; at most {DECK_MAX}")
    cards: dict[int, Card] = {}
    for position, raw in enumerate(raw_cards, start=1):
        card = _parse_card(raw, source, position)
        if card.id in cards:
            raise DeckError(source, position, "id", f"duplicate id {card.id}", card.id)
        cards[card.id] = card
    expected = set(range(len(cards)))
    if set(cards) != expected:
        stray = sorted(set(cards) - expected)
        raise DeckError(
            source, None, "id", f"ids must be 0..{len(cards) - 1}; out of range: {stray}"
        )
    return Deck.of(name.strip(), tuple(cards[i] for i in range(len(cards))))


def _parse_card(raw: Any, source: str, position: int) -> Card:
    if not isinstance(raw, dict):
        raise DeckError(source, position, None, "must be a table")
    unknown = sorted(set(raw) - {"id", "name", "flavour", *SCORES})
    if unknown:
        raise DeckError(source, position, unknown[0], "unknown field")

    card_id: int | None = None  # named in every error once it is known

    def fail(key: str | None, problem: str) -> DeckError:
        return DeckError(source, position, key, problem, card_id)

    def field(key: str, kind: type) -> Any:
        if key not in raw:
            raise fail(key, "missing")
        value = raw[key]
        # bool is an int subclass in Python; a deck value of `true` is a typo, not a 1.
        if not isinstance(value, kind) or isinstance(value, bool):
            raise fail(key, f"must be {kind.__name__}, got {type(value).__name__}")
        return value

    card_id = field("id", int)
    name = field("name", str).strip()
    flavour = field("flavour", str).strip()
    if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
        raise fail("name", f"must be 1-{NAME_MAX} printable characters")
    if len(flavour) > FLAVOUR_MAX or not flavour.isprintable():
        raise fail("flavour", f"must be at most {FLAVOUR_MAX} printable characters")
    values = {}
    for key in SCORES:
        value = field(key, int)
        if value not in VALUE_RANGE:
            raise fail(key, f"{value} is outside -9..9")
        values[key] = value
    if not any(values.values()):
        raise fail(None, "changes no score (R1: every card must)")
    return Card(card_id, name, flavour, values["goth"], values["sickness"], values["money"])


def load_deck(path: str | Path) -> Deck:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(str(path), None, None, f"cannot be read ({exc})") from None
    return parse_deck(text, str(path))


def default_deck_text() -> str:
    """The TOML of the original 55-card deck shipped inside the package."""
    return resources.files("server.game").joinpath("decks/original.toml").read_text("utf-8")


def default_deck() -> Deck:
    return parse_deck(default_deck_text(), "original.toml")
