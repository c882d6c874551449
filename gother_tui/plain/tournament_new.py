"""The plain mode's `tournament new`: its words read into the request the full-screen form
sends (gother_tui/core/forms.py checks both), with the form's choices as `NAME=VALUE` words.

    tournament new ROUNDS SEATS PASSWORD NAME [play=no] [bots=LEVEL] [deals=duplicate]
                   [fate=top] [overflow=immediate] [cap=N or off]

A word with `=` in it is an option, wherever it stands after the password; the other words
are the tournament's name.
"""

from __future__ import annotations

from gother_tui.core.forms import tournament_request
from protocol import requests as rq
from protocol.constants import DEFAULT_ROUND_CAP

USAGE = (
    "tournament new ROUNDS SEATS PASSWORD NAME [play=yes|no] [bots=easy|normal|hard] "
    "[deals=own|duplicate] [fate=any|top] [overflow=draw_step|immediate] [cap=N|off]"
)
EXAMPLE = (
    "e.g. tournament new 3 4 secret Big Night deals=duplicate "
    "(the password is the host's, for tournaments)"
)
# option -> its value when not given, the form's own defaults
OPTIONS = {
    "play": "yes",  # its creator registers in it
    "bots": "normal",
    "deals": "own",
    "fate": "any",
    "overflow": "draw_step",
    "cap": str(DEFAULT_ROUND_CAP),
}

# a request's field -> the word for it here
WORDS = {
    "bot": "bots",
    "variants.fate_discard": "fate",
    "variants.overflow": "overflow",
    "variants.round_cap": "cap",
}


def tournament_new(args: str) -> rq.TournamentCreate:
    """The `tournament_create` request the words ask for; ValueError: one line saying what
    to fix."""
    parts = args.split()
    if len(parts) < 4 or all("=" in part for part in parts[3:]):
        raise ValueError(f"{USAGE}: {EXAMPLE}.")
    rounds, seats, password, *rest = parts
    chosen: dict[str, str] = {}
    name = []
    for word in rest:
        if "=" not in word:
            name.append(word)
            continue
        option, _, value = word.partition("=")
        option = option.lower()
        if option not in OPTIONS:
            known = ", ".join(f"{o}=" for o in OPTIONS)
            raise ValueError(f"tournament new: no option {option!r} (the options: {known}).")
        if option in chosen:
            raise ValueError(f"tournament new: {option}= is given twice.")
        chosen[option] = value.lower()
    given = {**OPTIONS, **chosen}
    cap = "" if given["cap"] == "off" else given["cap"]
    try:
        return tournament_request(
            " ".join(name),
            rounds,
            seats,
            given["play"],
            given["bots"],
            given["deals"],
            given["fate"],
            given["overflow"],
            cap,
            password,
        )
    except ValueError as exc:  # the protocol's field, in these words
        field, said, why = str(exc).removeprefix("tournament_create.").partition(": ")
        reason = f"{WORDS.get(field, field)}: {why}" if said else field
        raise ValueError(f"tournament new: {reason}.") from None
