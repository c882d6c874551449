"""The searches a worker process runs (server/searches.py): what to think about in, a move,
a hint or a part of a review out, every part of them picklable. Each is thought from a
seat's View, the way any bot thinks, and knows how long it means to think."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from server.game import Deck, Move, Start, View

from .advise import HINT_THINK, Advice, advise
from .base import Trait
from .play_on import play_on
from .registry import BotKind, make_bot
from .review import CHECK_THINK, DECISION_THINK, Check, FinishedGame, Moment, check, judge

# seconds: a replay to the turn and one sampled world (bench/play_on.py: at most 9 ms for a
# whole 4-seat game of heuristic bots on a loaded machine), with room for longer games
PLAY_ON_TIME = 0.02


@dataclass(frozen=True)
class HintSearch:
    """The hint for `view.seat` (`advise`)."""

    view: View
    deck: Deck

    @property
    def think(self) -> float:
        return HINT_THINK

    def run(self) -> Advice:
        return advise(self.view, self.deck)


@dataclass(frozen=True)
class BotMove:
    """The move a bot that thinks long makes from `view`."""

    bot: BotKind
    view: View
    deck: Deck
    seed: int
    trait: Trait = "vengeful"

    @property
    def think(self) -> float:
        return HINT_THINK  # the one bot that thinks long is the search: a hint's budget

    def run(self) -> Move:
        bot = make_bot(self.bot, self.deck, random.Random(self.seed), trait=self.trait)
        return bot.choose(self.view)


@dataclass(frozen=True)
class ReviewPart:
    """Decisions `start` to `stop` (exclusive) of `seat` in a finished game, judged (a review
    is cut in parts short enough to queue like hints). The worker replays the game only to
    rebuild the seat's views; each decision is judged from its view alone. `hints`: the
    hints the seat was given, by the step they were for."""

    played: FinishedGame
    seat: int
    start: int
    stop: int
    hints: dict[int, Move] = field(default_factory=dict)

    @property
    def think(self) -> float:
        return (self.stop - self.start) * DECISION_THINK

    def run(self) -> tuple[int, list[Moment]]:
        """How many decisions the seat made in all, and the moments of this part."""
        decisions = self.played.decisions(self.seat)
        part = decisions[self.start : self.stop]
        return len(decisions), [
            judge(seen, self.played.deck, move, step, self.hints.get(step))
            for seen, move, step in part
        ]


@dataclass(frozen=True)
class ReviewCheck:
    """The longer look at one moment of a review (`review.check`): its two moves played
    out to the game's end from the view the seat had then."""

    played: FinishedGame
    seat: int
    moment: Moment

    @property
    def think(self) -> float:
        return CHECK_THINK

    def run(self) -> Check:
        seen, _ = self.played.decision(self.seat, self.moment.step)
        return check(seen, self.played.deck, self.moment)


@dataclass(frozen=True)
class PlayOnDeal:
    """The start of a game played on from `turn` of a finished game as `seat` knew it
    (`play_on`): the worker replays the game to that turn, and samples from the seat's view."""

    played: FinishedGame
    seat: int
    turn: int
    seed: int

    @property
    def think(self) -> float:
        return PLAY_ON_TIME

    def run(self) -> tuple[Start, int] | str:
        return play_on(self.played, self.seat, self.turn, self.seed)
