"""`heuristic` (difficulty *normal*): the evaluator's best move, one ply deep.

It sees only its `View`. Every decision is scored with the evaluator (`evaluate.py`): a
move is worth what it does to each pile, our own counted for us and every opponent's against
us, weighted by how dangerous that opponent is (a vengeful bot) or alike (a steady one); a
pile's value already looks one ply ahead, at what the players placing before its owner's
next turn are likely to do to it. Equal moves are chosen between with the seeded RNG, so
the bot is reproducible from its seed and still not predictable to a human.

`scored_moves` is also what the search (`ismcts.py`) plays in its rollouts and widens its
candidates from, and what the easy bot softens.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import permutations
from math import inf
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
from .evaluate import Evaluator, pile_value
from .position import Position

KEEP_DISCOUNT = 0.5  # a card kept in hand is worth this share of its best use now
TIE = 1e-9  # scores closer than this are equal: the RNG chooses

T = TypeVar("T")
Give = tuple[tuple[int, int], ...]
Scored = list[tuple[float, Move]]
Order = tuple[int, ...]  # of a placement: a card for each recipient, or a recipient for each card
Level = tuple[tuple[int, int], ...]  # per order begun, its beginning's sum and its next entry


class HeuristicBot(BotBase):
    kind = "heuristic"

    def choose(self, view: View) -> Move:
        assert view.legal is not None
        position = Position.of_view(view, self.deck)
        evaluator = Evaluator(position, after_placing=True, trait=self.trait)
        return self.best(scored_moves(evaluator, view.legal))

    def best(self, scored: Sequence[tuple[float, T]]) -> T:
        """The best option; between equals the seeded RNG decides."""
        top = max(s for s, _ in scored)
        tied = [o for s, o in scored if s >= top - TIE]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)


def scored_moves(evaluator: Evaluator, legal: Legal) -> Scored:
    """Every move the decision allows (at most 120 placements), each with its score for the
    evaluating seat."""
    position = evaluator.position
    match legal:
        case LegalDiscardFate(cards):
            kinds, by_kind = evaluator.kinds, {}  # a Fate pile holds many cards of a kind
            for card in cards:
                if kinds[card] not in by_kind:
                    by_kind[kinds[card]] = fate_worth(evaluator, card)
            return [(by_kind[kinds[c]], DiscardFate(c)) for c in cards]
        case LegalDistribute():
            return [(score, Distribute(give)) for score, give in placements(evaluator, legal)]
        case LegalDraw(deck, discard):
            useful = zip(evaluator.usefulnesses(discard), discard, strict=True)
            scored: Scored = [(u, Draw("discard", c)) for u, c in useful]
            blind = blind_draw(position)
            if deck:
                # R12: a blind draw is worth an average card of what it may bring
                worth = evaluator.mean_usefulness(blind) if blind else 0.0
                scored.append((worth, Draw("deck")))
            return scored
        case LegalDiscardHand(cards):
            # R13: the least useful card goes
            dropped = zip(evaluator.usefulnesses(cards), cards, strict=True)
            return [(-u, DiscardHand(c)) for u, c in dropped]
    raise AssertionError(f"unknown decision {legal!r}")


def placements(evaluator: Evaluator, legal: LegalDistribute) -> list[tuple[float, Give]]:
    """R11: every legal placement with its score, in a fixed order."""
    scores, orders = placement_scores(evaluator, legal)
    return [(score, placement(legal, order)) for score, order in zip(scores, orders, strict=True)]


def placement_scores(
    evaluator: Evaluator, legal: LegalDistribute
) -> tuple[list[float], tuple[Order, ...]]:
    """Every legal placement's score, in `placements`' order, with the order that names it
    (`placement` builds it: a search's rollout builds only the one it plays). Placements on
    different seats do not interact, so each (seat, card) gain is computed once; a card kept
    in hand (a hand larger than the table) keeps part of its value for the next turn."""
    hand, recipients, count = legal.hand, legal.recipients, legal.count
    gain = [evaluator.gains(s, hand) for s in recipients]  # by recipient, card
    if legal.each_gets_one:
        keep = [KEEP_DISCOUNT * max(column) for column in zip(*gain, strict=True)]
        net = [g - k for row in gain for g, k in zip(row, keep, strict=True)]
        total = sum(keep)
        orders, levels = _orders(len(hand), count)  # a card for each recipient
        return _sums(net, levels, total), orders
    # A short hand places every card, each on a different seat.
    by_card = [row[i] for i in range(len(hand)) for row in gain]
    orders, levels = _orders(len(recipients), count)  # a recipient for each card
    return _sums(by_card, levels), orders


def placement(legal: LegalDistribute, order: Order) -> Give:
    """The placement an order of `placement_scores` names."""
    hand, recipients = legal.hand, legal.recipients
    if legal.each_gets_one:
        return tuple(zip(recipients, map(hand.__getitem__, order), strict=True))
    return tuple(sorted(zip(map(recipients.__getitem__, order), hand, strict=True)))


@cache
def _orders(options: int, rows: int) -> tuple[tuple[Order, ...], tuple[Level, ...]]:
    """The orders of `rows` distinct options out of `options`, and the levels that sum
    their entries in a (row, option) table flattened row by row (see `_sums`). Built once
    for the game: the search scores placements at every step of every rollout."""
    orders = tuple(permutations(range(options), rows))
    levels = []
    starts: dict[Order, int] = {(): 0}  # each shorter order's place in the level before
    for row in range(rows):
        begun = list(permutations(range(options), row + 1))  # in the orders' order
        levels.append(tuple((starts[order[:-1]], row * options + order[-1]) for order in begun))
        starts = {order: i for i, order in enumerate(begun)}
    return orders, tuple(levels)


def _sums(table: list[float], levels: tuple[Level, ...], plus: float | None = None) -> list[float]:
    """Each order's entries in `table` summed left to right from 0, as sum() adds them (and
    `plus` added to that sum): level k adds the k-th entry to the sums of the orders' first
    k - 1, so orders that begin alike share the additions of their beginning (120 orders of
    5 cost 325)."""
    *beginnings, last = levels
    sums: list[float] = [0]  # sum()'s start: 0 + x is x, and -0.0 becomes 0.0 as there
    for level in beginnings:
        sums = [sums[start] + table[cell] for start, cell in level]
    if plus is None:
        return [sums[start] + table[cell] for start, cell in last]
    return [plus + (sums[start] + table[cell]) for start, cell in last]


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
    # the best of the hand's cards on the pile, the pile's lookups as in Evaluator.afters
    tail, now, last = evaluator.tail[me], me == evaluator.now, len(evaluator.tail[me])
    future = evaluator.future[me]
    hand = position.hand
    # placing nothing is an option only for a short hand
    best = evaluator.pile(me, goth, sickness, money) if len(hand) < position.players else -inf
    for held in hand:
        placed = sickness + deck.sickness[held]
        need = SWOON_AT - placed
        if need <= 0:
            value = 0.0  # R7
        else:
            swoon = tail[need] if need < last else 0.0
            value = pile_value(
                goth + deck.goth[held], placed, money + deck.money[held], swoon, now, future
            )
        if value > best:
            best = value
    return best


def blind_draw(position: Position) -> tuple[int, ...]:
    """The cards a blind draw may bring: the unseen ones, or only those of the last
    reshuffle once there was one; an empty draw pile is the discard pile reshuffled (R14)."""
    if not position.deck_count:
        return position.discard
    if position.pool is None:
        return position.unseen
    return tuple(c for c in position.unseen if c in position.pool)
