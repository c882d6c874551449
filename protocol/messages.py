"""Client → server messages: one declarative shape per type, checked for shape, types and
ranges only. Whether a move is legal is the engine's business, not the protocol's."""

import re
from collections.abc import Mapping
from typing import Any

from protocol.checks import (
    Check,
    Rule,
    array,
    bad,
    binary,
    boolean,
    fixed,
    integer,
    nullable,
    one_of,
    record,
    show,
    string,
    tagged,
    wire_name,
)
from protocol.constants import (
    BOT_NAMES,
    CHAT_MAX,
    DECK_MAX,
    FATE_DISCARDS,
    HOUSE_SEATS,
    KEY_BYTES,
    MAX_SEATS,
    NAME_MAX,
    OVERFLOWS,
    PASSWORD_MAX,
    PROTOCOL_VERSION,
    ROUND_CAPS,
    SEATS,
    SIGNATURE_BYTES,
    TOURNAMENT_ROUNDS,
)
from protocol.errors import ProtocolError
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

VARIANTS = record(
    {},
    {
        "fate_discard": one_of(*FATE_DISCARDS),
        "overflow": one_of(*OVERFLOWS),
        "round_cap": nullable(integer(ROUND_CAPS.start, ROUND_CAPS.stop - 1)),  # nil: no cap
        "two_or_six": boolean,
    },
)
CLOCK = record({"initial": integer(10, 7200), "increment": integer(0, 600)})

MOVE = tagged(
    "kind",
    {
        "discard_fate": record({"card": CARD}),
        "distribute": record({"give": array(fixed(SEAT, CARD), 1, MAX_SEATS)}),
        "draw": tagged(
            "source",
            {"deck": record({}), "discard": record({"card": CARD})},
        ),
        "discard_hand": record({"card": CARD}),
    },
)


def _seats_and_bots(msg: dict[str, Any], where: str) -> None:
    # 2 and 6 seats are a labelled house rule (RULES.md R2), so they need the variant flag.
    if not msg.get("variants", {}).get("two_or_six", False) and msg["seats"] not in SEATS:
        raise bad(
            f"{where}.seats",
            f"must be between {SEATS.start} and {SEATS.stop - 1} unless variants.two_or_six "
            f"is true, got {msg['seats']}",
        )
    if msg["bots"] > msg["seats"]:
        raise bad(f"{where}.bots", f"must be at most seats ({msg['seats']}), got {msg['bots']}")


def _token_or_table(msg: dict[str, Any], where: str) -> None:
    if ("token" in msg) == ("table" in msg):
        raise bad(where, "give the seat's token or the table, not both")


def _request(
    required: Mapping[str, Check] | None = None,
    optional: Mapping[str, Check] | None = None,
    rule: Rule | None = None,
) -> Check:
    # Every request may carry a `rid`, echoed in the reply.
    return record(required or {}, {"rid": RID, **(optional or {})}, rule=rule)


# The requests that act on a table may name it (`table`); without it, the rule of
# docs/protocol.md "Which table a request acts on" picks one.
AT_TABLE = {"table": TABLE_ID}

REQUESTS: dict[str, Check] = {
    "hello": _request(
        {"v": integer(PROTOCOL_VERSION, PROTOCOL_VERSION), "name": NAME},
        # the server's own password, when it has one; the client's public key, which a
        # `prove` of the challenge in `welcome` then makes its lasting identity
        {"password": PASSWORD, "key": binary(KEY_BYTES)},
    ),
    "prove": _request({"signature": binary(SIGNATURE_BYTES)}),
    "list": _request({}, {"offset": integer(0, 100_000)}),  # a page of the tables from here
    "create": _request(
        {
            "name": NAME,
            "seats": integer(HOUSE_SEATS.start, HOUSE_SEATS.stop - 1),
            "bots": integer(0, MAX_SEATS),
        },
        {
            "variants": VARIANTS,
            "deck": DECK,
            "password": PASSWORD,
            "clock": CLOCK,
            "bot": BOT_KIND,
        },
        rule=_seats_and_bots,
    ),
    "join": _request({"table": TABLE_ID}, {"seat": SEAT, "password": PASSWORD}),
    # by the seat's token, or (a proven identity) by the table where it holds a seat
    "resume": _request({}, {"token": TOKEN, "table": TABLE_ID}, rule=_token_or_table),
    "watch": _request({"table": TABLE_ID}, {"password": PASSWORD}),
    "start": _request({}, AT_TABLE),
    "move": _request({"move": MOVE}, AT_TABLE),
    "chat": _request({"text": CHAT_TEXT}, AT_TABLE),
    "hint": _request({}, AT_TABLE),
    "leave": _request({}, AT_TABLE),
    "rematch": _request({}, AT_TABLE),
    "pause": _request({"on": boolean}, AT_TABLE),  # vote to pause (true) or to go on (false)
    "end": _request({}, AT_TABLE),  # vote to end the game in progress unfinished
    # a finished game's record, in parts of at most RECORD_PART bytes
    "record": _request(
        {"table": TABLE_ID},
        {
            "game": integer(1, 1_000_000),
            "part": integer(0, 10_000),
            "seat": SEAT,  # also that seat's own views: a replay as it saw the game
            "password": PASSWORD,
        },
    ),
    # a seat's decisions in a finished game, judged by the hard bot's search from its view
    "review": _request(
        {"table": TABLE_ID, "seat": SEAT},
        {"game": integer(1, 1_000_000), "password": PASSWORD},
    ),
    # a new table, the asker at `seat` and bots elsewhere, its game played on from turn
    # `turn` (from 1) of a finished game as that seat knew it; `password`: the finished one's
    "play_on": _request(
        {"table": TABLE_ID, "seat": SEAT, "turn": integer(1, 1_000_000)},
        {"game": integer(1, 1_000_000), "password": PASSWORD, "bot": BOT_KIND},
    ),
    # tournaments (docs/protocol.md): created with the host's leave (`password`)
    "tournament_create": _request(
        {"name": NAME, "rounds": integer(1, TOURNAMENT_ROUNDS), "seats": integer(3, 5)},
        {"variants": VARIANTS, "bot": BOT_KIND, "duplicate": boolean, "password": PASSWORD},
    ),
    "tournament_join": _request({"tournament": TABLE_ID}),  # register, or come back
    "tournament_start": _request({"tournament": TABLE_ID}),  # its creator deals round 1
    "tournament_drop": _request({"tournament": TABLE_ID}),  # out of the rounds to come
    "tournament_watch": _request({"tournament": TABLE_ID}),  # follow the standings
    # a page of the host's standings (every player's record and rating) from `offset` on
    "standings": _request({}, {"offset": integer(0, 1_000_000)}),
}


def validate_request(msg: Mapping[str, Any]) -> dict[str, Any]:
    """Check a decoded client message and return it cleaned, or raise ProtocolError."""
    if not isinstance(msg, Mapping):
        raise ProtocolError("bad_message", "a message must be a map")
    kind = msg.get("t")
    if not isinstance(kind, str) or kind not in REQUESTS:
        raise ProtocolError("bad_message", f"unknown message type {show(kind)}")
    if kind == "hello":
        _check_version(msg)
    body = REQUESTS[kind]({key: value for key, value in msg.items() if key != "t"}, kind)
    return {"t": kind, **body}


def _check_version(msg: Mapping[str, Any]) -> None:
    # Before the shape check: another version's hello may well have other fields, and the
    # useful answer to any `v` but ours (missing, another number, "1", 1.0, true) is the
    # version mismatch, not a complaint about a field.
    if "v" not in msg:
        raise ProtocolError(
            "bad_version", f"server speaks protocol {PROTOCOL_VERSION}, client sent no version"
        )
    version = msg["v"]
    if type(version) is not int or version != PROTOCOL_VERSION:
        if version is None:
            sent = "nil"  # not "nil None": the type is the whole story
        elif type(version) is int:
            sent = str(version)
        else:
            sent = f"{wire_name(version)} {show(version)}"
        raise ProtocolError(
            "bad_version", f"server speaks protocol {PROTOCOL_VERSION}, client sent {sent}"
        )


def request_id(msg: object) -> int | None:
    """The message's `rid` if it is a valid one, so even an `error` reply can echo it."""
    if not isinstance(msg, Mapping):
        return None
    rid = msg.get("rid")
    return rid if type(rid) is int and 0 <= rid <= RID_MAX else None
