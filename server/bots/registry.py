"""Bots by name, for `gother simulate`, `gother play --bots` and the server's seats.

A bot is named by its difficulty (easy, normal, hard) or by its kind (random, gentle,
heuristic, ismcts); `protocol.constants` is the one home of both lists. A name is made a
`BotKind` once, where it comes in (`kind_of`: a request, a stored table, the command line),
and only a kind makes a bot.
"""

from __future__ import annotations

import random
from typing import Literal

from protocol.constants import BOT_NAMES, DEFAULT_BOT, DIFFICULTIES, PLAYERS_WORD
from server.game import Deck

from .base import Bot
from .gentle import GentleBot
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .random_bot import RandomBot

BotKind = Literal["random", "gentle", "heuristic", "ismcts"]  # protocol.constants.BOT_KINDS
KINDS: dict[BotKind, type[RandomBot | GentleBot | HeuristicBot | IsmctsBot]] = {
    "random": RandomBot,
    "gentle": GentleBot,
    "heuristic": HeuristicBot,
    "ismcts": IsmctsBot,
}
# Every name a bot may be asked by, to the kind it stands for.
_BY_NAME: dict[str, BotKind] = {
    **{kind: kind for kind in KINDS},
    **{word: kind for kind in KINDS for word, named in DIFFICULTIES.items() if named == kind},
}


def kind_of(name: str) -> BotKind:
    """The kind a bot name stands for: a difficulty's kind, or the kind itself; ValueError
    for a name that stands for none."""
    kind = _BY_NAME.get(name)
    if kind is None:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
    return kind


DEFAULT_KIND = kind_of(DEFAULT_BOT)  # a table's bots, and a cover bot, unless chosen


def word(kind: BotKind) -> str:
    """How players call a kind: its difficulty ("hard"), or the kind itself ("random")."""
    return PLAYERS_WORD.get(kind, kind)


def make_bot(
    kind: BotKind, deck: Deck, rng: random.Random | None = None, *, iterations: int | None = None
) -> Bot:
    """A bot of `kind`. `iterations`: a searching bot's tree grows that many iterations a
    move instead of its budget (ITERATIONS): a weaker or stronger search, to measure."""
    if kind == "ismcts" and iterations is not None:
        return IsmctsBot(deck, rng, iterations=iterations)
    return KINDS[kind](deck, rng)
