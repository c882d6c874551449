"""Log events (docs/protocol.md, "The view") as sentences people read.

Names come from the view's players, card names from the catalogue; the viewer's own seat
reads "You". An event kind this client does not know is shown by its kind, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gother_tui.catalogue import Catalogue


class Narrator:
    def __init__(
        self,
        names: Mapping[int, str],
        catalogue: Catalogue,
        you: int | None = None,
    ) -> None:
        self.names = names
        self.catalogue = catalogue
        self.you = you

    @classmethod
    def for_view(cls, view: Mapping[str, Any], catalogue: Catalogue) -> Narrator:
        names = {p["seat"]: p.get("name") or f"Seat {p['seat'] + 1}" for p in view["players"]}
        you = (view.get("you") or {}).get("seat")
        return cls(names, catalogue, you)

    def who(self, seat: int | None) -> str:
        if seat is not None and seat == self.you:
            return "You"
        return self.names.get(seat, f"Seat {seat}") if seat is not None else "Someone"

    def whose(self, seat: int | None) -> str:
        return "your" if seat is not None and seat == self.you else "their"

    def card(self, card: int | None) -> str:
        return "a card" if card is None else self.catalogue.name(card)

    def sentence(self, event: Mapping[str, Any]) -> str:
        kind = event.get("kind")
        seat = event.get("seat")
        who = self.who(seat)
        if kind == "turn":
            turn = "your turn" if seat == self.you else f"{who}'s turn"
            return f"Round {event.get('round', '?')}: {turn}."
        if kind == "discard_fate":
            return (
                f"{who} discarded {self.card(event.get('card'))} from {self.whose(seat)} Fate pile."
            )
        if kind == "place":
            to = event.get("to")
            if to == seat:
                return (
                    f"{who} kept {self.card(event.get('card'))} for {self.whose(seat)} Fate pile."
                )
            target = "you" if to == self.you else self.who(to)
            return f"{who} gave {self.card(event.get('card'))} to {target}."
        if kind == "swoon":
            count = len(event.get("cards", ()))
            return f"{who} SWOONED: {count} card{'s' * (count != 1)} to the discard pile."
        if kind == "draw":
            if event.get("source") == "discard":
                return f"{who} took {self.card(event.get('card'))} from the discard pile."
            if event.get("card") is not None:
                return f"{who} drew {self.card(event['card'])} from the deck."
            return f"{who} drew a card from the deck."
        if kind == "discard_hand":
            return f"{who} discarded {self.card(event.get('card'))} from {self.whose(seat)} hand."
        if kind == "reshuffle":
            return f"The discard pile ({event.get('count', '?')} cards) became the draw pile."
        if kind == "over":
            return self._over(event.get("winners") or (), event.get("reason"))
        return f"({kind})"

    def _over(self, winners: Sequence[int], reason: str | None) -> str:
        names = [self.who(s) for s in winners]
        if not names:
            return "Game over."
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "win" if len(names) > 1 or names[0] == "You" else "wins"
        if reason == "round_cap":
            return f"Game over at the round cap: {joined} {verb} on Goth Points."
        return f"Game over: {joined} {verb} with 20+ Goth Points."
