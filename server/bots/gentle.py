"""`gentle` (difficulty *easy*): the heuristic's judgement, softened.

It scores every move as the heuristic does, then picks one at random with a chance that
falls off with how much worse than the best it is (a softmax over the scores at
TEMPERATURE Goth Points): it mostly plays sensibly, sometimes gives a card away that a
careful player would keep, and never plays the same position the same way every time.
"""

from __future__ import annotations

import math

from server.game import Move, View

from .base import BotBase
from .evaluate import Evaluator
from .heuristic import scored_moves
from .position import Position

TEMPERATURE = 1.5  # Goth Points: a move this much worse than the best is e times rarer


class GentleBot(BotBase):
    kind = "gentle"

    def choose(self, view: View) -> Move:
        assert view.legal is not None
        position = Position.of_view(view, self.deck)
        evaluator = Evaluator(position, after_placing=True, trait=self.trait)
        scored = scored_moves(evaluator, view.legal)
        top = max(score for score, _ in scored)
        weights = [math.exp((score - top) / TEMPERATURE) for score, _ in scored]
        return self.rng.choices([move for _, move in scored], weights)[0]
