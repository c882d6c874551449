"""What a person types to make a table or a tournament, read into the request the protocol
checks: one home for the full-screen forms (screens/create_table.py, new_tournament.py) and
the plain mode's `tournament new`.

The choices a field offers are named here, in the players' words (the house rules' with the
rules, in protocol/house_rules.py); the limits are the protocol's: what was typed is read by
the protocol's own reader of the request (its checks, its sentences), so a request it would
refuse is a ValueError whose sentence names the field to fix, and nothing is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from protocol import ProtocolError
from protocol import requests as rq
from protocol.checks import read
from protocol.constants import DEFAULT_TRAITS, DIFFICULTIES, HOUSE_SEATS, SEATS, TRAITS
from protocol.house_rules import OFF, Count, asked
from protocol.lengths import how_long

R = TypeVar("R", rq.Create, rq.TournamentCreate)
Typed = str | int | bool | None  # a field's value as the form read it, before the protocol's checks
HouseRules = dict[str, Typed]  # the variants as typed: the protocol reads them into Variants
Fields = Mapping[str, str]  # what each field holds, by its id (a house rule's: by its word)

BOT_PLAY = tuple((name, name) for name in DIFFICULTIES)  # easy, normal, hard: the players' words
# Whom the bots hurt, in a few words a player understands (protocol.constants.TRAITS).
TRAIT_MEANS = {"vengeful": "hits the leader", "steady": "plays its own game"}
# "": the server's default for the seat count (steady at five seats: docs/balance.md)
BOT_AIM = (
    ("as usual for the seats", ""),
    *((f"{trait}: {TRAIT_MEANS[trait]}", trait) for trait in TRAITS),
)
DEALS = (("each table its own", "own"), ("the same at every table", "duplicate"))
PLAY = (("yes: register me", "yes"), ("no: I only run it", "no"))  # the creator plays?


def whole(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: {text.strip() or 'nothing'} is not a whole number") from None


def house_rules(typed: Fields) -> HouseRules:
    """The variants typed, each rule under its word (protocol/house_rules.py; one not typed
    keeps its default). A count left empty or `off` is off: explicitly, as an absent key
    would mean the default."""
    variants: HouseRules = {}
    for rule in asked():
        said = typed.get(rule.word)
        if said is None:
            continue
        if isinstance(rule, Count):
            off = said.strip().lower() in ("", OFF)
            variants[rule.field] = None if off else whole(said, rule.label.lower())
        else:
            variants[rule.field] = said
    return variants


def table_request(typed: Fields) -> rq.Create:
    """A `create` request from what was typed in the fields name, seats, bots, bot, aim
    ("": the server's default trait), password and the house rules'; ValueError says what
    to fix."""
    seat_count = whole(typed["seats"], "seats")
    variants = house_rules(typed)
    if seat_count in HOUSE_SEATS and seat_count not in SEATS:  # the labelled house rule (R2)
        variants["two_or_six"] = True
    aim = {"trait": typed["aim"]} if typed["aim"] else {}  # left out: the server's default
    return _read(
        rq.Create,
        typed["password"],
        name=typed["name"],
        seats=seat_count,
        bots=whole(typed["bots"], "bots"),
        bot=typed["bot"],
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


def tournament_request(typed: Fields) -> rq.TournamentCreate:
    """A `tournament_create` request from what was typed in the fields name, rounds, seats,
    play, bot, deals, password and the house rules'; ValueError says what to fix."""
    for field, choices in (("deals", DEALS), ("play", PLAY)):
        said = typed[field]
        if said not in {value for _, value in choices}:
            words = ", ".join(value for _, value in choices)
            raise ValueError(f"{field}: {said or 'nothing'} is not one of {words}")
    return _read(
        rq.TournamentCreate,
        typed["password"],
        name=typed["name"],
        rounds=whole(typed["rounds"], "rounds"),
        seats=whole(typed["seats"], "seats"),
        play=typed["play"] == "yes",
        bot=typed["bot"],
        duplicate=typed["deals"] == "duplicate",
        variants=house_rules(typed),
    )


def _read(kind: type[R], password: str, **fields: Typed | HouseRules) -> R:
    """The request of `kind` the fields make, as the protocol reads one off the wire (a
    password left empty is none), or ValueError with the protocol's reason."""
    if password:
        fields["password"] = password
    try:
        return read(kind, fields, str(kind.__struct_config__.tag))
    except ProtocolError as exc:
        raise ValueError(exc.message) from None
