"""Hints: the judge's verdict on a seat's decision, with a reason in the judge's own numbers.

`advise` answers from the seat's own view, like any bot (it sees nothing the player cannot):
the search (`ismcts.py`, the one judge of Principle 11) at its fixed budget, seeded from the
position, so the same position always gets the same hint. Its reason compares the advice
with the move the player is most likely to weigh against it (the heuristic's favourite, or
the search's runner-up when that is the advice), in the search's terms: the chance to win
and the Goth expected at the seat's next turn, e.g. "Nap takes you out of swoon reach; keeps
you 2 Goth clear of the pack; win chance 34% against 29% for placing Stomach Bug on you". It
always names what the move does to a standing (`Words.standing`: a swoon, debt, swoon reach,
the hand limit, or that they stay as they are), and it compares only where the gap clears
the search's noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.constants import NEAR_SWOON
from server.game import (
    HAND_SIZE,
    SWOON_AT,
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Move,
    View,
)

from .ismcts import IsmctsBot
from .verdict import Outcome, Verdict, Weighed, gap

HINT_THINK = 0.5  # seconds of CPU a hint takes on a quiet core (bench/advice.py): for queueing
CLAIM = 2.0  # standard errors a gap must clear before a sentence says one move does better
LIKELY = 0.5  # a swoon this likely by the seat's next turn is worth saying
STANDINGS = 2  # things a reason says of the standings, the most telling first


@dataclass(frozen=True, slots=True)
class Advice:
    """A hint: the move, its reason, and the search's numbers for it and for the move it
    was compared with (None where the decision needed no search)."""

    move: Move
    reason: str  # one line, for the player
    win: float | None = None  # the chance to win after `move`, as the search estimates it
    goth: float | None = None  # the Goth the seat may expect at its next turn after `move`
    versus: Move | None = None  # the move it is compared with in the reason
    versus_win: float | None = None
    versus_goth: float | None = None


def advise(view: View, deck: Deck, judge: IsmctsBot | None = None) -> Advice:
    """The hint for `view.seat`, whose decision `view.legal` is pending. `judge`: the search
    at another budget than its own (to measure, or to test quickly)."""
    return advice_of(view, deck, (judge or IsmctsBot(deck)).judge(view))


def advice_of(view: View, deck: Deck, verdict: Verdict) -> Advice:
    """The hint a verdict gives, with its reason."""
    words = Words(view, deck)
    best = verdict.advice
    if best is None:
        return Advice(verdict.move, words.unweighed(verdict.move))
    other = alternative(verdict)
    return Advice(
        verdict.move,
        words.reason(best, other),
        best.mean(),
        best.mean(own_goth(verdict.seat)),
        other.move,
        other.mean(),
        other.mean(own_goth(verdict.seat)),
    )


def alternative(verdict: Verdict) -> Weighed:
    """The move a player most likely weighs against the advice: the heuristic's favourite
    (the obvious move, one ply deep), or the search's runner-up when that is the advice."""
    advice = verdict.weighed[0]
    favourite = verdict.of(verdict.favourite)
    if favourite is not None and favourite.key != advice.key:
        return favourite
    return verdict.weighed[1]


def own_goth(seat: int) -> Callable[[Outcome], float]:
    """The measure of an outcome by the seat's own Goth."""
    return lambda outcome: float(outcome.goth[seat])


def percent(chance: float) -> str:
    return f"{100 * chance:.0f}%"


Sums = tuple[int, int, int]  # a Fate pile's Goth, Sickness (as summed: R6) and Money


class Words:
    """Phrases for one seat's decision, from its own view: who is who, what a move does
    to each standing, how two weighed moves compare."""

    def __init__(self, view: View, deck: Deck) -> None:
        me = view.seat
        assert me is not None
        self.view, self.deck, self.me = view, deck, me
        self.sums: list[Sums] = [
            (p.scores.goth, sum(deck.sickness[c] for c in p.fate), p.scores.money)
            for p in view.players
        ]
        others = [s for s in range(len(view.players)) if s != me]
        self.leader = max(others, key=lambda s: self.sums[s][0])

    def name(self, seat: int) -> str:
        if seat == self.me:
            return "you"
        named = self.view.players[seat].name or f"seat {seat + 1}"  # as players count them
        return f"{named}, the leader," if seat == self.leader else named

    def card(self, card: int) -> str:
        return self.deck.card_name(card)

    # -- the sentence ----------------------------------------------------------------------

    def reason(self, best: Weighed, other: Weighed) -> str:
        """Why `best` rather than `other`: what it does to a standing, where it leaves the
        seat's Goth, and how the two compare in the chance to win."""
        said = self.standing(best, other)
        said.append(self.goth(best))
        said.append(self.compared(best, other))
        return tidy("; ".join(said))

    def standing(self, best: Weighed, other: Weighed) -> list[str]:
        """What `best` does to a player's standing, at most two things: at once, else likely
        by the seat's next turn; else where the seat's standing stays. Never empty."""
        said = self.at_once(best.move)[:STANDINGS]
        leader, me = self.leader, self.me
        likely = best.share(lambda o: leader in o.swooned)
        if likely >= LIKELY and not any(s.endswith(f"swoons {self.name(leader)}") for s in said):
            said.append(f"{self.name(leader)} likely swoons before your turn ({percent(likely)})")
        for what, happens in (
            ("swoon chance", lambda o: float(me in o.swooned)),
            ("chance of debt", lambda o: float(o.money[me] < 0)),
        ):
            if gap(other, best, happens).clear(CLAIM):  # the advice makes it clearly less
                a, b = best.mean(happens), other.mean(happens)
                said.append(f"your {what} before your turn {percent(a)}, against {percent(b)}")
        if said:
            return said[:STANDINGS]
        sickness = max(0, self.sums[me][1])
        debt = "in debt" if self.sums[me][2] < 0 else "out of debt"
        reach = "in swoon reach" if sickness >= NEAR_SWOON else "out of swoon reach"
        return [f"you stay {debt} and {reach}"]

    def at_once(self, move: Move) -> list[str]:
        """What `move` does at once to the players' standings: a swoon, debt, swoon reach,
        the hand limit (R7, R9, R8); the seat's own first, then the leader's, then the
        others' swoons."""
        said: list[tuple[int, str]] = []
        me, leader = self.me, self.leader
        for seat, cause, before, after in self.effects(move):
            who = self.name(seat)
            rank = 0 if seat == me else 1 if seat == leader else 2
            if after[1] >= SWOON_AT:
                said.append((rank, f"{cause} swoons {who}"))
            elif before[2] >= 0 > after[2]:
                said.append((rank, f"{cause} puts {who} into debt"))
            elif before[2] < 0 <= after[2]:
                said.append((rank, f"{cause} takes {who} out of debt"))
            elif rank < 2:
                was, now = max(0, before[1]), max(0, after[1])
                if now >= NEAR_SWOON > was:
                    said.append((rank, f"{cause} puts {who} in swoon reach (Sickness {now})"))
                elif was >= NEAR_SWOON > now:
                    said.append((rank, f"{cause} takes {who} out of swoon reach"))
                elif seat == me and now != was:
                    verb = "lowers" if now > was else "raises"
                    said.append((rank, f"{cause} {verb} your hand limit to {HAND_SIZE - now}"))
        return [text for _, text in sorted(said, key=lambda item: item[0])]

    def effects(self, move: Move) -> list[tuple[int, str, Sums, Sums]]:
        """The piles `move` changes at once: (seat, what changes it, before, after)."""
        deck = self.deck

        def plus(sums: Sums, card: int, sign: int) -> Sums:
            g, s, m = sums
            return (
                g + sign * deck.goth[card],
                s + sign * deck.sickness[card],
                m + sign * deck.money[card],
            )

        match move:
            case Distribute(give):
                return [
                    (to, self.card(c), self.sums[to], plus(self.sums[to], c, 1)) for to, c in give
                ]
            case DiscardFate(card):
                me = self.me
                return [
                    (
                        me,
                        f"dropping {self.card(card)}",
                        self.sums[me],
                        plus(self.sums[me], card, -1),
                    )
                ]
        return []

    def goth(self, best: Weighed) -> str:
        """Where `best` leaves the seat's Goth against the best other pile, expected at its
        next turn."""
        me = self.me
        lead = round(
            best.mean(lambda o: o.goth[me] - max(g for s, g in enumerate(o.goth) if s != me))
        )
        if lead >= 1:
            now = self.sums[me][0] - max(g for s, (g, _, _) in enumerate(self.sums) if s != me)
            verb = "keeps" if now >= 1 else "puts"
            return f"{verb} you {lead} Goth clear of the pack"
        if lead <= -1:
            return f"leaves you {-lead} Goth behind the leader"
        return "keeps you level with the leader"

    def compared(self, best: Weighed, other: Weighed) -> str:
        """The chance to win after each, and whether the gap clears the noise."""
        them = self.move_words(other.move, best.move)
        a, b = best.mean(), other.mean()
        if gap(best, other).clear(CLAIM):
            return f"win chance {percent(a)} against {percent(b)} for {them}"
        return f"{them} does about as well (win chance {percent(a)} against {percent(b)})"

    def move_words(self, move: Move, beside: Move | None = None) -> str:
        """`move` in a few words, as a gerund: "drawing blind", "placing Stomach Bug on you";
        a placement says only the cards it places otherwise than `beside`."""
        match move:
            case Distribute(give):
                others = set(beside.give) if isinstance(beside, Distribute) else set()
                pairs = sorted((p for p in give if p not in others), key=lambda p: p[0] != self.me)
                pairs = pairs or list(give)
                return "placing " + " and ".join(
                    f"{self.card(c)} on {'you' if to == self.me else self.plain_name(to)}"
                    for to, c in pairs[:2]
                )
            case Draw("deck"):
                return "drawing blind"
            case Draw(_, card) if card is not None:
                return f"taking {self.card(card)}"
            case DiscardFate(card):
                return f"dropping {self.card(card)}"
            case DiscardHand(card):
                return f"letting {self.card(card)} go"
        raise AssertionError(f"not a move: {move!r}")

    def plain_name(self, seat: int) -> str:
        return self.view.players[seat].name or f"seat {seat + 1}"

    def unweighed(self, move: Move) -> str:
        """The reason for a move the search had no choice to weigh."""
        me = self.view.players[self.me]
        match move:
            case Draw("deck") if me.in_debt:
                return "in debt, you may only draw blind"
            case Draw("deck") if not self.view.discard:
                return "the discard pile is empty: draw blind"
        said = self.at_once(move)[:1]
        return tidy("; ".join([*said, "no other move is worth weighing"]))


def tidy(text: str) -> str:
    """A phrase that ends in a name's closing comma ("Vlad, the leader,") ends without it."""
    return text.replace(",;", ";").replace(", (", " (").rstrip(",")
