"""Play on from here (issue 22 §3): a new game from a turn of a finished one, as one seat
knew it then.

The seat's hand, every Fate pile, the discard pile, the cards everyone saw go into a hand,
whose turn it is and what the last reshuffle made public stay as that seat saw them. The
cards it could not see (the other hands, the draw pile and its order) are dealt again from
a seed of the new game's own, consistently with the view (`worlds.determinize`, the search's
sampler): only the seat's view at that turn reaches the sampling, so the new game cannot
learn the real hidden cards.
"""

from __future__ import annotations

import random

from protocol.constants import SEED_BITS
from server.game import Deck, Game, Start, View, view

from .review import FinishedGame
from .worlds import determinize


def turn_start(played: FinishedGame, turn: int) -> Game | int:
    """The game where turn `turn` (from 1) begins: the deal (or the start) begins turn 1,
    and a turn ends when the move passes to the next seat (as a replay counts turns). When
    the game has fewer turns: how many it has."""
    game = played.begin()
    turns, last = 0, None
    for index in range(len(played.moves) + 1):
        if index:
            game.apply(*played.moves[index - 1])
        if (game.round, game.turn) != last:
            turns, last = turns + 1, (game.round, game.turn)
            if turns == turn:
                return game
    return turns


def start_from_view(seen: View, deck: Deck, rng: random.Random) -> Start:
    """A position agreeing with everything `seen` shows; what it hides is dealt by `rng`."""
    return determinize(seen, deck, rng).position()


def play_on(played: FinishedGame, seat: int, turn: int, seed: int) -> tuple[Start, int] | str:
    """The start of a game played on from `turn` as `seat` knew it, and the new game's own
    seed, both drawn from `seed`; or why there is none (a sentence)."""
    found = turn_start(played, turn)
    if isinstance(found, int):
        return f"the game has turns 1-{found}, not {turn}"
    if found.over:
        return f"turn {turn} is the end of the game: there is nothing to play on"
    rng = random.Random(seed)
    start = start_from_view(view(found, seat, log_size=0), played.deck, rng)
    return start, rng.getrandbits(SEED_BITS)
