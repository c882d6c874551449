"""Moves typed as words made into the protocol's moves: a card named by its number in a
listing or by the start of its name, a seat by a player's name (or `me`), and a placement
composed in parts.

Everything goes through the client's `Plan`, which offers only what `legal` lists and builds
the exact move: a card `legal` does not offer, a seat that cannot receive, a card given
twice, each is a `Problem` with one line saying why, and nothing is sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.narrator import names_of
from gother_tui.core.plans import Plan
from protocol.moves import Move
from protocol.view import View

ME = frozenset({"me", "myself", "self"})


class Problem(ValueError):
    """Why a typed move cannot be played: one line for the player."""


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _one_of(what: str, text: str, found: Sequence[str]) -> None:
    if len(found) > 1:
        shown = " or ".join(found[:4]) + (" or another" if len(found) > 4 else "")
        raise Problem(f"{text!r} could be {shown}: say more of the {what}.")


def find_card(
    text: str, cards: Sequence[int], catalogue: Catalogue, numbered: Sequence[int] = ()
) -> int:
    """The card of `cards` that `text` names: by its number in `numbered` (a listing the
    player saw), or by its name or the start of it, any case."""
    wanted = _words(text)
    if not wanted:
        raise Problem("Which card? Give its number or its name.")
    if wanted.isdigit():
        index = int(wanted) - 1
        if not 0 <= index < len(numbered):
            raise Problem(f"There is no card {wanted}: the numbers go from 1 to {len(numbered)}.")
        card = numbered[index]
        if card not in cards:
            raise Problem(f"{catalogue.name(card)} cannot be chosen now.")
        return card
    exact = [c for c in cards if _words(catalogue.name(c)) == wanted]
    starts = exact or [c for c in cards if _words(catalogue.name(c)).startswith(wanted)]
    _one_of("name", text, [catalogue.name(c) for c in starts])
    if not starts:
        choices = ", ".join(catalogue.name(c) for c in cards) or "none"
        raise Problem(f"No card {text!r} can be chosen now (the choices: {choices}).")
    return starts[0]


def find_seat(text: str, view: View, seats: Sequence[int]) -> int:
    """The seat of `seats` that `text` names: a name or its start, `me`, or a seat number."""
    wanted = _words(text)
    names = names_of(view.players)
    if wanted in ME and view.seat is not None:
        seat = view.seat
    elif (number := re.fullmatch(r"(?:seat )?(\d+)", wanted)) is not None:
        seat = int(number.group(1)) - 1
    else:
        exact = [s for s in seats if _words(names[s]) == wanted]
        starts = exact or [s for s in seats if _words(names[s]).startswith(wanted)]
        _one_of("player's name", text, [names[s] for s in starts])
        if not starts:
            everyone = ", ".join(names[s] for s in seats)
            raise Problem(f"No player {text!r} can be given a card (the players: {everyone}).")
        seat = starts[0]
    if seat not in seats:
        raise Problem(f"{names.get(seat, f'Seat {seat + 1}')} cannot be given a card.")
    return seat


def placing(plan: Plan, view: View, text: str, catalogue: Catalogue) -> Plan:
    """`plan` with the cards of "3 to vlad, Velvet Cape to me" placed: a new Plan, or a
    Problem (the old plan unchanged)."""
    parts = [p.strip() for p in re.split(r",|;| and ", text) if p.strip()]
    if not parts:
        raise Problem("Give what to whom? For example: give 1 to me, 2 to Vlad.")
    hand = view.hand or ()
    given: dict[int, int] = {}  # card -> seat, this command's own
    for part in parts:
        card_text, to, seat_text = part.rpartition(" to ")
        if not to:
            raise Problem(f"{part!r}: say CARD to NAME, for example 1 to me.")
        card = find_card(card_text, plan.choices, catalogue, hand)
        seat = find_seat(seat_text, view, plan.recipients)
        if card in given:
            raise Problem(f"{catalogue.name(card)} is given twice.")
        if seat in given.values():
            who = "You are" if seat == view.seat else f"{names_of(view.players)[seat]} is"
            raise Problem(f"{who} given two cards.")
        given[card] = seat
    new = replace(plan, assigned=dict(plan.assigned))
    for card, seat in given.items():
        new.point_at(card)
        problem = new.assign(seat)
        if problem:
            raise Problem(problem[:1].upper() + problem[1:] + ".")
    return new


def placement_of(plan: Plan) -> dict[int, int]:
    """seat -> card of the cards placed so far."""
    return {seat: card for card, seat in plan.assigned.items()}


def move_of(plan: Plan) -> Move:
    move = plan.move()
    if move is None:
        missing = plan.count - len(plan.assigned)
        raise Problem(f"{missing} more card{'s' * (missing != 1)} to place first.")
    return move
