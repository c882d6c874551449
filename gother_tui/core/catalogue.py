"""The card catalogue a table sends once (`joined` / `watching`): ids to the protocol's
cards, and how a card's values read on the table."""

from __future__ import annotations

from collections.abc import Iterable

from gother_tui.core.glyphs import Glyphs
from protocol.view import Card


def values(card: Card, glyphs: Glyphs, *, all_three: bool = True) -> str:
    """ "☥+4 ☠+0 $-3" (every value) or "☥+4 $-3" (only what the card changes)."""
    parts = [
        f"{glyph}{value:+d}"
        for glyph, value in (
            (glyphs.goth, card.goth),
            (glyphs.sickness, card.sickness),
            (glyphs.money, card.money),
        )
        if all_three or value
    ]
    return " ".join(parts)


class Catalogue:
    """Lookup by card id. An id the catalogue lacks (a newer server, a bug) still shows."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards = {card.id: card for card in cards}

    def __getitem__(self, card_id: int) -> Card:
        card = self._cards.get(card_id)
        if card is None:
            return Card(card_id, f"card #{card_id}", "", 0, 0, 0)
        return card

    def __len__(self) -> int:
        return len(self._cards)

    def name(self, card_id: int) -> str:
        return self[card_id].name
