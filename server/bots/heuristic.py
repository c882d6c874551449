"""`heuristic` (difficulty *normal*): the evaluator's best move, one ply deep.

It sees only its `View`. Every decision is scored with the evaluator (`evaluate.py`): a
move is worth what it does to each pile, our own counted for us and every opponent's against
us, weighted by how dangerous that opponent is; a pile's value already looks one ply ahead,
at what the players placing before its owner's next turn are likely to do to it. Equal
moves are chosen between with the seeded RNG, so the bot is reproducible from its seed and
still not predictable to a human.

`scored_moves` is also what the search (`ismcts.py`) plays in its rollouts and widens its
candidates from, and what the easy bot softens.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import TypeVar

from server.game import (
    SWOON_AT,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    View,
)

from .base import BotBase
from .evaluate import Evaluator
from .position import Position

KEEP_DISCOUNT = 0.5  # a card kept in hand is worth this share of its best use now
TIE = 1e-9  # scores closer than this are equal: the RNG chooses

T = TypeVar("T")
Give = tuple[tuple[int, int], ...]
Scored = list[tuple[float, Move]]


class HeuristicBot(BotBase):
    kind = "heuristic"

    def choose(self, view: View) -> Move:
        assert view.legal is not None
        position = Position.of_view(view, self.deck)
        return self.best(scored_moves(Evaluator(position, after_placing=True), view.legal))

    def best(self, scored: Sequence[tuple[float, T]]) -> T:
        """The best option; between equals the seeded RNG decides."""
        top = max(s for s, _ in scored)
        tied = [o for s, o in scored if s >= top - TIE]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)


def scored_moves(evaluator: Evaluator, legal: Legal) -> Scored:
    """Every move the decision allows (at most 120 placements), each with its score for the
    evaluating seat."""
    position = evaluator.position
    seat = position.me
    match legal:
        case LegalDiscardFate(cards):
            return [(fate_worth(evaluator, c), DiscardFate(seat, c)) for c in cards]
        case LegalDistribute():
            return [(score, Distribute(seat, give)) for score, give in placements(evaluator, legal)]
        case LegalDraw(deck, discard):
            scored: Scored = [(evaluator.usefulness(c), Draw(seat, "discard", c)) for c in discard]
            blind = blind_draw(position)
            if deck:
                # R12: a blind draw is worth an average card of what it may bring
                worth = evaluator.mean_usefulness(blind) if blind else 0.0
                scored.append((worth, Draw(seat, "deck")))
            return scored
        case LegalDiscardHand(cards):
            # R13: the least useful card goes
            return [(-evaluator.usefulness(c), DiscardHand(seat, c)) for c in cards]
    raise AssertionError(f"unknown decision {legal!r}")


def placements(evaluator: Evaluator, legal: LegalDistribute) -> list[tuple[float, Give]]:
    """R11: every legal placement with its score, in a fixed order. Placements on different
    seats do not interact, so each (seat, card) gain is computed once; a card kept in hand
    (a hand larger than the table) keeps part of its value for the next turn."""
    hand, recipients, count = legal.hand, legal.recipients, legal.count
    gain = [[evaluator.gain(s, c) for c in hand] for s in recipients]  # by recipient, card
    pick = list.__getitem__
    if legal.each_gets_one:
        keep = [KEEP_DISCOUNT * max(row[i] for row in gain) for i in range(len(hand))]
        net = [[g - k for g, k in zip(row, keep, strict=True)] for row in gain]
        total = sum(keep)
        return [
            (
                total + sum(map(pick, net, cards)),
                tuple(zip(recipients, map(hand.__getitem__, cards), strict=True)),
            )
            for cards in permutations(range(len(hand)), count)
        ]
    # A short hand places every card, each on a different seat.
    by_card = [[row[i] for row in gain] for i in range(len(hand))]  # by card, recipient
    return [
        (
            sum(map(pick, by_card, seats)),
            tuple(sorted(zip(map(recipients.__getitem__, seats), hand, strict=True))),
        )
        for seats in permutations(range(len(recipients)), count)
    ]


def fate_worth(evaluator: Evaluator, card: int) -> float:
    """R10: our pile's value once `card` leaves it and we place the best card of our hand on
    it (R11 comes next: one card must be ours when the hand covers the table)."""
    position = evaluator.position
    me, deck = position.me, position.deck
    goth = position.goth[me] - deck.goth[card]
    sickness = position.sickness[me] - deck.sickness[card]
    money = position.money[me] - deck.money[card]
    if sickness >= SWOON_AT:
        return 0.0  # R7: taking a cure off swoons us, whatever we place next
    options = [
        evaluator.pile(me, goth + deck.goth[h], sickness + deck.sickness[h], money + deck.money[h])
        for h in position.hand
    ]
    if len(position.hand) < position.players:
        options.append(evaluator.pile(me, goth, sickness, money))
    return max(options)


def blind_draw(position: Position) -> tuple[int, ...]:
    """The cards a blind draw may bring: the unseen ones, or only those of the last
    reshuffle once there was one; an empty draw pile is the discard pile reshuffled (R14)."""
    if not position.deck_count:
        return position.discard
    if position.pool is None:
        return position.unseen
    return tuple(c for c in position.unseen if c in position.pool)
