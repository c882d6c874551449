"""Server → client messages: fixed names, rid echoed only on replies, and `parse` turning a
decoded frame back into the same typed message or naming the field at fault."""

import pytest

from protocol import PROTOCOL_VERSION, ProtocolError, decode, encode, server_messages
from protocol.server_messages import (
    Chat,
    Created,
    Error,
    Joined,
    Left,
    State,
    Tables,
    Watching,
    Welcome,
    parse,
)
from protocol.view import Card

CARD = Card(0, "Velvet Opera Cape", "…", 3, 0, -2)
CARD_WIRE = {
    "id": 0,
    "name": "Velvet Opera Cape",
    "flavour": "…",
    "goth": 3,
    "sickness": 0,
    "money": -2,
}


def test_welcome_carries_the_protocol_version() -> None:
    wire = decode(encode(Welcome.of("gother 0.1")))
    assert wire == {"t": "welcome", "v": PROTOCOL_VERSION, "server": "gother 0.1"}


REPLIES = [
    (Welcome.of("s", rid=1), {"t": "welcome", "rid": 1, "v": 1, "server": "s"}),
    (Tables(tables=(), rid=2), {"t": "tables", "rid": 2, "tables": []}),
    (Created(table="t1", rid=3), {"t": "created", "rid": 3, "table": "t1"}),
    (
        Joined(table="t1", seat=2, token="k" * 16, cards=(CARD,), rid=4),
        {
            "t": "joined",
            "rid": 4,
            "table": "t1",
            "seat": 2,
            "token": "k" * 16,
            "cards": [CARD_WIRE],
        },
    ),
    (
        Watching(table="t1", cards=(CARD,), rid=5),
        {"t": "watching", "rid": 5, "table": "t1", "cards": [CARD_WIRE]},
    ),
    (
        Error(code="not_your_turn", message="It is seat 2's turn.", rid=6),
        {"t": "error", "rid": 6, "code": "not_your_turn", "message": "It is seat 2's turn."},
    ),
    (Left(table="t1", rid=7), {"t": "left", "rid": 7, "table": "t1"}),
]


@pytest.mark.parametrize(("built", "expected"), REPLIES)
def test_replies_echo_rid_and_parse_back(built, expected) -> None:
    wire = decode(encode(built))
    assert wire == expected
    assert list(wire) == list(expected)  # the key order is the contract's, `t` first
    assert parse(wire) == built


@pytest.mark.parametrize(
    "built",
    [
        Welcome.of("s"),
        Tables(tables=()),
        Created(table="t"),
        Joined(table="t", seat=0, token="k", cards=()),
        Watching(table="t", cards=()),
        Error(code="bad_frame", message="x"),
    ],
)
def test_replies_without_rid_have_no_rid_key(built) -> None:
    assert "rid" not in decode(encode(built))


def test_chat_is_sent_as_from() -> None:
    assert decode(encode(Chat(sender="Ann", text="hi"))) == {
        "t": "chat",
        "from": "Ann",
        "text": "hi",
    }
    assert parse({"t": "chat", "from": "Ann", "text": "hi"}) == Chat(sender="Ann", text="hi")


def test_error_code_must_exist() -> None:
    with pytest.raises(ValueError):
        Error(code="seat_takne", message="typo")


def test_an_unknown_message_type_parses_to_none() -> None:
    assert parse({"t": "fanfare", "tune": 3}) is None


@pytest.mark.parametrize(
    ("frame", "where"),
    [
        ({"t": "joined", "table": "t", "seat": "0", "token": "k", "cards": []}, "joined.seat"),
        ({"t": "joined", "table": "t", "seat": 0, "cards": []}, "joined: Object missing"),
        ({"t": "watching", "table": "t", "cards": [{"id": 1}]}, "watching.cards[0]"),
        ({"t": "state", "seq": 1, "view": []}, "state.view"),
        ({"t": "error", "code": 3, "message": "x"}, "error.code"),
    ],
)
def test_a_malformed_message_names_the_field(frame, where) -> None:
    with pytest.raises(ProtocolError, match="bad_message") as caught:
        parse(frame)
    assert caught.value.message.startswith(where), caught.value.message


def test_the_error_of_a_protocol_error() -> None:
    caught = ProtocolError("rate_limited", "Slow down.")
    msg = server_messages.Error(code=caught.code, message=caught.message, rid=9)
    wire = decode(encode(msg))
    assert wire == {"t": "error", "rid": 9, "code": "rate_limited", "message": "Slow down."}
    assert type(wire["code"]) is str


def test_state_carries_rid_last_only_for_the_mover(lobby_view) -> None:
    plain = decode(encode(State(seq=3, view=lobby_view)))
    assert list(plain) == ["t", "seq", "view"]
    answer = decode(encode(State(seq=3, view=lobby_view, rid=12)))
    assert list(answer) == ["t", "seq", "view", "rid"] and answer["rid"] == 12
