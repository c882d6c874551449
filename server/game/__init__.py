"""The pure rules engine of Gother Than Thou: no I/O, no asyncio, deterministic."""

from .cards import HAND_SIZE, Card, Deck, DeckError, default_deck, load_deck, parse_deck
from .events import Event
from .legal import (
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    legal,
    legal_to_wire,
)
from .moves import DiscardFate, DiscardHand, Distribute, Draw, Move, MoveError, move_from_wire
from .state import SWOON_AT, WIN_GOTH, Game, Phase
from .variants import Variants
from .view import REFEREE, SPECTATOR, GameView, PlayerView, Viewer, view

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
    "Event",
    "Game",
    "GameView",
    "Legal",
    "LegalDiscardFate",
    "LegalDiscardHand",
    "LegalDistribute",
    "LegalDraw",
    "Move",
    "MoveError",
    "Phase",
    "PlayerView",
    "Variants",
    "Viewer",
    "default_deck",
    "legal",
    "legal_to_wire",
    "load_deck",
    "move_from_wire",
    "parse_deck",
    "view",
]
