"""Bots by name, for `gother simulate`, `gother play --bots` and the server's seats.

A bot is named by its difficulty (easy, normal, hard) or by its kind (random, gentle,
heuristic, ismcts); `protocol.constants` is the one home of both lists.
"""

from __future__ import annotations

import random

from protocol.constants import BOT_NAMES, DIFFICULTIES
from server.game import Deck

from .base import Bot
from .gentle import GentleBot
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .random_bot import RandomBot

KINDS: dict[str, type[RandomBot | GentleBot | HeuristicBot | IsmctsBot]] = {
    "random": RandomBot,
    "gentle": GentleBot,
    "heuristic": HeuristicBot,
    "ismcts": IsmctsBot,
}


def kind_of(name: str) -> str:
    """The kind a bot name stands for: a difficulty's kind, or the kind itself."""
    kind = DIFFICULTIES.get(name, name)
    if kind not in KINDS:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
    return kind


def make_bot(
    name: str, deck: Deck, rng: random.Random | None = None, *, iterations: int | None = None
) -> Bot:
    """The bot `name` stands for. `iterations`: a searching bot runs exactly that many
    iterations a move instead of thinking for a time, so a run repeats from its seed."""
    kind = kind_of(name)
    if kind == "ismcts" and iterations is not None:
        return IsmctsBot(deck, rng, iterations=iterations, think_time=None)
    return KINDS[kind](deck, rng)
