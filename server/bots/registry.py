"""Bots by name, for `gother simulate`, `gother play --bots` and the server's seats.

A bot is named by its difficulty (easy, normal, hard) or by its kind (random, gentle,
heuristic, ismcts); `protocol.constants` is the one home of both lists. A name is made a
`BotKind` once, where it comes in (`kind_of`: a request, a stored table, the command line),
and only a kind makes a bot. Its trait (vengeful or steady: whom it hurts) is read the same
way (`trait_of`), and a table whose creator chose none gets its seat count's (`trait_for`).
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from protocol.constants import (
    BOT_NAMES,
    DEFAULT_BOT,
    DEFAULT_TRAITS,
    DIFFICULTIES,
    PLAYERS_WORD,
    TRAITS,
)
from server.game import Deck

from .base import Bot, Trait
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


def trait_of(name: str) -> Trait:
    """A trait's name as a `Trait`; ValueError for a name that is none."""
    for trait in get_args(Trait):
        if trait == name:
            return trait  # type: ignore[no-any-return]
    raise ValueError(f"unknown bot trait {name!r}; choose from {', '.join(TRAITS)}")


def trait_for(seats: int) -> Trait:
    """The trait a table of `seats` gets unless its creator chooses (protocol.constants)."""
    return trait_of(DEFAULT_TRAITS[seats])


def named(name: str, seats: int) -> tuple[BotKind, Trait]:
    """A bot as a run lists it: a name with a trait after a colon ("hard:steady"), or a
    name alone, which plays with the trait a table of `seats` gets by default."""
    kind, colon, trait = name.partition(":")
    return kind_of(kind), trait_of(trait) if colon else trait_for(seats)


def make_bot(
    kind: BotKind,
    deck: Deck,
    rng: random.Random | None = None,
    *,
    iterations: int | None = None,
    trait: Trait = "vengeful",
) -> Bot:
    """A bot of `kind` and `trait`. `iterations`: a searching bot's tree grows that many
    iterations a move instead of its budget (ITERATIONS): a weaker or stronger search, to
    measure."""
    if kind == "ismcts" and iterations is not None:
        return IsmctsBot(deck, rng, iterations=iterations, trait=trait)
    return KINDS[kind](deck, rng, trait=trait)
