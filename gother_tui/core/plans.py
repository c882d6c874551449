"""The move being composed for the decision `view.legal` asks for.

A Plan offers only what `legal` lists and builds the exact move (protocol.moves); it knows
no rules.
It keeps the player's choices (cursor, who gets which card, draw source) until the server
asks for a different decision, so a `state` that only says someone reconnected does not
wipe a half-made distribution.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.view import (
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    View,
)


@dataclass
class Plan:
    legal: Legal
    choices: list[int]  # the cards the cursor moves over, in display order
    cursor: int = 0
    assigned: dict[int, int] = field(default_factory=dict)  # distribute: card -> seat
    source: Literal["deck", "discard"] | None = None  # draw: None until chosen
    touched: bool = False  # the player chose something: a hint must ask before replacing it

    @property
    def kind(self) -> str:
        return self.legal.kind

    # -- what the cursor is on --------------------------------------------------------

    @property
    def browsing(self) -> bool:
        """Does the cursor pick a card? (In the draw step only once the discard pile is open.)"""
        return not isinstance(self.legal, LegalDraw) or self.source == "discard"

    @property
    def current(self) -> int | None:
        if not self.browsing or not self.choices:
            return None
        return self.choices[self.cursor % len(self.choices)]

    def move_cursor(self, delta: int) -> None:
        if self.choices:
            self.cursor = (self.cursor + delta) % len(self.choices)
            self.touched = True

    def point_at(self, card: int) -> bool:
        if card not in self.choices:
            return False
        self.cursor = self.choices.index(card)
        return True

    # -- distribute -------------------------------------------------------------------

    @property
    def recipients(self) -> tuple[int, ...]:
        return self.legal.recipients if isinstance(self.legal, LegalDistribute) else ()

    @property
    def count(self) -> int:
        """How many cards are still to be given (distribute) or discarded (discard down)."""
        legal = self.legal
        return legal.count if isinstance(legal, LegalDistribute | LegalDiscardHand) else 1

    def assign(self, seat: int) -> str | None:
        """Give the highlighted card to `seat`; returns why not, or None.

        Each recipient holds at most one card: giving a seat a second card takes back the
        one it had (changing one's mind needs no extra key)."""
        card = self.current
        if not isinstance(self.legal, LegalDistribute) or card is None:
            return "nothing to give now"
        if seat not in self.recipients:
            return f"seat {seat + 1} cannot receive a card"
        for other, to in list(self.assigned.items()):
            if to == seat and other != card:
                del self.assigned[other]
        if card not in self.assigned and len(self.assigned) >= self.count:
            return f"{self.count} cards are already given: take one back first (0)"
        self.assigned[card] = seat
        self.touched = True
        self._next_unassigned()
        return None

    def unassign(self) -> None:
        card = self.current
        if card is not None:
            self.assigned.pop(card, None)
            self.touched = True

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
        if not isinstance(self.legal, LegalDraw) or not self.legal.deck:
            return "the draw pile and the discard pile are both empty"
        self.source = "deck"
        return None

    def open_discard(self) -> str | None:
        if self.choices:
            self.source, self.cursor, self.touched = "discard", 0, True
            return None
        if isinstance(self.legal, LegalDraw) and self.legal.in_debt:
            return "you are in debt (Money below 0): you may only draw from the draw pile"
        return "the discard pile is empty"

    # -- the move ---------------------------------------------------------------------

    def move(self) -> Move | None:
        """The move once every choice is made; None while something is missing. A placement
        gives in seat order, so two plans of one placement build equal moves."""
        if isinstance(self.legal, LegalDistribute):
            if len(self.assigned) != self.count:
                return None
            return Distribute(tuple(sorted((seat, card) for card, seat in self.assigned.items())))
        if isinstance(self.legal, LegalDraw):
            if self.source == "deck":
                return Draw("deck")
            card = self.current
            return None if card is None else Draw("discard", card)
        card = self.current
        if card is None:
            return None
        return DiscardFate(card) if isinstance(self.legal, LegalDiscardFate) else DiscardHand(card)

    def prefill(self, move: Move) -> bool:
        """Take a suggested move (a `hint` reply's) as the current choices; False if it does
        not fit this decision."""
        if move.kind != self.kind:
            return False
        if isinstance(move, Distribute):
            if any(
                card not in self.choices or seat not in self.recipients for seat, card in move.give
            ):
                return False
            self.assigned = {card: seat for seat, card in move.give}
            self.cursor = 0
            return True
        if isinstance(move, Draw):
            if move.card is None:
                return self.choose_deck() is None
            if self.open_discard() is not None:
                return False
            return self.point_at(move.card)
        assert isinstance(move, DiscardFate | DiscardHand)
        return self.point_at(move.card)


def plan_for(view: View | None) -> Plan | None:
    """A fresh Plan for the view's decision, or None when nothing is asked of this viewer."""
    if view is None or view.legal is None or view.you is None:
        return None
    legal = view.legal
    if isinstance(legal, LegalDiscardFate):
        fate = next((p.fate for p in view.players if p.seat == view.you.seat), ())
        choices = _ordered(legal.cards, reversed(fate))
    elif isinstance(legal, LegalDistribute):
        choices = list(legal.hand)
    elif isinstance(legal, LegalDraw):
        choices = _ordered(legal.discard, reversed(view.discard))
    else:
        choices = _ordered(legal.cards, view.you.hand)
    return Plan(legal, choices)


def keep_or_replace(plan: Plan | None, view: View | None) -> Plan | None:
    """Keep the choices in progress while the server asks the same decision."""
    if plan is not None and view is not None and view.legal == plan.legal:
        return plan
    return plan_for(view)


def _ordered(cards: Iterable[int], order: Iterable[int]) -> list[int]:
    """`cards` in the order they appear in `order` (top of the pile first), others after."""
    wanted = list(cards)
    first = [c for c in order if c in wanted]
    return first + [c for c in wanted if c not in first]
