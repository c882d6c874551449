"""Hints: the strongest bot's move for a seat, with a one-line reason a player can weigh.

`advise` answers from the seat's own view, like any bot (it sees nothing the player cannot):
the search (`ismcts`) for HINT_TIME seconds, which plays better than the heuristic at that
budget (docs/balance.md), then a reason built from the evaluator, naming what the move does
for the player and the placement that matters most against an opponent, e.g. "keeps you out
of debt; Pastel Hoodie to Lenore, the leader".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from server.game import (
    SWOON_AT,
    WIN_GOTH,
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Move,
    View,
)

from .evaluate import Evaluator
from .ismcts import IsmctsBot
from .position import Position

HINT_TIME = 0.2  # seconds of search: with the reason, a hint answers within 0.3 s
SAFER = 0.15  # a drop in the chance of a swoon this large is worth saying


@dataclass(frozen=True, slots=True)
class Advice:
    move: Move
    reason: str  # one line, for the player


def advise(view: View, deck: Deck, seed: int = 0, think_time: float = HINT_TIME) -> Advice:
    """The hint for `view.seat`, whose decision `view.legal` is pending."""
    move = IsmctsBot(deck, random.Random(seed), think_time=think_time).choose(view)
    return Advice(move, reason(view, deck, move))


def reason(view: View, deck: Deck, move: Move) -> str:
    """Why `move` is good, in one line, from the evaluator's point of view."""
    why = Why(view, deck)
    match move:
        case Distribute(give):
            return why.placement(give)
        case DiscardFate(card):
            return why.fate_discard(card)
        case Draw("discard", card):
            assert card is not None
            return why.take(card)
        case Draw():
            return why.blind()
        case DiscardHand(card):
            return f"lets {deck.card_name(card)} go: the least useful card you hold"
    raise AssertionError(f"not a move: {move!r}")


class Why:
    """Phrases for what a move does, from the seat's own evaluator."""

    def __init__(self, view: View, deck: Deck) -> None:
        self.view, self.deck = view, deck
        self.position = Position.of_view(view, deck)
        self.evaluator = Evaluator(self.position, after_placing=True)
        me = self.position.me
        goth = self.position.goth
        self.leader = max((s for s in range(len(goth)) if s != me), key=lambda s: goth[s])

    def name(self, seat: int) -> str:
        named = self.view.players[seat].name or f"seat {seat + 1}"  # as players count them
        return f"{named}, the leader" if seat == self.leader else named

    def card(self, card: int) -> str:
        return self.deck.card_name(card)

    # -- R11 -----------------------------------------------------------------------------

    def placement(self, give: tuple[tuple[int, int], ...]) -> str:
        me = self.position.me
        parts = [self.for_you(card) for to, card in give if to == me]
        against = [(to, card) for to, card in give if to != me]
        if against:
            to, card = max(against, key=lambda pair: self.evaluator.gain(*pair))
            parts.append(self.against(to, card))
        return "; ".join(parts)

    def for_you(self, card: int) -> str:
        """What `card` on our own pile does for us, the most telling thing first."""
        p, e, deck = self.position, self.evaluator, self.deck
        me = p.me
        goth, sickness, money = p.goth[me], p.sickness[me], p.money[me]
        after = (goth + deck.goth[card], sickness + deck.sickness[card], money + deck.money[card])
        name = self.card(card)
        if after[1] >= SWOON_AT:
            return f"{name} swoons you, but your pile is worth less than a fresh start"
        if after[0] >= WIN_GOTH:
            return f"{name} takes you to {after[0]} Goth: you win at the end of your turn"
        if e.swoon(me, sickness) - e.swoon(me, after[1]) >= SAFER:
            return f"{name} keeps you out of swoon reach"
        if deck.sickness[card] < 0:
            if sickness > 0:
                return f"{name} cures you (Sickness {sickness} to {max(0, after[1])})"
            return f"{name} banks a cure against the Sickness to come"
        if money < 0 <= after[2]:
            return f"{name} gets you out of debt"
        if deck.money[card] > 0 and money < 2 and deck.goth[card] <= 0:
            return f"{name} keeps you out of debt"
        if deck.goth[card] > 0:
            return f"{name} adds {deck.goth[card]} Goth to your pile"
        return f"{name} is the card that costs you least"

    def against(self, seat: int, card: int) -> str:
        p, deck = self.position, self.deck
        name, whom = self.card(card), self.name(seat)
        if p.sickness[seat] + deck.sickness[card] >= SWOON_AT:
            return f"{name} swoons {whom}"
        if deck.goth[card] < 0:
            return f"{name} to {whom}"
        if deck.sickness[card] > 0:
            # R6: a banked cure absorbs Sickness; only what gets past it sickens
            if p.sickness[seat] + deck.sickness[card] > max(0, p.sickness[seat]):
                return f"{name} sickens {whom}"
            return f"{name} to {whom}, whose banked cure absorbs it"
        return f"{name} to {whom}, where it helps least"

    # -- R10, R12 ------------------------------------------------------------------------

    def fate_discard(self, card: int) -> str:
        p, deck = self.position, self.deck
        me = p.me
        name = self.card(card)
        if p.sickness[me] - deck.sickness[card] >= SWOON_AT:
            return f"drops {name}: you swoon, but your pile is worth less than a fresh start"
        if deck.sickness[card] > 0 and p.sickness[me] > 0:
            after = max(0, p.sickness[me] - deck.sickness[card])
            return f"drops {name}: Sickness {p.sickness[me]} to {after}"
        if deck.goth[card] < 0:
            return f"drops {name}: {-deck.goth[card]} Goth back"
        if p.money[me] < 0 <= p.money[me] - deck.money[card]:
            return f"drops {name}: out of debt"
        return f"drops {name}: the card your pile misses least"

    def take(self, card: int) -> str:
        e, p = self.evaluator, self.position
        best = max(range(p.players), key=lambda seat: e.gain(seat, card))
        use = "for your own pile" if best == p.me else f"for {self.name(best)}"
        return f"takes {self.card(card)} from the discard pile {use}"

    def blind(self) -> str:
        if self.view.players[self.position.me].in_debt:
            return "draws blind: in debt, you may not take from the discard pile"
        if not self.position.discard:
            return "draws blind: the discard pile is empty"
        return "draws blind: no card of the discard pile beats what it may bring"
