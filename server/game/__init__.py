"""The pure rules engine of Gother Than Thou: no I/O, no asyncio, deterministic.

Its moves, events, legal choices and views are the protocol's types (`protocol.moves`,
`protocol.view`): what the engine records is what the wire carries.
"""

from protocol.constants import HAND_SIZE, SWOON_AT, WIN_GOTH
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.start import Start
from protocol.view import (
    Card,
    Drew,
    Event,
    FateDiscarded,
    GameOver,
    HandDiscarded,
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Placed,
    Player,
    Reshuffled,
    Swooned,
    TurnBegan,
    Variants,
    View,
)

from .cards import Deck, DeckError, default_deck, default_deck_text, load_deck, parse_deck
from .legal import legal
from .moves import MoveError, Played
from .state import Game, Phase, dealer_for
from .view import REFEREE, SPECTATOR, Viewer, story, view

__all__ = [
    "HAND_SIZE",
    "REFEREE",
    "SPECTATOR",
    "SWOON_AT",
    "WIN_GOTH",
    "Card",
    "Deck",
    "DeckError",
    "DiscardFate",
    "DiscardHand",
    "Distribute",
    "Draw",
    "Drew",
    "Event",
    "FateDiscarded",
    "Game",
    "GameOver",
    "HandDiscarded",
    "Legal",
    "LegalDiscardFate",
    "LegalDiscardHand",
    "LegalDistribute",
    "LegalDraw",
    "Move",
    "MoveError",
    "Phase",
    "Placed",
    "Played",
    "Player",
    "Reshuffled",
    "Start",
    "Swooned",
    "TurnBegan",
    "Variants",
    "View",
    "Viewer",
    "dealer_for",
    "default_deck",
    "default_deck_text",
    "legal",
    "load_deck",
    "parse_deck",
    "story",
    "view",
]
