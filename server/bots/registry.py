"""Bot kinds by name, for `gother simulate`, `gother play --bots` and the server's seats."""

from __future__ import annotations

import random

from server.game import Deck

from .base import Bot
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .random_bot import RandomBot

BOT_KINDS: dict[str, type] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "ismcts": IsmctsBot,
}


def make_bot(kind: str, deck: Deck, rng: random.Random | None = None) -> Bot:
    try:
        cls = BOT_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; choose from {', '.join(BOT_KINDS)}") from None
    return cls(deck, rng)
