"""The checks of the wire's fields, one per kind of value a request may carry: a seat, a
card, a name, a password… Each is a check of protocol/checks.py, written once and named by
the typed values that carry it (`Annotated[int, CARD]`)."""

import re
from typing import Any

from protocol.checks import bad, binary, integer, one_of, string
from protocol.constants import (
    BOT_NAMES,
    CHAT_MAX,
    DECK_MAX,
    KEY_BYTES,
    MAX_SEATS,
    NAME_MAX,
    PASSWORD_MAX,
    TABLE_ID_MAX,
    TOKEN_MAX,
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
TABLE_ID = string(1, TABLE_ID_MAX)
TOKEN = string(16, TOKEN_MAX)
CHAT_TEXT = string(1, CHAT_MAX, tidy=clean_text)
BOT_KIND = one_of(*BOT_NAMES)  # a difficulty or a kind
BOT_TRAIT = one_of(*TRAITS)  # whom a table's bots hurt
GAME = integer(1, 1_000_000)  # a table's game, from 1


# Ed25519 (RFC 8032): the field's prime and the curve's d
_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_KEY_BYTES = binary(KEY_BYTES)


def KEY(value: Any, where: str) -> bytes:
    """An Ed25519 public key: 32 bytes that decode to a point of the curve (RFC 8032
    §5.1.3). Half of all 32-byte strings do not: a key no signature can prove."""
    key: bytes = _KEY_BYTES(value, where)
    if not _is_point(key):
        raise bad(where, "is not an Ed25519 public key (no point of the curve)")
    return key


def _is_point(key: bytes) -> bool:
    """Whether the curve has a point of this y (the low 255 bits, under P) with an x of
    this sign (the top bit): x² = u / v must have a root, so u·v must be a square."""
    encoded = int.from_bytes(key, "little")
    y, x_odd = encoded & ((1 << 255) - 1), encoded >> 255
    if y >= _P:
        return False
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    if u == 0:
        return not x_odd  # x is 0, which has no odd twin
    return _jacobi(u * v % _P, _P) == 1


def _jacobi(a: int, n: int) -> int:
    """The Jacobi symbol (a/n), n odd: for a prime n, 1 when a is a non-zero square mod n.
    A few times cheaper than Euler's criterion, a 255-bit pow() (a hello names a key)."""
    result = 1
    while a:
        while not a & 1:
            a >>= 1
            if n & 7 in (3, 5):
                result = -result
        a, n = n, a
        if a & 3 == 3 and n & 3 == 3:
            result = -result
        a %= n
    return result if n == 1 else 0
