"""What happened, as typed values: the game's log. Redaction of the one secret an event
can carry (the card drawn blind from the deck) happens in `view`, nowhere else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class TurnBegan:
    seat: int
    round: int
    kind = "turn"


@dataclass(frozen=True, slots=True)
class FateDiscarded:
    seat: int
    card: int
    kind = "discard_fate"


@dataclass(frozen=True, slots=True)
class Placed:
    seat: int  # who placed it
    to: int
    card: int
    kind = "place"


@dataclass(frozen=True, slots=True)
class Swooned:
    seat: int
    cards: tuple[int, ...]
    kind = "swoon"


@dataclass(frozen=True, slots=True)
class Drew:
    seat: int
    source: Literal["deck", "discard"]
    card: int  # secret to all but `seat` when source == "deck"
    kind = "draw"


@dataclass(frozen=True, slots=True)
class HandDiscarded:
    seat: int
    card: int
    kind = "discard_hand"


@dataclass(frozen=True, slots=True)
class Reshuffled:
    count: int
    kind = "reshuffle"


@dataclass(frozen=True, slots=True)
class GameOver:
    winners: tuple[int, ...]
    reason: Literal["goth", "round_cap"]
    kind = "over"


Event = TurnBegan | FateDiscarded | Placed | Swooned | Drew | HandDiscarded | Reshuffled | GameOver
