"""Today's heuristic, frozen: the ladder's yardstick, not part of the product.

A copy of `server/bots/heuristic.py` as it stood at commit 424093b, before issue 12 replaced
it (it ignores banked cures and the cards others are known to hold), changed only in its name
and kind ("baseline") and with its base class's constructor inlined. Kept here so
`bench/ladder.py` can measure the new bots against it; never edit it to follow the product.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import permutations
from statistics import fmean

from server.game import (
    SWOON_AT,
    WIN_GOTH,
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    View,
)

# -- the evaluation (all in Goth Points) -------------------------------------------------
WIN_BONUS = 30.0  # R15: 20+ at the end of the owner's turn wins; on our own pile, at once
NEAR_WIN_FROM = 14  # above this each Goth Point counts double: one good turn from 20
SWOON_RISK = (0.0, 0.05, 0.15, 0.3, 0.5)  # share of the Goth at stake, by effective Sickness
SICK_COST = 0.3  # R8: each Sickness point is one card less in hand
DEBT_PENALTY = 1.0  # R9/R12: debt forbids drawing from the discard pile
MONEY_CUSHION = 0.2  # per Money point, up to 3: room for a costly card without debt
DANGER_HALVING = 3.0  # an opponent this far behind the leader worries us half as much
KEEP_DISCOUNT = 0.5  # a card kept in hand is worth this share of its use now

Sums = tuple[int, int, int]  # raw (goth, sickness, money) sums of a Fate pile (R5)
EMPTY: Sums = (0, 0, 0)


def shift(deck: Deck, sums: Sums, card: int, sign: int = 1) -> Sums:
    """A pile's sums once `card` is placed on it (sign 1) or taken from it (-1), with the
    swoon (R7) that may follow."""
    goth, sickness, money = sums
    sickness += sign * deck.sickness[card]
    if sickness >= SWOON_AT:
        return EMPTY
    return (goth + sign * deck.goth[card], sickness, money + sign * deck.money[card])


def pile_value(sums: Sums) -> float:
    """What a Fate pile is worth to its owner.

    Goth matters most. At 20+ the owner wins at the end of their turn (a bonus), and from 14
    on every point counts double since one good turn reaches 20. Sickness near 5 risks a
    swoon, losing the whole pile: a growing share of the Goth is discounted. Debt is a mild
    penalty, and a little Money is a cushion against it.
    """
    goth, sickness, money = sums
    sick = max(0, sickness)  # R6
    if sick >= SWOON_AT:
        return 0.0  # R7: the pile is gone (callers apply the swoon first; kept for safety)
    value = float(goth)
    if goth >= WIN_GOTH:
        value += WIN_BONUS
    elif goth > NEAR_WIN_FROM:
        value += goth - NEAR_WIN_FROM
    value -= SWOON_RISK[sick] * max(goth, 0) + SICK_COST * sick
    value += -DEBT_PENALTY if money < 0 else MONEY_CUSHION * min(money, 3)
    return value


@dataclass(frozen=True, slots=True)
class Table:
    """The public position, from one seat's point of view, pre-scored."""

    deck: Deck
    me: int
    sums: tuple[Sums, ...]  # per seat
    values: tuple[float, ...]  # pile_value per seat
    stake: tuple[float, ...]  # how a change of a seat's value counts for us

    @classmethod
    def of(cls, deck: Deck, view: View) -> Table:
        assert view.seat is not None
        sums = tuple(
            (
                sum(deck.goth[c] for c in p.fate),
                sum(deck.sickness[c] for c in p.fate),  # raw: the view floors it (R6)
                sum(deck.money[c] for c in p.fate),
            )
            for p in view.players
        )
        values = tuple(pile_value(s) for s in sums)
        me = view.seat
        # The most dangerous opponent (the best pile, a winner-to-be at 20+) counts fully.
        lead = max((v for s, v in enumerate(values) if s != me), default=0.0)
        stake = tuple(
            1.0 if s == me else -(2.0 ** ((v - lead) / DANGER_HALVING))
            for s, v in enumerate(values)
        )
        return cls(deck, me, sums, values, stake)

    def gain(self, seat: int, card: int) -> float:
        """What placing `card` on `seat` is worth to us."""
        after = shift(self.deck, self.sums[seat], card)
        return self.stake[seat] * (pile_value(after) - self.values[seat])

    def usefulness(self, card: int) -> float:
        """A card in hand is as good as its best placement: on us, or on an opponent."""
        return max(self.gain(seat, card) for seat in range(len(self.sums)))


class BaselineHeuristicBot:
    kind = "baseline"

    # BotBase's constructor, inlined so the copy stands alone.
    def __init__(self, deck: Deck, rng: random.Random | None = None) -> None:
        self.deck = deck
        self.rng = rng or random.Random(0)

    def choose(self, view: View) -> Move:
        seat, choice = view.seat, view.legal
        assert seat is not None and choice is not None
        table = Table.of(self.deck, view)
        match choice:
            case LegalDiscardFate(cards):
                return DiscardFate(self.fate_discard(table, cards, view.hand or ()))
            case LegalDistribute(hand, recipients, count, each_gets_one):
                give = self.distribute(table, hand, recipients, count, each_gets_one)
                return Distribute(give)
            case LegalDraw(_, discard):
                card = self.draw(table, view, discard)
                return Draw("deck") if card is None else Draw("discard", card)
            case LegalDiscardHand(cards):
                return DiscardHand(min(cards, key=table.usefulness))
        raise AssertionError(f"unknown decision {choice!r}")

    def fate_discard(self, table: Table, cards: tuple[int, ...], hand: tuple[int, ...]) -> int:
        """R10: drop the card whose removal leaves our pile worth most (a negative card, a
        Sickness card when sick; never a cure whose loss would make us swoon). The pile is
        judged with the best card of our hand on top, since R11 comes next: a Sickness card
        matters less when we hold a cure, more when we must take a sick card ourselves."""
        must_take = len(hand) >= len(table.sums)  # R11: then one card must be ours

        def worth(card: int) -> float:
            pile = shift(self.deck, table.sums[table.me], card, -1)
            options = [pile_value(shift(self.deck, pile, h)) for h in hand]
            if not must_take:
                options.append(pile_value(pile))
            return max(options)

        return max(cards, key=worth)

    def distribute(
        self,
        table: Table,
        hand: tuple[int, ...],
        recipients: tuple[int, ...],
        count: int,
        each_gets_one: bool,
    ) -> tuple[tuple[int, int], ...]:
        """R11: the assignment with the best total gain, searched over every permutation
        (at most 5P5 = 120). Placements on different seats do not interact, so the gains
        are computed once per (seat, card)."""
        gain = {(s, c): table.gain(s, c) for s in recipients for c in hand}
        if each_gets_one:
            # A card left in hand keeps part of its value for the next turn.
            for c in hand:
                keep = KEEP_DISCOUNT * max(gain[s, c] for s in recipients)
                for s in recipients:
                    gain[s, c] -= keep
            options = (zip(recipients, cards, strict=True) for cards in permutations(hand, count))
        else:
            # A short hand places every card, each on a different seat.
            options = (zip(seats, hand, strict=True) for seats in permutations(recipients, count))
        return max(map(tuple, options), key=lambda give: sum(gain[pair] for pair in give))

    def draw(self, table: Table, view: View, discard: tuple[int, ...]) -> int | None:
        """R12: the best card of the discard pile if it beats an average unseen card (the
        catalogue minus every card we can see), else None for the draw pile."""
        if not discard:
            return None
        best = max(discard, key=table.usefulness)
        # An empty draw pile is the discard pile reshuffled (R14): a random card of it.
        unknown = self.unseen(view) if view.deck_count else set(discard)
        if not unknown or table.usefulness(best) > fmean(map(table.usefulness, unknown)):
            return best
        return None

    def unseen(self, view: View) -> set[int]:
        seen = {*(view.hand or ()), *view.discard}
        for p in view.players:
            seen.update(p.fate, p.known_hand)
        return set(range(len(self.deck))) - seen
