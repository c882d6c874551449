"""Shared helpers for the engine tests (imported as `from enginekit import ...`).

Small decks are written as TOML and parsed with `parse_deck`, so each test shows the values
it relies on. Unless a test says otherwise a card is FILLER: Money +1 only (it never puts
anyone in debt, never makes anyone sick and never scores a Goth Point).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.game import (
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Game,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    Played,
    legal,
    parse_deck,
)

FILLER = (0, 0, 1)  # (goth, sickness, money)


def deck_toml(special: Mapping[int, tuple[int, int, int]] | None = None, size: int = 15) -> str:
    """The TOML text of a `size`-card deck: card i is `special[i]` or FILLER."""
    special = special or {}
    lines = ['name = "Test deck"']
    for card in range(size):
        goth, sickness, money = special.get(card, FILLER)
        lines += [
            "",
            "[[card]]",
            f"id = {card}",
            f'name = "Card {card}"',
            'flavour = "A test card."',
            f"goth = {goth}",
            f"sickness = {sickness}",
            f"money = {money}",
        ]
    return "\n".join(lines) + "\n"


def make_deck(special: Mapping[int, tuple[int, int, int]] | None = None, size: int = 15) -> Deck:
    return parse_deck(deck_toml(special, size), "test.toml")


def position(
    deck: Deck,
    hands: Sequence[Sequence[int]],
    fates: Sequence[Sequence[int]] | None = None,
    draw_pile: Sequence[int] = (),
    discard: Sequence[int] = (),
    **kwargs: Any,
) -> Game:
    """`Game.from_position` where every card not named goes to the BOTTOM of the draw pile
    in ascending order, below `draw_pile` (whose last item is the top card)."""
    fates = fates if fates is not None else [[] for _ in hands]
    named = {c for pile in (*hands, *fates, draw_pile, discard) for c in pile}
    rest = [c for c in range(len(deck)) if c not in named]
    return Game.from_position(
        deck,
        hands=hands,
        fates=fates,
        draw_pile=[*rest, *draw_pile],
        discard=discard,
        **kwargs,
    )


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a move could change, as plain values."""
    return {
        "hands": [list(h) for h in game.hands],
        "fates": [list(f) for f in game.fates],
        "known": [sorted(k) for k in game.known],
        "draw_pile": list(game.draw_pile),
        "discard": list(game.discard),
        "goth": list(game.goth),
        "sickness_sum": list(game.sickness_sum),
        "money": list(game.money),
        "turn": game.turn,
        "round": game.round,
        "phase": game.phase,
        "winners": game.winners,
        "moves": list(game.moves),
        "events": list(game.events),
        "end_reason": getattr(game, "end_reason", None),
        "rng": game.rng.getstate(),
    }


def all_cards(game: Game) -> list[int]:
    piles: Iterable[Sequence[int]] = (*game.hands, *game.fates, game.draw_pile, game.discard)
    return sorted(c for pile in piles for c in pile)


def random_move(game: Game, rng: random.Random) -> Played:
    """A uniformly chosen legal move of the seat the game is waiting for, with that seat."""
    seat = game.to_act()
    assert seat is not None, "the game is over"
    choice = legal(game, seat)
    assert choice is not None, f"seat {seat} is to act but has no legal choice"
    match choice:
        case LegalDiscardFate(cards):
            return Played(seat, DiscardFate(rng.choice(cards)))
        case LegalDistribute(hand, recipients, count, _each):
            cards = rng.sample(hand, count)
            seats = rng.sample(recipients, count)
            return Played(seat, Distribute(tuple(zip(seats, cards, strict=True))))
        case LegalDraw(deck, discard):
            options: list[Move] = [Draw("discard", c) for c in discard]
            if deck:
                options.append(Draw("deck"))
            return Played(seat, rng.choice(options))
        case LegalDiscardHand(cards):
            return Played(seat, DiscardHand(rng.choice(cards)))
    raise AssertionError(f"unknown choice {choice!r}")


def play_random(game: Game, rng: random.Random, max_moves: int) -> list[Played]:
    """Play random legal moves until the game is over or `max_moves` were made."""
    made = []
    while not game.over and len(made) < max_moves:
        played = random_move(game, rng)
        game.apply(*played)
        made.append(played)
    return made
