"""A seat's decisions in a finished game, reviewed: what the hard bot's search would have done
from that seat's view at each one, and what the player's choice cost by the evaluator.

Each decision is judged from the View the seat had then, never from the Game: the search
samples its own worlds (`worlds.py`), so the advice is the same however the hidden cards lay.
The search runs a fixed number of iterations from a seed that only public facts decide (the
decision's place in the game), so a review repeats exactly and its cost is bounded.

A choice's cost is in Goth-equivalents: the evaluator's score of the search's move minus that
of the player's move (`scored_moves`, from the player's view). It may be negative: the
search weighs futures the one-ply evaluator does not see.
"""

from __future__ import annotations

import random
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

from .advise import reason
from .evaluate import Evaluator
from .heuristic import scored_moves
from .ismcts import IsmctsBot, signature
from .position import Position

ITERATIONS = 20  # of the search per decision: ~40 ms each on an idle core (bench/review.py)
DECISION_TIME = 0.05  # seconds a decision is expected to take, to queue it like a hint
COSTLIEST = 3  # moments told in a sentence


@dataclass(frozen=True, slots=True)
class Moment:
    """One decision of the seat: `step` is its place among the game's moves."""

    step: int
    round: int
    played: Move
    advised: Move
    cost: float  # Goth-equivalents the played move gave up, by the evaluator
    why: str  # what the advised move does, in one line (advise.reason)


def judge(seen: View, deck: Deck, played: Move, step: int) -> Moment:
    """The advice for the decision `seen.legal` and the cost of `played`, from `seen` only."""
    bot = IsmctsBot(deck, random.Random(step), iterations=ITERATIONS, think_time=None)
    advised = bot.choose(seen)
    evaluator = Evaluator(Position.of_view(seen, deck), after_placing=True)
    assert seen.legal is not None
    worth = {signature(deck, move): score for score, move in scored_moves(evaluator, seen.legal)}
    cost = worth[signature(deck, advised)] - worth[signature(deck, played)]
    if signature(deck, advised) == signature(deck, played):
        cost = 0.0
    return Moment(step, seen.round, played, advised, cost, reason(seen, deck, advised))


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


def costliest(moments: Sequence[Moment], count: int = COSTLIEST) -> list[Moment]:
    """The moments that cost most, the dearest first: only those that cost at least the
    0.1 Goth their sentence can say (a sentence ending "0.0 Goth better" tells nothing, and
    the summary's total, rounded alike, would read 0.0 beside it)."""
    dear = sorted((m for m in moments if round(m.cost, 1) > 0), key=lambda m: (-m.cost, m.step))
    return dear[:count]


def sentence(moment: Moment, seat: int, deck: Deck, names: Sequence[str]) -> str:
    """One costly moment of `seat`'s player: what they did, what the search would have done."""
    return (
        f"Round {moment.round}: you {done(moment.played, seat, deck, names)}; the search would"
        f" have {done(moment.advised, seat, deck, names)} ({moment.why}),"
        f" {moment.cost:.1f} Goth better."
    )


def done(move: Move, seat: int, deck: Deck, names: Sequence[str]) -> str:
    """`seat`'s move in the past tense, as its player made it."""
    match move:
        case Distribute(give):
            parts = [
                f"{deck.card_name(card)} to {'yourself' if to == seat else names[to]}"
                for to, card in give
            ]
            return "placed " + ", ".join(parts)
        case Draw("deck"):
            return "drawn blind"
        case Draw(_, card) | DiscardFate(card) | DiscardHand(card):
            assert card is not None
            verb = {"draw": "taken", "discard_fate": "dropped", "discard_hand": "let go"}
            return f"{verb[move.kind]} {deck.card_name(card)}"
    raise AssertionError(f"not a move: {move!r}")
