"""The checks of the wire's fields, one per kind of value a request may carry: a seat, a
card, a name, a password… Each is a check of protocol/checks.py, written once and named by
the typed values that carry it (`Annotated[int, CARD]`)."""

import re
from typing import Any

from protocol.checks import bad, integer, one_of, string
from protocol.constants import (
    BOT_NAMES,
    CHAT_MAX,
    DECK_MAX,
    MAX_SEATS,
    NAME_MAX,
    PASSWORD_MAX,
    TRAITS,
)
from protocol.text import clean_text, name_problem, tidy_name

RID_MAX = 2**31 - 1

RID = integer(0, RID_MAX)
SEAT = integer(0, MAX_SEATS - 1)
CARD = integer(0, DECK_MAX - 1)
_NAME_TEXT = string(1, NAME_MAX, tidy=tidy_name)


def NAME(value: Any, where: str) -> str:
    """A player's or table's name: shown to everyone, so visible, with no control or
    invisible characters and none of the marks clients draw beside names."""
    name: str = _NAME_TEXT(value, where)
    problem = name_problem(name)
    if problem is not None:
        raise bad(where, problem)
    return name


# A file name inside the server's deck folder: no separators, and no leading dot so that
# "." and ".." (and hidden files) cannot be named.
DECK = string(1, 64, pattern=re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*"))
PASSWORD = string(1, PASSWORD_MAX)
TABLE_ID = string(1, 32)
TOKEN = string(16, 128)
CHAT_TEXT = string(1, CHAT_MAX, tidy=clean_text)
BOT_KIND = one_of(*BOT_NAMES)  # a difficulty or a kind
BOT_TRAIT = one_of(*TRAITS)  # whom a table's bots hurt
GAME = integer(1, 1_000_000)  # a table's game, from 1
