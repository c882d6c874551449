"""Log events (docs/protocol.md, "The view") as sentences people read.

Names come from the view's players, card names from the catalogue; the viewer's own seat
reads "You".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gother_tui.catalogue import Catalogue
from protocol.constants import WIN_GOTH
from protocol.view import (
    Drew,
    Event,
    FateDiscarded,
    GameOver,
    HandDiscarded,
    Placed,
    Reshuffled,
    Swooned,
    TurnBegan,
    View,
)


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
    def for_view(cls, view: View, catalogue: Catalogue) -> Narrator:
        names = {p.seat: p.name or f"Seat {p.seat + 1}" for p in view.players}
        return cls(names, catalogue, view.seat)

    def who(self, seat: int | None) -> str:
        if seat is not None and seat == self.you:
            return "You"
        return self.names.get(seat, f"Seat {seat}") if seat is not None else "Someone"

    def whose(self, seat: int | None) -> str:
        return "your" if seat is not None and seat == self.you else "their"

    def card(self, card: int | None) -> str:
        return "a card" if card is None else self.catalogue.name(card)

    def sentence(self, event: Event) -> str:
        match event:
            case TurnBegan(seat=seat, round=round_no):
                turn = "your turn" if seat == self.you else f"{self.who(seat)}'s turn"
                return f"Round {round_no}: {turn}."
            case FateDiscarded(seat=seat, card=card):
                pile = f"{self.whose(seat)} Fate pile"
                return f"{self.who(seat)} discarded {self.card(card)} from {pile}."
            case Placed(seat=seat, to=to, card=card) if to == seat:
                return f"{self.who(seat)} kept {self.card(card)} for {self.whose(seat)} Fate pile."
            case Placed(seat=seat, to=to, card=card):
                target = "you" if to == self.you else self.who(to)
                return f"{self.who(seat)} gave {self.card(card)} to {target}."
            case Swooned(seat=seat, cards=cards):
                count = len(cards)
                return (
                    f"{self.who(seat)} SWOONED: {count} card{'s' * (count != 1)} "
                    "to the discard pile."
                )
            case Drew(seat=seat, source="discard", card=card):
                return f"{self.who(seat)} took {self.card(card)} from the discard pile."
            case Drew(seat=seat, card=None):
                return f"{self.who(seat)} drew a card from the deck."
            case Drew(seat=seat, card=card):
                return f"{self.who(seat)} drew {self.card(card)} from the deck."
            case HandDiscarded(seat=seat, card=card):
                return f"{self.who(seat)} discarded {self.card(card)} from {self.whose(seat)} hand."
            case Reshuffled(count=count):
                return f"The discard pile ({count} cards) became the draw pile."
            case GameOver(winners=winners, reason=reason):
                return self._over(winners, reason)
        raise AssertionError(f"no sentence for {event!r}")  # every Event kind is above

    def _over(self, winners: Sequence[int], reason: str) -> str:
        names = [self.who(s) for s in winners]
        if not names:
            return "Game over."
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "win" if len(names) > 1 or names[0] == "You" else "wins"
        if reason == "round_cap":
            return f"Game over at the round cap: {joined} {verb} on Goth Points."
        return f"Game over: {joined} {verb} with {WIN_GOTH}+ Goth Points."
