"""Scenario helpers for the bot tests (imported as `from tests.bots.botkit import ...`).

Scenarios use a frozen copy of the original deck's values, card by card, so that tuning the
deck file does not quietly change what a scenario tests; cards are named by what they were.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from server.bots.heuristic import HeuristicBot
from server.game import Card, Deck, Distribute, Game, Move, Phase, Variants, view

# fmt: off
SCENARIO_VALUES = (
    # ids 0-6
    (3, 0, -2), (3, 0, -1), (2, 0, 0), (3, 1, -2), (3, 0, 0), (4, 0, -1), (3, 0, 0),
    # ids 7-13
    (3, 0, -1), (2, 0, 0), (2, 0, 0), (4, 0, -3), (2, 0, 0), (3, 0, -2), (2, 0, 0),
    # ids 14-20
    (3, 0, 0), (2, 0, 0), (2, 0, 0), (3, 0, -1), (3, 0, -2), (2, 0, 0), (1, 0, 0),
    # ids 21-27
    (2, 1, 0), (4, 0, -1), (2, 0, 0), (-2, 1, 0), (-3, 0, 1), (-3, 0, 1), (-1, 0, 0),
    # ids 28-34
    (-2, 0, 0), (-2, 0, 1), (-2, 0, -1), (-1, 0, -1), (-2, 0, 0), (-1, 0, 0), (1, 2, 0),
    # ids 35-41
    (1, 2, 0), (1, 1, 0), (0, 3, 0), (1, 2, 0), (0, 2, 0), (0, 2, 0), (1, 3, 0),
    # ids 42-48
    (1, 1, 0), (0, -1, 0), (0, -2, 0), (-1, -2, 0), (-1, -2, 0), (0, -2, -1), (-1, -1, 0),
    # ids 49-54
    (-1, 0, 2), (-1, 0, 3), (0, 0, 3), (0, 0, 2), (1, 0, 2), (-1, 0, 3),
)
# fmt: on
SCENARIO_DECK = Deck.of(
    "scenario", tuple(Card(i, f"card {i}", "", *v) for i, v in enumerate(SCENARIO_VALUES))
)

# The scenario cards, by what they do (goth, sickness, money).
CREPT, DEATHROCK = 5, 22  # (4, 0, -1)
RAVEN = 10  # (4, 0, -3)
MIXTAPE, PICNIC, NOVEL = 4, 6, 14  # (3, 0, 0)
BOOTS, ABSINTHE, DYE = 1, 7, 17  # (3, 0, -1)
FANGS, TRENCHCOAT = 12, 18  # (3, 0, -2)
LIPSTICK, POETRY, GLOVES, ANKH = 2, 8, 9, 11  # (2, 0, 0)
BROODING = 20  # (1, 0, 0)
KHAKI = 25  # (-3, 0, 1)
PASTEL = 28  # (-2, 0, 0)
SMILING = 27  # (-1, 0, 0)
STOMACH_BUG = 37  # (0, 3, 0)
PNEUMONIA = 41  # (1, 3, 0)
ANAEMIA = 35  # (1, 2, 0)
HANGOVER, PIE = 39, 40  # (0, 2, 0)
CHILL = 36  # (1, 1, 0)
NAP = 44  # (0, -2, 0): a cure
SOUP = 45  # (-1, -2, 0): a cure, but a negative Goth card
STUDENT_LOAN = 51  # (0, 0, 3)
S = SCENARIO_DECK.sickness


def bot(seed: int = 0, deck: Deck = SCENARIO_DECK) -> HeuristicBot:
    return HeuristicBot(deck, random.Random(seed))


def position(
    hands: Sequence[Sequence[int]],
    fates: Sequence[Sequence[int]],
    *,
    discard: Sequence[int] = (),
    phase: Phase = "distribute",
    turn: int = 0,
    known: Sequence[Iterable[int]] | None = None,
    round: int = 1,
    dealer: int = 0,
    variants: Variants | None = None,
) -> Game:
    """A game with these piles; every other card is in the draw pile. `known`: per seat,
    cards of its hand everyone saw it take from the discard pile."""
    used = {c for pile in (*hands, *fates, discard) for c in pile}
    rest = [c for c in range(len(SCENARIO_DECK)) if c not in used]
    return Game.from_position(
        SCENARIO_DECK,
        hands=hands,
        fates=fates,
        draw_pile=rest,
        discard=discard,
        phase=phase,
        turn=turn,
        known=known,
        round=round,
        dealer=dealer,
        variants=variants,
    )


def decide(game: Game, seat: int = 0) -> Move:
    move = bot().choose(view(game, seat))
    assert game.can(seat, move), move
    return move


def placements(move: Move) -> dict[int, int]:
    assert isinstance(move, Distribute)
    return dict(move.give)


def stomach_bug_in_plain_sight() -> Game:
    """Seat 0 sits at 15 Goth with Sickness 2; seat 1, next to play, took a Stomach Bug
    (+3) from the discard pile in plain sight. Seat 0 holds a +4 Goth card and a cure."""
    mine = [MIXTAPE, PICNIC, NOVEL, LIPSTICK, POETRY, BROODING, ANAEMIA]  # 15 goth, sick 2
    return position(
        hands=[[CREPT, NAP, SMILING, PASTEL, GLOVES], [STOMACH_BUG, ANKH], [CHILL], [FANGS]],
        fates=[mine, [DEATHROCK], [BOOTS], [DYE]],
        known=[[], [STOMACH_BUG], [], []],
    )
