"""The plain mode's `tournament new`: its words read into the request the full-screen form
sends (gother_tui/core/forms.py checks both), with the form's choices as `NAME=VALUE` words.

    tournament new ROUNDS SEATS PASSWORD NAME [play=no] [bots=LEVEL] [deals=duplicate]
                   [a house rule's word: fate=top, overflow=immediate, cap=N or off, …]

A word with `=` in it is an option, wherever it stands after the password; the other words
are the tournament's name.
"""

from __future__ import annotations

from gother_tui.core.forms import tournament_request
from gother_tui.plain.options import split
from protocol import requests as rq
from protocol.house_rules import plain_defaults, plain_options, plain_words

USAGE = (
    "tournament new ROUNDS SEATS PASSWORD NAME [play=yes|no] [bots=easy|normal|hard] "
    f"[deals=own|duplicate] {' '.join(f'[{option}]' for option in plain_options())}"
)
EXAMPLE = (
    "e.g. tournament new 3 4 secret Big Night deals=duplicate "
    "(the password is the host's, for tournaments)"
)
# option -> its value when not given, the form's own defaults (then the house rules')
OPTIONS = {
    "play": "yes",  # its creator registers in it
    "bots": "normal",
    "deals": "own",
    **plain_defaults(),
}

# a request's field -> the word for it here
WORDS = {"bot": "bots", **plain_words()}


def tournament_new(args: str) -> rq.TournamentCreate:
    """The `tournament_create` request the words ask for; ValueError: one line saying what
    to fix."""
    parts = args.split()
    if len(parts) < 4 or all("=" in part for part in parts[3:]):
        raise ValueError(f"{USAGE}: {EXAMPLE}.")
    rounds, seats, password, *rest = parts
    chosen, name = split(rest, OPTIONS, "tournament new")
    given = {**OPTIONS, **chosen}
    typed = {"name": " ".join(name), "rounds": rounds, "seats": seats, "password": password}
    try:  # the form's fields are the words, but for the bots' ("bot" there)
        return tournament_request({**given, **typed, "bot": given["bots"]})
    except ValueError as exc:  # the protocol's field, in these words
        field, said, why = str(exc).removeprefix("tournament_create.").partition(": ")
        reason = f"{WORDS.get(field, field)}: {why}" if said else field
        raise ValueError(f"tournament new: {reason}.") from None
