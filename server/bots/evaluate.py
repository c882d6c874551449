"""The one position evaluator every bot uses: what each Fate pile is worth to its owner.

Values are in Goth Points. A pile is worth its Goth, more as it nears 20 (R15), less the
cost of Sickness (R8: a smaller hand), plus a banked cure (R6: a negative Sickness sum
absorbs the Sickness still to come), less debt (R9: no drawing from the discard pile), all
discounted by the chance that the pile swoons (R7) before its owner's next turn.

That chance is the one-ply look ahead: each player who places before the owner's next turn
can put one card on the pile (R11), the most sickening one it holds if the owner is worth
hurting. What a player holds is read from the cards it is known to hold (`known_hand`) and,
for the rest of its hand, from the cards the evaluating seat cannot see.

Near the round cap (H1) the evaluator counts the turns left: only the players still to
place before the game ends can hurt a pile, and what Sickness, a banked cure and Money do
for later turns counts for less as those turns run out, until at the cap a pile's Goth is
all that counts (the highest wins).

Whom a change hurts is the evaluating bot's trait: `vengeful`, a change to an opponent's
pile counts the more the nearer that opponent is to the leader; `steady`, every opponent
counts alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import prod
from operator import itemgetter
from typing import NamedTuple

from protocol.constants import SWOON_AT, WIN_GOTH
from server.game import Deck

from .base import Trait
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
DANGER_HALVING = 3.0  # an opponent this far behind the leader worries a vengeful bot half as much
FUTURE_TURNS = 3  # H1: a pile's Sickness, cure and Money count in full for this many turns left

UNTOUCHED: tuple[float, ...] = (1.0, 0.0)  # the Sickness tail of a pile nobody can reach
Holding = tuple[int, int] | None  # a hand, as its threat needs it (see `threat`)


class DeckTables(NamedTuple):
    """What the evaluator reads of a deck's cards besides their scores, built once a deck."""

    kinds: tuple[int, ...]  # per card, a number for its values: one kind is worth the same
    floored: tuple[int, ...]  # per card, its Sickness floored at 0 (a cure threatens none)


_TABLES: dict[int, tuple[Deck, DeckTables]] = {}  # by id(deck), the deck kept alive


def deck_tables(deck: Deck) -> DeckTables:
    """The deck's tables (by identity: a deck's hash reads all its cards)."""
    entry = _TABLES.get(id(deck))
    if entry is None or entry[0] is not deck:
        if len(_TABLES) >= 64:  # custom decks come and go with their tables
            _TABLES.clear()
        numbers: dict[tuple[int, int, int], int] = {}
        kinds = tuple(
            numbers.setdefault(values, len(numbers))
            for values in zip(deck.goth, deck.sickness, deck.money, strict=True)
        )
        floored = tuple(s if s > 0 else 0 for s in deck.sickness)
        entry = _TABLES[id(deck)] = (deck, DeckTables(kinds, floored))
    return entry[1]


def pile_value(
    goth: int,
    sickness: int,
    money: int,
    swoon: float = 0.0,
    now: bool = False,
    future: float = 1.0,
) -> float:
    """A Fate pile with these sums, to its owner, with `swoon` the chance it swoons before
    the owner's next turn. `now`: the owner is the active player and has placed, so 20+
    wins at the end of this turn (R15). `future`: the share of its worth to later turns
    that still counts (H1: 0 at the cap, where only Goth counts)."""
    # Plain comparisons rather than max/min: this runs for every card on every pile in
    # every rollout step of the search.
    if sickness >= SWOON_AT:
        return 0.0  # R7: the pile is gone
    value = float(goth) + (goth - NEAR_WIN_FROM if goth > NEAR_WIN_FROM else 0)
    if goth >= WIN_GOTH:
        if now:
            return WIN_NOW + goth
        value += WIN_SOON
    goth_value = value
    if sickness > 0:
        value -= SICK_COST * sickness
    else:
        value += BANKED * (-sickness if -sickness < BANK_CAP else BANK_CAP)
    value += -DEBT if money < 0 else CUSHION * (money if money < 3 else 3)
    if future < 1.0:  # H1: the hand, cure and draws serve turns the cap may not leave
        value = goth_value + future * (value - goth_value)
    # A swoon empties the pile (worth 0): only a pile worth keeping risks anything.
    return value * (1.0 - swoon) if value > 0 else value


class Evaluator:
    """Every pile of a position valued from one seat's knowledge, and what a card placed on
    a pile would change for that seat.

    `after_placing`: value the piles as they will stand once the active player has placed
    (its own decisions compare the outcomes of its placement), rather than as they are.
    `trait`: whom the evaluating seat hurts (see `stake`).
    """

    def __init__(
        self, position: Position, after_placing: bool | None = None, trait: Trait = "vengeful"
    ) -> None:
        # Plain loops and comparisons rather than max(), sorted() or comprehensions: on
        # CPython 3.11 each call of those costs as much as a dozen steps of a loop, and the
        # search builds an evaluator at every step of every rollout.
        self.position = position
        placed = position.placed if after_placing is None else after_placing
        goth, sickness, money = position.goth, position.sickness, position.money
        players = len(goth)
        sick = position.deck.sickness
        tables = deck_tables(position.deck)
        self.kinds = tables.kinds
        first = (position.turn + 1) % players if placed else position.turn
        order = self.order = (*range(first, players), *range(first))  # who places next
        now = self.now = position.turn if placed else None
        # below[x]: the unseen cards with less than x Sickness, for x = 0 .. one past the most
        unseen = bytes(_picked(tables.floored, position.unseen))  # counted in C
        highest = max(unseen, default=0)
        known, count = position.known, position.hand_count
        tops = []  # per seat, the highest Sickness among the cards it is known to hold
        for cards in known:
            top = sick[cards[0]] if cards else 0
            for card in cards:
                if sick[card] > top:
                    top = sick[card]
            tops.append(top)
            if top > highest:
                highest = top
        below = [0]
        for x in range(highest + 1):
            below.append(below[-1] + unseen.count(x))
        counted = tuple(below)
        # the two richest piles: a player hits the richest but its own (R11)
        first_goth, second_goth = (goth[0], goth[1]) if goth[0] >= goth[1] else (goth[1], goth[0])
        for pile in goth[2:]:
            if pile > first_goth:
                first_goth, second_goth = pile, first_goth
            elif pile > second_goth:
                second_goth = pile
        # tail[seat][n]: the chance that at least n Sickness reaches seat's pile before its
        # owner's next turn, from those placing before then: each of them as the richest pile
        # it could hit and what it holds, as its threat needs it (see `threat`)
        # The first to place has nobody placing before its turn; a pile worth nothing is
        # never hit (see _intent).
        # H1: only the placements still to come before the cap can reach a pile.
        left = position.turns_left
        placing = players if left is None else left + (0 if placed else 1)
        tail = [UNTOUCHED] * players
        placers: list[tuple[int, Holding]] = []
        for k in range(1, players):
            source = order[k - 1]
            if k <= placing:
                placers.append(
                    (
                        second_goth if goth[source] == first_goth else first_goth,
                        (count[source] - len(known[source]), tops[source])
                        if count[source]
                        else None,
                    )
                )
            seat = order[k]
            if goth[seat] > 0:
                tail[seat] = sickness_tail(goth[seat], counted, tuple(placers))
        self.tail = tuple(tail)
        # H1: per seat, the share of a pile's worth to later turns that the turns left keep
        future = [1.0] * players
        if left is not None and placing < FUTURE_TURNS * players:
            for k, seat in enumerate(order):
                turns = (placing - k + players - 1) // players if placing > k else 0
                if turns < FUTURE_TURNS:
                    future[seat] = turns / FUTURE_TURNS
        self.future = tuple(future)
        values = []
        for seat in range(players):
            need = SWOON_AT - sickness[seat]  # the swoon lookup inlined, as in `pile`
            swoon = 1.0 if need <= 0 else tail[seat][need] if need < len(tail[seat]) else 0.0
            values.append(
                pile_value(
                    goth[seat], sickness[seat], money[seat], swoon, seat == now, future[seat]
                )
            )
        self.values = tuple(values)
        self._useful: dict[int, float] = {}  # usefulness by kind
        me = position.me
        lead = values[1] if me == 0 else values[0]
        for seat in range(players):
            if seat != me and values[seat] > lead:
                lead = values[seat]
        # How a change of a seat's value counts for us: a vengeful bot counts the leader in
        # full and others less; a steady one every opponent alike (four vengeful opponents at
        # five seats hold the leader back round after round: docs/balance.md "Five seats").
        stake = []
        for seat in range(players):
            if seat == me:
                stake.append(1.0)
            elif trait == "steady" or values[seat] >= lead:
                stake.append(-1.0)
            else:
                stake.append(-(2.0 ** ((values[seat] - lead) / DANGER_HALVING)))
        self.stake = tuple(stake)

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
        need = SWOON_AT - sickness  # the swoon lookup inlined: every pile of every step
        future = self.future[seat]
        if need <= 0:
            return pile_value(goth, sickness, money, 1.0, seat == self.now, future)
        tail = self.tail[seat]
        swoon = tail[need] if need < len(tail) else 0.0
        return pile_value(goth, sickness, money, swoon, seat == self.now, future)

    def after(self, seat: int, card: int) -> float:
        """The value of `seat`'s pile once `card` is placed on it, the swoon it may cause
        included (R7)."""
        return self.afters(seat, (card,))[0]

    def afters(self, seat: int, cards: Sequence[int]) -> list[float]:
        """`after` for each of `cards` on one pile: the hot path of every bot's decision,
        with the pile's sums and swoon chances read once."""
        position, deck = self.position, self.position.deck
        goth, sick, money = position.goth[seat], position.sickness[seat], position.money[seat]
        tail, now, last = self.tail[seat], seat == self.now, len(self.tail[seat])
        future = self.future[seat]
        card_goth, card_sick, card_money = deck.goth, deck.sickness, deck.money
        values = []
        for card in cards:
            sickness = sick + card_sick[card]
            need = SWOON_AT - sickness  # the swoon lookup inlined
            values.append(
                0.0
                if need <= 0
                else pile_value(
                    goth + card_goth[card],
                    sickness,
                    money + card_money[card],
                    tail[need] if need < last else 0.0,
                    now,
                    future,
                )
            )
        return values

    def gain(self, seat: int, card: int) -> float:
        """What placing `card` on `seat` is worth to the evaluating seat."""
        return self.gains(seat, (card,))[0]

    def gains(self, seat: int, cards: Sequence[int]) -> list[float]:
        """`gain` for each of `cards` on one pile."""
        stake, value = self.stake[seat], self.values[seat]
        return [stake * (after - value) for after in self.afters(seat, cards)]

    def usefulness(self, card: int) -> float:
        """A card in hand is as good as its best placement: on us, or on an opponent."""
        return self.usefulnesses((card,))[0]

    def usefulnesses(self, cards: Sequence[int]) -> list[float]:
        """`usefulness` for each of `cards`, the kinds not valued yet valued together."""
        known, kinds = self._useful, self.kinds
        missing = {kinds[c]: c for c in cards if kinds[c] not in known}  # a card a kind
        if missing:
            self._value_kinds(list(missing.values()))
        return [known[kinds[c]] for c in cards]

    def mean_usefulness(self, cards: tuple[int, ...]) -> float:
        """What a card drawn at random from `cards` is worth on average."""
        return sum(self.usefulnesses(cards)) / len(cards)  # in order: the same sum

    def _value_kinds(self, cards: Sequence[int]) -> None:
        """The usefulness of `cards`, each kept for its kind: many cards share their values,
        so each kind is valued once."""
        useful = self.gains(0, cards)
        for seat in range(1, self.position.players):  # the first best, as max() keeps it
            for i, gain in enumerate(self.gains(seat, cards)):
                if gain > useful[i]:
                    useful[i] = gain
        self._useful.update(zip(map(self.kinds.__getitem__, cards), useful, strict=True))


def _picked(table: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    """`table`'s entries for `cards`, in one C call for two or more."""
    return itemgetter(*cards)(table) if len(cards) > 1 else tuple(map(table.__getitem__, cards))


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
    placed = False
    for richest, holding in sources:
        intent = _intent(goth, richest)
        if intent <= 0:
            continue
        hit = [p * intent for p in threat(holding, below)]
        hit[0] += 1.0 - intent
        if not placed:  # nothing placed yet: the hit is the distribution
            total, placed = hit, True
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
