"""Where a game begins when it is not dealt from its seed: a position (Principle 3).

A played-on game (issue 22 §3) starts from a position sampled from one seat's knowledge at a
turn of a finished game. It is stored as this value beside the game's seed (JSON of its
fields, read back by `from_json`), and its moves replay from it exactly as a dealt game's
replay from the deal: the game is then (deck, variants, seed, start, ordered moves). Pure
data, no rules: the engine's `Game.new` sets it up, and a game's record carries it
(protocol/record.py), so it is the wire's as much as the engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

Step = Literal["discard_fate", "distribute", "draw"]  # a game that is over is not played on
PHASES = get_args(Step)


@dataclass(frozen=True)
class Start:
    """Every pile (hands and Fate piles bottom first, the draw pile drawn from its end), the
    cards everyone knows are in each hand, whose turn, who dealt, and what R14 made public."""

    hands: tuple[tuple[int, ...], ...]
    fates: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    turn: int
    dealer: int
    phase: Step
    round: int
    draw_pool: tuple[int, ...] | None = None
    pool_draws: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return len(self.hands)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Start:
        """The stored start; ValueError naming what is wrong (the table is then quarantined).
        Whether its cards make up the deck is the engine's check, as it sets the game up."""
        if not isinstance(data, Mapping):
            raise ValueError("its start is not a map")
        players = _piles(data, "hands")
        seats = range(len(players))
        fates, known = _piles(data, "fates"), _piles(data, "known")
        if len(fates) != len(players) or len(known) != len(players):
            raise ValueError("its start has hands, Fate piles and known cards of other seats")
        turn, dealer, round_ = (_number(data, key) for key in ("turn", "dealer", "round"))
        if turn not in seats or dealer not in seats or round_ < 1:
            raise ValueError(f"its start's turn {turn}, dealer {dealer} or round {round_}")
        phase = data.get("phase")
        if phase not in PHASES:
            raise ValueError(f"its start's phase {phase!r} is none a game is played from")
        pool = data.get("draw_pool")
        draws = _cards(data, "pool_draws")
        if pool is not None and len(draws) != len(players):
            raise ValueError("its start's blind draws are not one a seat")
        return cls(
            hands=players,
            fates=fates,
            draw_pile=_cards(data, "draw_pile"),
            discard=_cards(data, "discard"),
            known=known,
            turn=turn,
            dealer=dealer,
            phase=cast(Step, phase),
            round=round_,
            draw_pool=None if pool is None else _cards(data, "draw_pool"),
            pool_draws=draws if pool is not None else (),
        )


def _number(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise ValueError(f"its start's {key} is not a whole number")
    return value


def _cards(data: Mapping[str, Any], key: str) -> tuple[int, ...]:
    value = data.get(key)
    if not isinstance(value, list) or any(type(c) is not int for c in value):
        raise ValueError(f"its start's {key} is not a list of cards")
    return tuple(value)


def _piles(data: Mapping[str, Any], key: str) -> tuple[tuple[int, ...], ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(pile, list) for pile in value):
        raise ValueError(f"its start's {key} is not a list of piles")
    return tuple(_cards({key: pile}, key) for pile in value)
