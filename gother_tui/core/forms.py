"""What a person types to make a table or a tournament, read into the request the protocol
checks: one home for the full-screen forms (screens/create_table.py, new_tournament.py) and
the plain mode's `tournament new`.

The choices a field offers are named here, in the players' words; the limits are the
protocol's (`validate_request`): a request it would refuse is a ValueError whose sentence
names the field to fix, and nothing is sent.
"""

from __future__ import annotations

from typing import Any

from protocol import ProtocolError, validate_request
from protocol.constants import DIFFICULTIES, HOUSE_SEATS, SEATS

# (what a person reads, what the request carries)
FATE_DISCARD = (("any card (standard)", "any"), ("the top card only", "top"))
OVERFLOW = (("at the draw step (standard)", "draw_step"), ("immediately, any turn", "immediate"))
BOT_PLAY = tuple((name, name) for name in DIFFICULTIES)  # easy, normal, hard: the players' words
DEALS = (("each table its own", "own"), ("the same at every table", "duplicate"))


def whole(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: {text.strip() or 'nothing'} is not a whole number") from None


def house_rules(fate_discard: str, overflow: str, round_cap: str) -> dict[str, Any]:
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
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> dict[str, Any]:
    """A `create` request from what was typed; ValueError says what to fix."""
    seat_count = whole(seats, "seats")
    variants = house_rules(fate_discard, overflow, round_cap)
    if seat_count in HOUSE_SEATS and seat_count not in SEATS:  # the labelled house rule (R2)
        variants["two_or_six"] = True
    return _checked(
        "create",
        password,
        name=name,
        seats=seat_count,
        bots=whole(bots, "bots"),
        bot=bot,
        variants=variants,
    )


def tournament_request(
    name: str,
    rounds: str,
    seats: str,
    bot: str,
    deals: str,
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> dict[str, Any]:
    """A `tournament_create` request from what was typed; ValueError says what to fix."""
    if deals not in {value for _, value in DEALS}:
        raise ValueError(f"deals: {deals or 'nothing'} is not one of own, duplicate")
    return _checked(
        "tournament_create",
        password,
        name=name,
        rounds=whole(rounds, "rounds"),
        seats=whole(seats, "seats"),
        bot=bot,
        duplicate=deals == "duplicate",
        variants=house_rules(fate_discard, overflow, round_cap),
    )


def _checked(t: str, password: str, **fields: Any) -> dict[str, Any]:
    """The request as the protocol takes it (without its `t`), or the protocol's reason."""
    request: dict[str, Any] = {"t": t, **fields}
    if password:
        request["password"] = password
    try:
        checked: dict[str, Any] = validate_request(request).to_wire()
    except ProtocolError as exc:
        raise ValueError(exc.message) from None
    del checked["t"]
    if "variants" in fields:  # as typed, not filled in (typed requests: issue 20, under way)
        checked["variants"] = fields["variants"]
    return checked
