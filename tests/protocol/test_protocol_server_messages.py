"""Builders of server → client messages: fixed names, rid echoed only on replies."""

import pytest

from protocol import PROTOCOL_VERSION, ProtocolError, decode, encode, server_messages
from protocol.server_messages import chat, created, error, joined, state, tables, watching, welcome

CARD = {"id": 0, "name": "Velvet Opera Cape", "flavour": "…", "goth": 3, "sickness": 0, "money": -2}


def test_welcome_carries_the_protocol_version() -> None:
    assert welcome("gother 0.1") == {"t": "welcome", "v": PROTOCOL_VERSION, "server": "gother 0.1"}


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        (welcome("s", rid=1), {"t": "welcome", "rid": 1, "v": 1, "server": "s"}),
        (tables([{"id": "t1"}], rid=2), {"t": "tables", "rid": 2, "tables": [{"id": "t1"}]}),
        (created("t1", rid=3), {"t": "created", "rid": 3, "table": "t1"}),
        (
            joined("t1", 2, "k" * 16, [CARD], rid=4),
            {"t": "joined", "rid": 4, "table": "t1", "seat": 2, "token": "k" * 16, "cards": [CARD]},
        ),
        (
            watching("t1", (CARD,), rid=5),
            {"t": "watching", "rid": 5, "table": "t1", "cards": [CARD]},
        ),
        (
            error("not_your_turn", "It is seat 2's turn.", rid=6),
            {"t": "error", "rid": 6, "code": "not_your_turn", "message": "It is seat 2's turn."},
        ),
    ],
)
def test_replies_echo_rid(built: dict, expected: dict) -> None:
    assert built == expected
    assert decode(encode(built)) == expected


@pytest.mark.parametrize(
    "built",
    [
        welcome("s"),
        tables([]),
        created("t"),
        joined("t", 0, "k", []),
        watching("t", []),
        error("bad_frame", "x"),
    ],
)
def test_replies_without_rid_have_no_rid_key(built: dict) -> None:
    assert "rid" not in built


def test_broadcasts() -> None:
    assert state(3, {"phase": "lobby"}) == {"t": "state", "seq": 3, "view": {"phase": "lobby"}}
    assert chat("Ann", "hi") == {"t": "chat", "from": "Ann", "text": "hi"}


def test_error_code_is_a_plain_string_and_must_exist() -> None:
    assert type(error("seat_taken", "Seat 1 is taken.")["code"]) is str
    with pytest.raises(ValueError):
        error("seat_takne", "typo")


def test_error_can_be_built_from_a_protocol_error() -> None:
    caught = ProtocolError("rate_limited", "Slow down.")
    msg = server_messages.error(caught.code, caught.message, rid=9)
    assert msg == {"t": "error", "rid": 9, "code": "rate_limited", "message": "Slow down."}
