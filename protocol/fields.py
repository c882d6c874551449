"""The kinds of value a request may carry: a seat, a card, a name, a password… Each is a
type whose msgspec `Meta` says what a received value must be, written once and named by the
requests that carry it (`seat: Seat`); protocol/checks.py reads them and says the faults."""

from typing import TYPE_CHECKING, Annotated, Any, Literal

from msgspec import Meta

from protocol.checks import bad, read
from protocol.constants import (
    BOT_NAMES,
    CHAT_MAX,
    DECK_MAX,
    KEY_BYTES,
    MAX_SEATS,
    NAME_MAX,
    PASSWORD_MAX,
    SIGNATURE_BYTES,
    TABLE_ID_MAX,
    TOKEN_MAX,
    TRAITS,
)
from protocol.text import name_problem, tidy_name

RID_MAX = 2**31 - 1


def between(lo: int, hi: int) -> Meta:
    """An integer's range, both ends included (`Annotated[int, between(0, 5)]`)."""
    return Meta(ge=lo, le=hi)


def _characters(lo: int, hi: int) -> Meta:
    return Meta(min_length=lo, max_length=hi)


Rid = Annotated[int, between(0, RID_MAX)]
Seat = Annotated[int, between(0, MAX_SEATS - 1)]
CardId = Annotated[int, between(0, DECK_MAX - 1)]
Game = Annotated[int, between(1, 1_000_000)]  # a table's game, from 1
# A file name inside the server's deck folder: no separators, and no leading dot so that
# "." and ".." (and hidden files) cannot be named. (Meta searches: anchored, \Z not $,
# which would let a final newline through.)
Deck = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*\Z")]
Password = Annotated[str, _characters(1, PASSWORD_MAX)]
TableId = Annotated[str, _characters(1, TABLE_ID_MAX)]
Token = Annotated[str, _characters(16, TOKEN_MAX)]
Key = Annotated[bytes, _characters(KEY_BYTES, KEY_BYTES)]  # and a point of the curve: on_the_curve
Signature = Annotated[bytes, _characters(SIGNATURE_BYTES, SIGNATURE_BYTES)]
# Texts measured after their clean-up (protocol/text.py), which the request's __post_init__
# does: a request reads its cleaned text as one of these in its `check`.
NameText = Annotated[str, _characters(1, NAME_MAX)]
ChatText = Annotated[str, _characters(1, CHAT_MAX)]

if TYPE_CHECKING:
    BotKind = str
    BotTrait = str
else:
    BotKind = Literal[BOT_NAMES]  # a difficulty or a kind (constants: one list of them)
    BotTrait = Literal[TRAITS]  # whom a table's bots hurt


def NAME(value: Any, where: str) -> str:
    """A player's or table's name as it is kept (tidied), or ProtocolError: shown to
    everyone, so visible, with no control or invisible characters and none of the marks
    clients draw beside names."""
    return kept_name(tidy_name(value) if isinstance(value, str) else value, where)


def kept_name(value: Any, where: str) -> str:
    """NAME of a name already tidied (a request's, by its __post_init__)."""
    name: str = read(NameText, value, where)
    problem = name_problem(name)
    if problem is not None:
        raise bad(where, problem)
    return name


# Ed25519 (RFC 8032): the field's prime and the curve's d
_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P


def on_the_curve(key: bytes) -> bool:
    """Whether 32 bytes are an Ed25519 public key (RFC 8032 §5.1.3), as half of all
    32-byte strings are not: keys no signature can prove. They are when the curve has a
    point of this y (the low 255 bits, under P) with an x of this sign (the top bit):
    x² = u / v must have a root, so u·v must be a square."""
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
