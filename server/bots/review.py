"""A seat's decisions in a finished game, reviewed by the one judge (`ismcts.py`): at each,
the search's verdict from the view the seat had then (the very hint it would have been
given there, Principle 11), and what the move played gave up in the chance to win.

Each decision is judged from the View the seat had then, never from the Game: the search
samples its own worlds (`worlds.py`), so the advice is the same however the hidden cards lay,
and it is seeded from the position, so a review repeats exactly and agrees with the hints.

A decision's price is the search's gap between its advice and the move played, in points of
the chance to win, both moves played out in the same worlds (common random numbers), with
its noise. A moment is *told* (at most TOLD, the dearest first) only when

1. the gap clears its noise (CLAIM standard errors) and the seat could still win (the
   advice's chance at least STILL);
2. the move played was not the hint the seat was given there: a hint followed is never a
   mistake (issue 29 §3);
3. a longer look agrees: the two moves played out to the game's end in CHECKS worlds each,
   again with common random numbers, the advice ahead by more than CLAIM standard errors
   and still a chance to win. Only the CANDIDATES dearest moments get that look.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.view import SeatInfo
from server.game import (
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Game,
    Move,
    Played,
    Start,
    Variants,
    View,
    view,
)

from .advise import CLAIM, HINT_THINK, Words, advice_of, own_goth
from .ismcts import IsmctsBot, signature
from .verdict import gap

DECISION_THINK = HINT_THINK  # a decision costs what a hint costs: the same search
STILL = 0.02  # the chance to win below which a seat could no longer win either way
CANDIDATES = 5  # the dearest moments given a longer look
CHECKS = 100  # play-outs to the game's end a move, in that look
CHECK_THINK = 1.5  # seconds that look takes on a quiet core (bench/review_truth.py)
TOLD = 3  # moments told in a sentence


@dataclass(frozen=True, slots=True)
class Moment:
    """One decision of the seat: `step` is its place among the game's moves."""

    step: int
    round: int
    played: Move
    advised: Move
    win: float | None  # the advice's chance to win, by the search (None: no search needed)
    given_up: float  # points of the chance to win the move played gave up (0: alike)
    noise: float  # the standard error of `given_up`
    cost: float  # the Goth expected at the seat's next turn given up, by the same play-outs
    why: str  # the advice's reason: against the move played, or the hint's own
    hint: Move | None  # the hint the seat was given at this decision, if it asked for one
    followed_hint: bool  # the move played does what that hint said

    @property
    def measured(self) -> bool:
        """The move played gave up a chance the search can tell from its noise."""
        return self.given_up > CLAIM * self.noise and self.given_up > 0


@dataclass(frozen=True, slots=True)
class Check:
    """The longer look at a moment: the two moves played out to the game's end."""

    step: int
    given_up: float  # points, advice less move played
    noise: float
    win: float  # the advice's share of wins in those play-outs
    play_outs: int

    @property
    def confirmed(self) -> bool:
        return self.given_up > CLAIM * self.noise and self.win >= STILL


def judge(seen: View, deck: Deck, played: Move, step: int, hint: Move | None = None) -> Moment:
    """The verdict on the decision `seen.legal` and the price of `played`, from `seen` only."""
    bot = IsmctsBot(deck)
    verdict = bot.judge(seen, also=(played,))
    advised = verdict.move
    advice = verdict.advice
    followed = hint is not None and signature(deck, hint) == signature(deck, played)
    if signature(deck, advised) == signature(deck, played):  # the same, maybe by other cards
        why = advice_of(seen, deck, verdict).reason
        advised = played
        win = None if advice is None else advice.mean()
        return Moment(step, seen.round, played, advised, win, 0.0, 0.0, 0.0, why, hint, followed)
    if advice is None:  # no search was needed, yet another move was played: weigh the two
        advice, taken = bot.weigh(seen, [advised, played], range(bot.worlds))
    else:
        found = verdict.of(signature(deck, played))
        assert found is not None  # `also` weighed it
        taken = found
    price = gap(advice, taken)
    cost = gap(advice, taken, own_goth(verdict.seat)).mean
    why = Words(seen, deck).reason(advice, taken)
    return Moment(
        step,
        seen.round,
        played,
        advised,
        advice.mean(),
        100 * price.mean,
        100 * price.noise,
        cost,
        why,
        hint,
        followed,
    )


def candidates(moments: Sequence[Moment]) -> list[Moment]:
    """The moments that may be told, the dearest first: measured, with a chance to win
    left, and not a hint followed."""
    fit = [
        m
        for m in moments
        if m.measured and m.win is not None and m.win >= STILL and not m.followed_hint
    ]
    return sorted(fit, key=lambda m: (-m.given_up, m.step))[:CANDIDATES]


def check(seen: View, deck: Deck, moment: Moment) -> Check:
    """The longer look at `moment`, from `seen`, the view the seat had then."""
    bot = IsmctsBot(deck)
    advice, taken = bot.weigh(seen, [moment.advised, moment.played], range(CHECKS), to_end=True)
    price = gap(advice, taken)
    return Check(moment.step, 100 * price.mean, 100 * price.noise, advice.mean(), CHECKS)


def told(checks: Sequence[Check]) -> list[Check]:
    """The moments told, the dearest first: those the longer look confirmed."""
    sure = sorted((c for c in checks if c.confirmed), key=lambda c: (-c.given_up, c.step))
    return sure[:TOLD]


def summary(moments: Sequence[Moment]) -> str:
    """One line for the whole game: how much chance to win the seat gave up (where the
    search can tell it from its noise; never by following a hint), and where."""
    followed = sum(m.followed_hint for m in moments)
    verb = "was" if followed == 1 else "were"
    hinted = f" {followed} of your moves {verb} the hint's own advice." if followed else ""
    by_round: dict[int, float] = {}
    for m in moments:
        if m.measured and not m.followed_hint:
            by_round[m.round] = by_round.get(m.round, 0.0) + m.given_up
    lost = sum(by_round.values())
    if round(lost) < 1:
        return f"You gave up no chance to win the search could measure.{hinted}"
    worst = max(by_round, key=lambda r: (by_round[r], -r))
    return (
        f"You gave up about {lost:.0f} points of your chance to win, most of it in round "
        f"{worst}.{hinted}"
    )


def sentence(moment: Moment, check: Check, seat: int, deck: Deck, names: Sequence[str]) -> str:
    """One told moment of `seat`'s player, short enough for the ear: what they did, what
    the search would have done and the first thing its reason says of it, and what the
    longer look says it cost."""
    played, advised = moment.played, moment.advised
    first = moment.why.split("; ")[0]
    return (
        f"Round {moment.round}: you {done(played, seat, deck, names, advised)}; the search "
        f"would have {done(advised, seat, deck, names, played, PERFECT)} ({first}): about "
        f"{check.given_up:.0f} points more chance to win, in {check.play_outs} play-outs to "
        f"the end."
    )


# A move's verbs in the past tense ("you took …") and the perfect ("would have taken …").
PAST = {"deck": "drew blind", "draw": "took", "discard_fate": "dropped", "discard_hand": "let go"}
PERFECT = {**PAST, "deck": "drawn blind", "draw": "taken"}


def done(
    move: Move,
    seat: int,
    deck: Deck,
    names: Sequence[str],
    beside: Move | None = None,
    verbs: dict[str, str] = PAST,
) -> str:
    """`seat`'s move as its player made it, in `verbs`' tense: "took Velvet Cape" (PERFECT:
    "taken Velvet Cape", after "would have"); of a placement, the cards it placed otherwise
    than `beside`."""
    match move:
        case Distribute(give):
            return "placed " + placed(give, seat, deck, names, beside)
        case Draw("deck"):
            return verbs["deck"]
        case Draw(_, card) | DiscardFate(card) | DiscardHand(card):
            assert card is not None
            return f"{verbs[move.kind]} {deck.card_name(card)}"
    raise AssertionError(f"not a move: {move!r}")


def placed(
    give: tuple[tuple[int, int], ...],
    seat: int,
    deck: Deck,
    names: Sequence[str],
    beside: Move | None = None,
) -> str:
    """ "Stomach Bug on yourself, Nap on Vlad": the pairs not also in `beside`'s placement."""
    others = set(beside.give) if isinstance(beside, Distribute) else set()
    pairs = [pair for pair in give if pair not in others] or list(give)
    return ", ".join(
        f"{deck.card_name(card)} on {'yourself' if to == seat else names[to]}" for to, card in pairs
    )


@dataclass(frozen=True)
class FinishedGame:
    """A finished game as its record holds it, enough to replay it: the deck, the variants,
    the seed, the dealer, every move with its seat, and where it began if not at a deal."""

    deck: Deck
    variants: Variants
    players: tuple[str, ...]
    seed: int
    dealer: int
    moves: tuple[Played, ...]
    start: Start | None = None
    covered: frozenset[int] = frozenset()  # the steps a bot made in the place of a player

    def begin(self) -> Game:
        """The game as it began, before its first move."""
        return Game.new(
            self.deck, len(self.players), self.seed, self.variants, self.dealer, self.start
        )

    def decisions(self, seat: int) -> list[tuple[View, Move, int]]:
        """Every decision of `seat`'s player: the view it had (no log: a search does not
        read it), the move it made, and that move's place in the game. A move a bot made in
        the player's place (away, or out of time) is none of theirs."""
        game = self.begin()
        seats = tuple(
            SeatInfo(i, name, bot=False, connected=True, covered=False, rematch=False)
            for i, name in enumerate(self.players)
        )
        found = []
        for step, (mover, move) in enumerate(self.moves):
            if mover == seat and step not in self.covered:
                found.append((view(game, seat, log_size=0, seats=seats), move, step))
            game.apply(mover, move)
        return found

    def decision(self, seat: int, step: int) -> tuple[View, Move]:
        """The decision of `seat` at `step`: the view it had and the move it made."""
        return next((seen, move) for seen, move, at in self.decisions(seat) if at == step)
