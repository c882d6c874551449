"""The one position evaluator every bot uses: what each Fate pile is worth to its owner.

Values are in Goth Points. A pile is worth its Goth, more as it nears 20 (R15), less the
cost of Sickness (R8: a smaller hand), plus a banked cure (R6: a negative Sickness sum
absorbs the Sickness still to come), less debt (R9: no drawing from the discard pile), all
discounted by the chance that the pile swoons (R7) before its owner's next turn.

That chance is the one-ply look ahead: each player who places before the owner's next turn
can put one card on the pile (R11), the most sickening one it holds if the owner is worth
hurting. What a player holds is read from the cards it is known to hold (`known_hand`) and,
for the rest of its hand, from the cards the evaluating seat cannot see.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from math import prod

from protocol.constants import SWOON_AT, WIN_GOTH

from .position import Position

NEAR_WIN_FROM = 14  # above this each Goth Point counts double: one good turn from 20
WIN_SOON = 30.0  # R15: 20+ now, so a win at the end of the owner's next turn unless stopped
WIN_NOW = 100.0  # 20+ on the active player's pile once it has placed: its turn ends in a win
SICK_COST = 0.4  # per point of effective Sickness: a card less in hand (R8)
BANKED = 2.0  # per point of a banked cure, up to BANK_CAP: a swoon averted later (R6)
BANK_CAP = 8
DEBT = 1.5  # R9/R12: in debt, no card may come from the discard pile
CUSHION = 0.2  # per point of Money, up to 3: room for a costly card without debt
INTENT_HALVING = 3.0  # a pile this many Goth behind the best target is hit half as often
DANGER_HALVING = 3.0  # an opponent this far behind the leader worries us half as much

UNTOUCHED: tuple[float, ...] = (1.0, 0.0)  # the Sickness tail of a pile nobody can reach
Holding = tuple[int, int] | None  # a hand, as its threat needs it (see `threat`)


def pile_value(
    goth: int, sickness: int, money: int, swoon: float = 0.0, now: bool = False
) -> float:
    """A Fate pile with these sums, to its owner, with `swoon` the chance it swoons before
    the owner's next turn. `now`: the owner is the active player and has placed, so 20+
    wins at the end of this turn (R15)."""
    # Plain comparisons rather than max/min: this runs for every card on every pile in
    # every rollout step of the search.
    if sickness >= SWOON_AT:
        return 0.0  # R7: the pile is gone
    value = float(goth) + (goth - NEAR_WIN_FROM if goth > NEAR_WIN_FROM else 0)
    if goth >= WIN_GOTH:
        if now:
            return WIN_NOW + goth
        value += WIN_SOON
    if sickness > 0:
        value -= SICK_COST * sickness
    else:
        value += BANKED * (-sickness if -sickness < BANK_CAP else BANK_CAP)
    value += -DEBT if money < 0 else CUSHION * (money if money < 3 else 3)
    # A swoon empties the pile (worth 0): only a pile worth keeping risks anything.
    return value * (1.0 - swoon) if value > 0 else value


class Evaluator:
    """Every pile of a position valued from one seat's knowledge, and what a card placed on
    a pile would change for that seat.

    `after_placing`: value the piles as they will stand once the active player has placed
    (its own decisions compare the outcomes of its placement), rather than as they are.
    """

    def __init__(self, position: Position, after_placing: bool | None = None) -> None:
        self.position = position
        placed = position.placed if after_placing is None else after_placing
        players = position.players
        deck = position.deck
        self.sick = deck.sickness
        first = (position.turn + 1) % players if placed else position.turn
        self.order = tuple((first + i) % players for i in range(players))  # who places next
        self.now = position.turn if placed else None
        # below[x]: the unseen cards with less than x Sickness, for x = 0 .. one past the most
        sick = self.sick.__getitem__
        unseen = Counter(map(sick, position.unseen))  # counted in C: this runs every step
        highest = max([0, *unseen, *(sick(c) for hand in position.known for c in hand)])
        at = [0] * (highest + 1)
        for sickness, cards in unseen.items():
            at[sickness if sickness > 0 else 0] += cards
        below = [0]
        for count in at:
            below.append(below[-1] + count)
        goth, order, counted = position.goth, self.order, tuple(below)
        # per player, the richest pile it could hit (R11: never its own) and what it holds
        first_goth, second_goth = sorted(goth, reverse=True)[:2]
        sources = [
            (second_goth if goth[source] == first_goth else first_goth, self._holding(source))
            for source in range(players)
        ]
        # tail[seat][n]: the chance that at least n Sickness reaches seat's pile before its
        # owner's next turn, from those placing before then
        placers = tuple(sources[s] for s in order)
        # The first to place has nobody placing before its turn; a pile worth nothing is
        # never hit (see _intent).
        tail = [UNTOUCHED] * players
        for k in range(1, players):
            seat = order[k]
            if goth[seat] > 0:
                tail[seat] = sickness_tail(goth[seat], counted, placers[:k])
        self.tail = tuple(tail)
        self.values = tuple(
            self.pile(seat, position.goth[seat], position.sickness[seat], position.money[seat])
            for seat in range(players)
        )
        self._useful: dict[tuple[int, int, int], float] = {}
        me = position.me
        lead = max((v for s, v in enumerate(self.values) if s != me), default=0.0)
        # How a change of a seat's value counts for us: the leader in full, others less.
        self.stake = tuple(
            1.0 if s == me else -(2.0 ** (min(0.0, v - lead) / DANGER_HALVING))
            for s, v in enumerate(self.values)
        )

    # -- the look ahead -------------------------------------------------------------------

    def _holding(self, seat: int) -> Holding:
        """What `seat` holds, as its threat needs it (see `threat`)."""
        position = self.position
        if position.hand_count[seat] == 0:
            return None
        known = position.known[seat]
        top = max(map(self.sick.__getitem__, known), default=0)
        return position.hand_count[seat] - len(known), top

    # -- values ------------------------------------------------------------------------

    def swoon(self, seat: int, sickness: int) -> float:
        """The chance that a pile of `seat` at this Sickness sum swoons before its turn."""
        need = SWOON_AT - sickness
        tail = self.tail[seat]
        if need <= 0:
            return 1.0
        return tail[need] if need < len(tail) else 0.0

    def pile(self, seat: int, goth: int, sickness: int, money: int) -> float:
        """What a pile of `seat` with these sums is worth to its owner."""
        return pile_value(goth, sickness, money, self.swoon(seat, sickness), seat == self.now)

    def after(self, seat: int, card: int) -> float:
        """The value of `seat`'s pile once `card` is placed on it, the swoon it may cause
        included (R7)."""
        position, deck = self.position, self.position.deck
        sickness = position.sickness[seat] + deck.sickness[card]
        need = SWOON_AT - sickness  # the swoon lookup inlined: this is the hot path
        if need <= 0:
            return 0.0
        tail = self.tail[seat]
        return pile_value(
            position.goth[seat] + deck.goth[card],
            sickness,
            position.money[seat] + deck.money[card],
            tail[need] if need < len(tail) else 0.0,
            seat == self.now,
        )

    def gain(self, seat: int, card: int) -> float:
        """What placing `card` on `seat` is worth to the evaluating seat."""
        return self.stake[seat] * (self.after(seat, card) - self.values[seat])

    def usefulness(self, card: int) -> float:
        """A card in hand is as good as its best placement: on us, or on an opponent."""
        deck = self.position.deck
        kind = (deck.goth[card], deck.sickness[card], deck.money[card])
        useful = self._useful.get(kind)
        if useful is None:  # many cards share their values: each kind is valued once
            gain = self.gain
            useful = gain(0, card)
            for seat in range(1, self.position.players):
                other = gain(seat, card)
                if other > useful:
                    useful = other
            self._useful[kind] = useful
        return useful

    def mean_usefulness(self, cards: tuple[int, ...]) -> float:
        """What a card drawn at random from `cards` is worth on average."""
        return sum(map(self.usefulness, cards)) / len(cards)


@lru_cache(maxsize=4096)
def threat(holding: Holding, below: tuple[int, ...]) -> tuple[float, ...]:
    """The chance distribution of the highest Sickness among the cards of a hand: `holding`
    is None for an empty hand, else its count of hidden cards (a random draw from the unseen
    ones) and the highest Sickness of its known cards. `below[x]` counts the unseen cards
    with less than x Sickness."""
    if holding is None:
        return (1.0,)
    hidden, top = holding
    count = below[-1]  # every unseen card is below the cap
    at_least = [1.0]  # at_least[x]: chance that the highest is x or more
    for x in range(1, len(below) - 1):
        if top >= x:
            at_least.append(1.0)
            continue
        clean = below[x]
        # hypergeometric: all the hidden cards drawn from those below x
        miss = prod((clean - i) / (count - i) for i in range(hidden)) if hidden <= clean else 0
        at_least.append(1.0 - miss)
    at_least.append(0.0)
    return tuple(at_least[x] - at_least[x + 1] for x in range(len(at_least) - 1))


@lru_cache(maxsize=8192)
def sickness_tail(
    goth: int, below: tuple[int, ...], sources: tuple[tuple[int, Holding], ...]
) -> tuple[float, ...]:
    """P(at least n Sickness placed on a pile of this Goth before its owner's next turn),
    n = 0, 1, ...: each player placing before then (`sources`, each as the richest pile it
    can hit and what it holds) gives it its most sickening card with a chance that grows
    with how worth hurting the pile is, from that player's side. Cached, on small integers
    (cheap to hash): most piles of a rollout step stood the same a step earlier."""
    total = [1.0]  # distribution of the Sickness placed
    for richest, holding in sources:
        intent = _intent(goth, richest)
        if intent <= 0:
            continue
        hit = [p * intent for p in threat(holding, below)]
        hit[0] += 1.0 - intent
        if total == [1.0]:  # nothing placed yet: the hit is the distribution
            total = hit
            continue
        mixed = [0.0] * (len(total) + len(hit) - 1)
        for a, pa in enumerate(total):
            if pa:
                for b, pb in enumerate(hit, a):
                    mixed[b] += pa * pb
        total = mixed
    tail = [0.0] * (len(total) + 1)
    for n in range(len(total) - 1, -1, -1):
        tail[n] = tail[n + 1] + total[n]
    return tuple(tail)


def _intent(goth: int, best: int) -> float:
    """How likely a player is to spend its worst card on a pile of this Goth: always on
    `best`, the richest pile it can hit, half as often for each INTENT_HALVING Goth less;
    never on a pile worth nothing (a swoon would be a gift)."""
    if goth <= 0:
        return 0.0
    return float(2.0 ** ((goth - best) / INTENT_HALVING))
