"""What a person types to make a table or a tournament, read into the request the protocol
checks: one home for the full-screen forms (screens/create_table.py, new_tournament.py) and
the plain mode's `tournament new`.

The choices a field offers are named here, in the players' words; the limits are the
protocol's: what was typed is read by the protocol's own reader of the request (its checks,
its sentences), so a request it would refuse is a ValueError whose sentence names the field
to fix, and nothing is sent.
"""

from __future__ import annotations

from typing import TypeVar

from protocol import ProtocolError
from protocol import requests as rq
from protocol.checks import typed
from protocol.constants import (
    DEFAULT_ROUND_CAP,
    DEFAULT_TRAITS,
    DIFFICULTIES,
    HOUSE_SEATS,
    SEATS,
    SHORT_ROUND_CAP,
    TRAITS,
)
from protocol.lengths import how_long

R = TypeVar("R", rq.Create, rq.TournamentCreate)
Typed = str | int | bool | None  # a field's value as the form read it, before the protocol's checks
HouseRules = dict[str, Typed]  # the variants as typed: the protocol reads them into Variants

# (what a person reads, what the request carries)
FATE_DISCARD = (("any card (standard)", "any"), ("the top card only", "top"))
OVERFLOW = (("at the draw step (standard)", "draw_step"), ("immediately, any turn", "immediate"))
BOT_PLAY = tuple((name, name) for name in DIFFICULTIES)  # easy, normal, hard: the players' words
# Whom the bots hurt, in a few words a player understands (protocol.constants.TRAITS).
TRAIT_MEANS = {"vengeful": "hits the leader", "steady": "plays its own game"}
# "": the server's default for the seat count (steady at five seats: docs/balance.md)
BOT_AIM = (
    ("as usual for the seats", ""),
    *((f"{trait}: {TRAIT_MEANS[trait]}", trait) for trait in TRAITS),
)
# H1's presets: a choice writes its cap into the round cap field ("": no cap)
LENGTHS = (
    (f"the published game: {DEFAULT_ROUND_CAP} rounds", str(DEFAULT_ROUND_CAP)),
    (f"a short game: {SHORT_ROUND_CAP} rounds", str(SHORT_ROUND_CAP)),
    ("no round cap", ""),
)
DEALS = (("each table its own", "own"), ("the same at every table", "duplicate"))
PLAY = (("yes: register me", "yes"), ("no: I only run it", "no"))  # the creator plays?


def whole(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: {text.strip() or 'nothing'} is not a whole number") from None


def house_rules(fate_discard: str, overflow: str, round_cap: str) -> HouseRules:
    """The variants typed: a round cap left empty is no cap (explicitly off: an absent key
    would mean the default)."""
    return {
        "fate_discard": fate_discard,
        "overflow": overflow,
        "round_cap": whole(round_cap, "round cap") if round_cap.strip() else None,
    }


def table_request(
    name: str,
    seats: str,
    bots: str,
    bot: str,
    trait: str,
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> rq.Create:
    """A `create` request from what was typed (`trait` "": the server's default); ValueError
    says what to fix."""
    seat_count = whole(seats, "seats")
    variants = house_rules(fate_discard, overflow, round_cap)
    if seat_count in HOUSE_SEATS and seat_count not in SEATS:  # the labelled house rule (R2)
        variants["two_or_six"] = True
    aim = {"trait": trait} if trait else {}  # left out: the server's default
    return _read(
        rq.Create,
        password,
        name=name,
        seats=seat_count,
        bots=whole(bots, "bots"),
        bot=bot,
        variants=variants,
        **aim,
    )


def lasts(seats: str, bot: str, trait: str, round_cap: str) -> str:
    """How long a table of what is typed runs, from measured games ("" when none stand for
    it, or the numbers are not yet numbers)."""
    try:
        seat_count = int(seats)
        cap = int(round_cap) if round_cap.strip() else None
    except ValueError:
        return ""
    aim = trait or DEFAULT_TRAITS.get(seat_count)
    sentence = aim and how_long(seat_count, bot, aim, cap)
    return f"Length: {sentence}." if sentence else ""


def tournament_request(
    name: str,
    rounds: str,
    seats: str,
    play: str,
    bot: str,
    deals: str,
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> rq.TournamentCreate:
    """A `tournament_create` request from what was typed; ValueError says what to fix."""
    for field, said, choices in (("deals", deals, DEALS), ("play", play, PLAY)):
        if said not in {value for _, value in choices}:
            words = ", ".join(value for _, value in choices)
            raise ValueError(f"{field}: {said or 'nothing'} is not one of {words}")
    return _read(
        rq.TournamentCreate,
        password,
        name=name,
        rounds=whole(rounds, "rounds"),
        seats=whole(seats, "seats"),
        play=play == "yes",
        bot=bot,
        duplicate=deals == "duplicate",
        variants=house_rules(fate_discard, overflow, round_cap),
    )


def _read(kind: type[R], password: str, **fields: Typed | HouseRules) -> R:
    """The request of `kind` the fields make, as the protocol reads one off the wire (a
    password left empty is none), or ValueError with the protocol's reason."""
    if password:
        fields["password"] = password
    try:
        return typed(kind)(fields, str(kind.__struct_config__.tag))
    except ProtocolError as exc:
        raise ValueError(exc.message) from None
