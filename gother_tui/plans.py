"""The move being composed for the decision `view.legal` asks for.

A Plan offers only what `legal` lists and builds the exact wire `move`; it knows no rules.
It keeps the player's choices (cursor, who gets which card, draw source) until the server
asks for a different decision, so a `state` that only says someone reconnected does not
wipe a half-made distribution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Plan:
    legal: dict[str, Any]
    choices: list[int]  # the cards the cursor moves over, in display order
    cursor: int = 0
    assigned: dict[int, int] = field(default_factory=dict)  # distribute: card -> seat
    source: str | None = None  # draw: None (not chosen), "deck" or "discard"

    @property
    def kind(self) -> str:
        return str(self.legal["kind"])

    # -- what the cursor is on --------------------------------------------------------

    @property
    def browsing(self) -> bool:
        """Does the cursor pick a card? (In the draw step only once the discard pile is open.)"""
        return self.kind != "draw" or self.source == "discard"

    @property
    def current(self) -> int | None:
        if not self.browsing or not self.choices:
            return None
        return self.choices[self.cursor % len(self.choices)]

    def move_cursor(self, delta: int) -> None:
        if self.choices:
            self.cursor = (self.cursor + delta) % len(self.choices)

    def point_at(self, card: int) -> bool:
        if card not in self.choices:
            return False
        self.cursor = self.choices.index(card)
        return True

    # -- distribute -------------------------------------------------------------------

    @property
    def recipients(self) -> list[int]:
        return list(self.legal.get("recipients", ()))

    @property
    def count(self) -> int:
        return int(self.legal.get("count", 1))

    def assign(self, seat: int) -> str | None:
        """Give the highlighted card to `seat`; returns why not, or None.

        Each recipient holds at most one card: giving a seat a second card takes back the
        one it had (changing one's mind needs no extra key)."""
        card = self.current
        if self.kind != "distribute" or card is None:
            return "nothing to give now"
        if seat not in self.recipients:
            return f"seat {seat + 1} cannot receive a card"
        for other, to in list(self.assigned.items()):
            if to == seat and other != card:
                del self.assigned[other]
        if card not in self.assigned and len(self.assigned) >= self.count:
            return f"{self.count} cards are already given: take one back first (0)"
        self.assigned[card] = seat
        self._next_unassigned()
        return None

    def unassign(self) -> None:
        card = self.current
        if card is not None:
            self.assigned.pop(card, None)

    def _next_unassigned(self) -> None:
        if len(self.assigned) >= self.count:
            return
        for step in range(1, len(self.choices) + 1):
            index = (self.cursor + step) % len(self.choices)
            if self.choices[index] not in self.assigned:
                self.cursor = index
                return

    def holder_of(self, seat: int) -> int | None:
        return next((card for card, to in self.assigned.items() if to == seat), None)

    # -- draw -------------------------------------------------------------------------

    def choose_deck(self) -> str | None:
        if not self.legal.get("deck"):
            return "the draw pile and the discard pile are both empty"
        self.source = "deck"
        return None

    def open_discard(self) -> str | None:
        if self.choices:
            self.source, self.cursor = "discard", 0
            return None
        if self.legal.get("in_debt"):
            return "you are in debt (Money below 0): you may only draw from the deck (R12)"
        return "the discard pile is empty"

    # -- the move ---------------------------------------------------------------------

    def move(self) -> dict[str, Any] | None:
        """The wire `move` once every choice is made; None while something is missing."""
        kind = self.kind
        if kind == "distribute":
            if len(self.assigned) != self.count:
                return None
            give = sorted((seat, card) for card, seat in self.assigned.items())
            return {"kind": kind, "give": [[seat, card] for seat, card in give]}
        if kind == "draw":
            if self.source == "deck":
                return {"kind": "draw", "source": "deck"}
            card = self.current
            return None if card is None else {"kind": "draw", "source": "discard", "card": card}
        card = self.current
        return None if card is None else {"kind": kind, "card": card}

    def prefill(self, move: Mapping[str, Any]) -> bool:
        """Take a suggested move (a `hint` reply) as the current choices; False if it does
        not fit this decision."""
        if move.get("kind") != self.kind:
            return False
        if self.kind == "distribute":
            give = [(int(seat), int(card)) for seat, card in move.get("give", ())]
            if any(card not in self.choices or seat not in self.recipients for seat, card in give):
                return False
            self.assigned = {card: seat for seat, card in give}
            self.cursor = 0
            return True
        if self.kind == "draw":
            if move.get("source") == "deck":
                return self.choose_deck() is None
            if self.open_discard() is not None:
                return False
            return self.point_at(int(move.get("card", -1)))
        return self.point_at(int(move.get("card", -1)))


def plan_for(view: Mapping[str, Any] | None) -> Plan | None:
    """A fresh Plan for the view's decision, or None when nothing is asked of this viewer."""
    if not view or not view.get("legal") or view.get("you") is None:
        return None
    legal = dict(view["legal"])
    kind = legal.get("kind")
    you = view["you"]
    fate = _fate_of(view, you.get("seat"))
    if kind == "discard_fate":
        choices = _ordered(legal.get("cards", ()), list(reversed(fate)))
    elif kind == "distribute":
        choices = list(legal.get("hand", ()))
    elif kind == "draw":
        choices = _ordered(legal.get("discard", ()), list(reversed(view.get("discard", ()))))
    elif kind == "discard_hand":
        choices = _ordered(legal.get("cards", ()), list(you.get("hand", ())))
    else:
        return None  # a decision this client does not know: show, don't guess
    return Plan(legal, choices)


def keep_or_replace(plan: Plan | None, view: Mapping[str, Any] | None) -> Plan | None:
    """Keep the choices in progress while the server asks the same decision."""
    if plan is not None and view and view.get("legal") == plan.legal:
        return plan
    return plan_for(view)


def _fate_of(view: Mapping[str, Any], seat: int | None) -> list[int]:
    for player in view.get("players", ()):
        if player.get("seat") == seat:
            return list(player.get("fate", ()))
    return []


def _ordered(cards: Sequence[int], order: Sequence[int]) -> list[int]:
    """`cards` in the order they appear in `order` (top of the pile first), others after."""
    wanted = list(cards)
    first = [c for c in order if c in wanted]
    return first + [c for c in wanted if c not in first]
