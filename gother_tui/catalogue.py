"""The card catalogue a table sends once (`joined` / `watching`): ids to names and values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gother_tui.glyphs import Glyphs


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    name: str
    flavour: str
    goth: int
    sickness: int
    money: int

    def values(self, glyphs: Glyphs, *, all_three: bool = True) -> str:
        """ "☠+4 ✚+0 $-3" (every value) or "☠+4 $-3" (only what the card changes)."""
        parts = [
            f"{glyph}{value:+d}"
            for glyph, value in (
                (glyphs.goth, self.goth),
                (glyphs.sickness, self.sickness),
                (glyphs.money, self.money),
            )
            if all_three or value
        ]
        return " ".join(parts)


class Catalogue:
    """Lookup by card id. An id the catalogue lacks (a newer server, a bug) still shows."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards = {card.id: card for card in cards}

    @classmethod
    def from_wire(cls, cards: Iterable[Mapping[str, Any]]) -> Catalogue:
        return cls(
            Card(
                id=int(c["id"]),
                name=str(c.get("name", f"card {c['id']}")),
                flavour=str(c.get("flavour", "")),
                goth=int(c.get("goth", 0)),
                sickness=int(c.get("sickness", 0)),
                money=int(c.get("money", 0)),
            )
            for c in cards
        )

    def __getitem__(self, card_id: int) -> Card:
        card = self._cards.get(card_id)
        return card if card is not None else Card(card_id, f"card #{card_id}", "", 0, 0, 0)

    def __len__(self) -> int:
        return len(self._cards)

    def name(self, card_id: int) -> str:
        return self[card_id].name
