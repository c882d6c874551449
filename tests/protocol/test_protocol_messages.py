"""Validation of client → server messages: shapes, types and ranges, with stable codes."""

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    clean_text,
    decode,
    encode,
    request_id,
    validate_request,
)
from protocol.requests import TYPES, Clock
from protocol.view import Variants

TOKEN = "k" * 16


def rejected(msg: object, code: str = "bad_message") -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        validate_request(msg)  # type: ignore[arg-type]
    assert caught.value.code == code
    return caught.value


# The public key of RFC 8032's first Ed25519 test vector
RFC8032_KEY = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")


# One valid example of every message type, with every optional field that exists (but the
# `table` a request acting on a table may name: see "which table" below).
FULL: dict[str, dict[str, Any]] = {
    "hello": {
        "t": "hello",
        "v": PROTOCOL_VERSION,
        "name": "Morticia",
        "password": "lan-party",
        "key": RFC8032_KEY,
    },
    "prove": {"t": "prove", "signature": b"s" * 64},
    "list": {"t": "list", "offset": 50},
    "create": {
        "t": "create",
        "name": "The Crypt",
        "seats": 4,
        "bots": 2,
        "variants": {
            "fate_discard": "top",
            "overflow": "immediate",
            "round_cap": 50,
            "two_or_six": False,
        },
        "deck": "savant-garde_2000.toml",
        "password": "hunter2",
        "clock": {"initial": 300, "increment": 5},
        "bot": "ismcts",
    },
    "join": {"t": "join", "table": "t1", "seat": 3, "password": "hunter2"},
    "resume": {"t": "resume", "token": TOKEN},
    "watch": {"t": "watch", "table": "t1", "password": "hunter2"},
    "start": {"t": "start"},
    "move": {"t": "move", "move": {"kind": "discard_fate", "card": 54}},
    "chat": {"t": "chat", "text": "nice swoon"},
    "hint": {"t": "hint"},
    "leave": {"t": "leave"},
    "rematch": {"t": "rematch"},
    "pause": {"t": "pause", "on": True},
    "end": {"t": "end"},
    "record": {"t": "record", "table": "t1", "game": 2, "part": 3, "password": "hunter2"},
    "review": {"t": "review", "table": "t1", "seat": 2, "game": 2, "password": "hunter2"},
    "play_on": {"t": "play_on", "table": "t1", "seat": 2, "turn": 31, "game": 2, "bot": "hard"},
    "tournament_create": {
        "t": "tournament_create",
        "name": "Big Night",
        "rounds": 5,
        "seats": 4,
        "variants": {
            "fate_discard": "top",
            "overflow": "draw_step",
            "round_cap": 100,
            "two_or_six": False,
        },
        "bot": "hard",
        "duplicate": True,
        "password": "the host's leave",
    },
    "tournament_join": {"t": "tournament_join", "tournament": "n1"},
    "tournament_start": {"t": "tournament_start", "tournament": "n1"},
    "tournament_drop": {"t": "tournament_drop", "tournament": "n1"},
    "tournament_watch": {"t": "tournament_watch", "tournament": "n1"},
    "standings": {"t": "standings", "offset": 50},
}


def test_every_message_type_has_an_example() -> None:
    assert set(FULL) == set(TYPES)


@pytest.mark.parametrize("kind", sorted(FULL))
def test_full_examples_pass_unchanged_through_the_wire(kind: str) -> None:
    msg = {**FULL[kind], "rid": 12}
    assert validate_request(decode(encode(msg))).to_wire() == msg


@pytest.mark.parametrize("kind", sorted(FULL))
def test_unknown_extra_key_rejected(kind: str) -> None:
    error = rejected({**FULL[kind], "colour": "black"})
    assert error.message == f"{kind}: unknown field 'colour'"


@pytest.mark.parametrize("t", ["", "HELLO", "welcome", "state", "shuffle", 3, None])
def test_unknown_type_named_in_the_error(t: object) -> None:
    assert repr(t) in rejected({"t": t}).message


def test_missing_type_and_non_map_rejected() -> None:
    rejected({"name": "x"})
    rejected(["t", "list"])


def test_long_offending_values_are_shortened_in_messages() -> None:
    assert len(rejected({"t": "x" * 10_000}).message) < 100


# --- rid -----------------------------------------------------------------------------------


@pytest.mark.parametrize("rid", [0, 2**31 - 1])
def test_rid_range_accepted_and_kept(rid: int) -> None:
    assert validate_request({"t": "list", "rid": rid}).rid == rid
    assert request_id({"t": "nonsense", "rid": rid}) == rid


@pytest.mark.parametrize("rid", [-1, 2**31, True, "1", 1.0, None])
def test_bad_rid_rejected_and_not_echoed(rid: object) -> None:
    assert rejected({"t": "list", "rid": rid}).message.startswith("list.rid:")
    assert request_id({"t": "list", "rid": rid}) is None


def test_request_id_of_non_map_is_none() -> None:
    assert request_id([1]) is None


# --- which table ---------------------------------------------------------------------------

AT_TABLE = ("start", "move", "hint", "rematch", "pause", "end", "chat", "leave")


@pytest.mark.parametrize("kind", AT_TABLE)
def test_a_request_acting_on_a_table_may_name_it(kind: str) -> None:
    msg = {**FULL[kind], "table": "t7"}
    assert validate_request(msg).table == "t7"
    assert (
        rejected({**msg, "table": ""}).message == f"{kind}.table: must be 1 to 32 characters, got 0"
    )
    assert validate_request(FULL[kind]).table is None  # without it: the rule decides


@pytest.mark.parametrize(
    "kind",
    sorted(set(TYPES) - set(AT_TABLE) - {"join", "watch", "record", "review", "play_on", "resume"}),
)
def test_requests_that_act_on_no_table_take_no_table(kind: str) -> None:
    assert rejected({**FULL[kind], "table": "t7"}).message == f"{kind}: unknown field 'table'"


# --- hello ---------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [0, 2, 99])
def test_other_version_gets_bad_version(v: int) -> None:
    error = rejected({"t": "hello", "v": v, "name": "x"}, "bad_version")
    assert error.message == f"server speaks protocol 1, client sent {v}"


def test_other_version_wins_over_unknown_fields() -> None:
    rejected({"t": "hello", "v": 2, "nick": "x", "caps": ["a"]}, "bad_version")


@pytest.mark.parametrize(
    ("v", "sent"),
    [
        (None, "nil"),
        ("1", "string '1'"),
        (True, "bool True"),
        (1.0, "float 1.0"),
        ([1], "array [1]"),
    ],
)
def test_version_of_wrong_type_is_bad_version_too(v: object, sent: str) -> None:
    error = rejected({"t": "hello", "v": v, "name": "x"}, "bad_version")
    assert error.message == f"server speaks protocol 1, client sent {sent}"


def test_hello_needs_version_and_name() -> None:
    error = rejected({"t": "hello", "name": "x"}, "bad_version")
    assert error.message == "server speaks protocol 1, client sent no version"
    assert rejected({"t": "hello", "v": 1}).message == "hello.name: missing"


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("  Lydia\t", "Lydia"),
        ("Raven Nevermore", "Raven Nevermore"),
        ("Ærsë 🦇 黒", "Ærsë 🦇 黒"),
        ("x" * 24, "x" * 24),
        ("\n" + "x" * 24 + " ", "x" * 24),
    ],
)
def test_names_are_stripped(sent: str, kept: str) -> None:
    assert validate_request({"t": "hello", "v": 1, "name": sent}).name == kept


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "x" * 25,
        "a\x1b[31mb",
        "a\nb",
        "a\x00",
        "a\x9bb",  # C1 CSI
        "a\u202eb",  # right-to-left override
        "a\u200bb",  # zero-width space
        "a\u00a0b",  # no-break space
        b"bytes",
        42,
    ],
)
def test_bad_names_rejected(name: object) -> None:
    assert rejected({"t": "hello", "v": 1, "name": name}).message.startswith("hello.name:")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u3164", "invisible"),  # Hangul filler: a letter that draws nothing
        ("\u2800\u2800", "invisible"),  # braille blank
        ("\u115f\u1160", "invisible"),
        ("Raven\u3164Nevermore", "invisible"),  # would pass for "Raven Nevermore"
        ("\u0301\u0301", "visible"),  # combining marks alone
        ("Victim (you)", "(you)"),  # a second "(you)" row on the victim's screen
        ("Victim (YOU)", "(you)"),
        ("Vlad ⚙", "marks"),  # the bot mark
        ("Vlad [bot]", "[bot]"),  # the bot mark in ASCII
        ("Eve (away)", "(away)"),
        ("Ann (watching)", "(watching)"),
        ("▶ Raven", "marks"),  # the turn mark
        ("Lenore ☠ 20", "marks"),  # a score symbol
    ],
)
def test_names_that_hide_or_impersonate_are_refused(name: str, why: str) -> None:
    error = rejected({"t": "hello", "v": 1, "name": name})
    assert error.message.startswith("hello.name:") and why in error.message, error.message
    table = rejected({"t": "create", "name": name, "seats": 3, "bots": 0})
    assert table.message.startswith("create.name:")


@pytest.mark.parametrize("name", ["Vlad the 2nd", "Youngling", "Siouxsie (Sioux)", "ÆÞ ☾"])
def test_names_with_something_visible_pass(name: str) -> None:
    assert validate_request({"t": "hello", "v": 1, "name": name}).name == name


# --- create --------------------------------------------------------------------------------


def create(**fields: Any) -> dict[str, Any]:
    return {"t": "create", "name": "Crypt", "seats": 3, "bots": 0, **fields}


def test_minimal_create_keeps_absent_options_absent() -> None:
    assert validate_request(create()).to_wire() == create()


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_three_to_five_seats_need_no_variant(seats: int) -> None:
    assert validate_request(create(seats=seats, bots=seats)).bots == seats


@pytest.mark.parametrize("seats", [2, 6])
def test_two_or_six_seats_need_the_variant(seats: int) -> None:
    error = rejected(create(seats=seats))
    assert error.message.startswith("create.seats:")
    assert "two_or_six" in error.message
    rejected(create(seats=seats, variants={"two_or_six": False}))
    allowed = create(seats=seats, variants={"two_or_six": True})
    assert validate_request(allowed).variants == Variants(two_or_six=True)


@pytest.mark.parametrize("seats", [0, 1, 7, 100])
def test_seats_out_of_any_range_rejected(seats: int) -> None:
    rejected(create(seats=seats, variants={"two_or_six": True}))


@pytest.mark.parametrize(("seats", "bots"), [(3, 4), (5, 6), (3, -1)])
def test_bots_bounded_by_seats(seats: int, bots: int) -> None:
    assert rejected(create(seats=seats, bots=bots)).message.startswith("create.bots:")


@pytest.mark.parametrize("cap", [None, 1, 1000])
def test_round_cap_may_be_nil_or_in_range(cap: int | None) -> None:
    msg = create(variants={"round_cap": cap})
    assert validate_request(msg).variants == Variants(round_cap=cap)


@pytest.mark.parametrize(
    ("variants", "where"),
    [
        ({"round_cap": 0}, "create.variants.round_cap:"),
        ({"round_cap": 1001}, "create.variants.round_cap:"),
        ({"round_cap": True}, "create.variants.round_cap:"),
        ({"fate_discard": "bottom"}, "create.variants.fate_discard:"),
        ({"overflow": "never"}, "create.variants.overflow:"),
        ({"overflow": None}, "create.variants.overflow:"),
        ({"two_or_six": 1}, "create.variants.two_or_six:"),
        ({"two_or_six": "yes"}, "create.variants.two_or_six:"),
        ({"swoon_at": 6}, "create.variants:"),
        ([], "create.variants:"),
    ],
)
def test_bad_variants_rejected(variants: object, where: str) -> None:
    assert rejected(create(variants=variants)).message.startswith(where)


@pytest.mark.parametrize("deck", ["standard", "a", "my_deck-2.toml", "x" * 64, "_x", "-x"])
def test_deck_file_names_accepted(deck: str) -> None:
    assert validate_request(create(deck=deck)).deck == deck


@pytest.mark.parametrize(
    "deck",
    ["", "x" * 65, ".", "..", ".hidden", "../etc", "a/b", "a\\b", "/abs", "deck\n", "dé", "a b"],
)
def test_deck_paths_and_odd_names_rejected(deck: str) -> None:
    assert rejected(create(deck=deck)).message.startswith("create.deck:")


@pytest.mark.parametrize("password", ["", "p" * 65, 1234])
def test_bad_passwords_rejected(password: object) -> None:
    assert rejected(create(password=password)).message.startswith("create.password:")


@pytest.mark.parametrize(
    "clock",
    [
        {"initial": 9, "increment": 0},
        {"initial": 7201, "increment": 0},
        {"initial": 60, "increment": 601},
        {"initial": 60, "increment": -1},
        {"initial": 60.0, "increment": 0},
        {"initial": 60},
        {"initial": 60, "increment": 0, "delay": 2},
    ],
)
def test_bad_clocks_rejected(clock: dict[str, Any]) -> None:
    assert rejected(create(clock=clock)).message.startswith("create.clock")


def test_clock_bounds_accepted() -> None:
    for clock in ({"initial": 10, "increment": 0}, {"initial": 7200, "increment": 600}):
        assert validate_request(create(clock=clock)).clock == Clock(**clock)


# --- join, resume, watch -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("msg", "where"),
    [
        ({"t": "join"}, "join.table:"),
        ({"t": "join", "table": ""}, "join.table:"),
        ({"t": "join", "table": "x" * 33}, "join.table:"),
        ({"t": "join", "table": 7}, "join.table:"),
        ({"t": "join", "table": "t", "seat": 6}, "join.seat:"),
        ({"t": "join", "table": "t", "seat": -1}, "join.seat:"),
        ({"t": "join", "table": "t", "seat": None}, "join.seat:"),
        ({"t": "join", "table": "t", "password": ""}, "join.password:"),
        ({"t": "resume", "token": "k" * 15}, "resume.token:"),
        ({"t": "resume", "token": "k" * 129}, "resume.token:"),
        ({"t": "resume"}, "resume: give the seat's token, or the table"),
        ({"t": "resume", "table": ""}, "resume.table:"),
        ({"t": "hello", "v": 1, "name": "x", "key": b"k" * 31}, "hello.key: must be 32 bytes"),
        ({"t": "hello", "v": 1, "name": "x", "key": "k" * 32}, "hello.key: must be binary"),
        ({"t": "hello", "v": 1, "name": "x", "key": b"k" * 32}, "hello.key: is not an Ed25519"),
        ({"t": "prove", "signature": b"s" * 65}, "prove.signature: must be 64 bytes"),
        ({"t": "prove"}, "prove.signature: missing"),
        ({"t": "watch", "table": ""}, "watch.table:"),
        ({"t": "watch"}, "watch.table:"),
    ],
)
def test_bad_table_seat_and_token_fields(msg: dict[str, Any], where: str) -> None:
    assert rejected(msg).message.startswith(where)


def test_join_bounds_accepted() -> None:
    for msg in ({"t": "join", "table": "x" * 32, "seat": 0}, {"t": "join", "table": "x"}):
        assert validate_request(msg).to_wire() == msg
    assert validate_request({"t": "resume", "token": "k" * 128}).token == "k" * 128


# --- chat ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),  # ESC gone: the rest is inert text
        ("a\x9b2Jb", "a2Jb"),  # C1 CSI
        ("bell\x07 del\x7f nul\x00", "bell del nul"),
        ("two\nlines\r\nand\ttab", "two lines  and tab"),
        ("a\u2028b\x85c", "a b c"),
        ("\u202eevil\u202c \u2066iso\u2069", "evil iso"),
        ("  padded  ", "padded"),
        ("Ærsë 🦇 黒 👩\u200d👩\u200d👧", "Ærsë 🦇 黒 👩\u200d👩\u200d👧"),  # ZWJ emoji kept
        ("ad\u200bmin\u200d \u200cok\ufeff", "admin ok"),  # zero-width characters
        ("a\U000e0041\U000e007fb", "ab"),  # tag characters
        ("\u3164\u2800 blank\u115f", "blank"),  # letters that draw nothing
        ("x\u2066\u2067\u2068\u2069\u200e\u200fy", "xy"),  # isolates and direction marks
        ("\ue000private", "private"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_chat_is_cleaned() -> None:
    msg = validate_request({"t": "chat", "text": "\x1b]0;pwned\x07 hi\n"})
    assert msg.text == "]0;pwned hi"


def test_chat_length_counts_after_cleaning() -> None:
    text = "\x1b" * 50 + "x" * 280
    assert validate_request({"t": "chat", "text": text}).text == "x" * 280
    rejected({"t": "chat", "text": "x" * 281})


@pytest.mark.parametrize("text", ["", " \n\t ", "\x1b\x00\x9b", 5, None, ["hi"]])
def test_empty_or_non_text_chat_rejected(text: object) -> None:
    assert rejected({"t": "chat", "text": text}).message.startswith("chat.text:")


# --- moves ---------------------------------------------------------------------------------

cards = st.integers(0, 254)
seats = st.integers(0, 5)
valid_moves = st.one_of(
    st.fixed_dictionaries({"kind": st.just("discard_fate"), "card": cards}),
    st.fixed_dictionaries(
        {
            "kind": st.just("distribute"),
            "give": st.lists(st.lists(seats, min_size=2, max_size=2), min_size=1, max_size=6),
        }
    ),
    st.just({"kind": "draw", "source": "deck"}),
    st.fixed_dictionaries({"kind": st.just("draw"), "source": st.just("discard"), "card": cards}),
    st.fixed_dictionaries({"kind": st.just("discard_hand"), "card": cards}),
)


@given(valid_moves, st.none() | st.integers(0, 2**31 - 1))
def test_every_valid_move_shape_accepted(move: dict[str, Any], rid: int | None) -> None:
    msg = {"t": "move", "move": move} | ({} if rid is None else {"rid": rid})
    assert validate_request(decode(encode(msg))).to_wire() == msg


@pytest.mark.parametrize(
    ("move", "where"),
    [
        ({}, "move.move.kind: missing"),
        ({"kind": "pass"}, "move.move.kind:"),
        ({"kind": None}, "move.move.kind:"),
        ({"kind": "discard_fate"}, "move.move.card: missing"),
        ({"kind": "discard_fate", "card": 255}, "move.move.card:"),
        ({"kind": "discard_fate", "card": -1}, "move.move.card:"),
        ({"kind": "discard_fate", "card": "3"}, "move.move.card:"),
        ({"kind": "discard_fate", "card": 3.0}, "move.move.card:"),
        ({"kind": "discard_fate", "card": 3, "seat": 1}, "move.move: unknown field 'seat'"),
        ({"kind": "discard_hand", "cards": [1]}, "move.move: unknown field 'cards'"),
        ({"kind": "draw"}, "move.move.source: missing"),
        ({"kind": "draw", "source": "hand"}, "move.move.source:"),
        ({"kind": "draw", "source": "deck", "card": 3}, "move.move: unknown field 'card'"),
        ({"kind": "draw", "source": "discard"}, "move.move.card: missing"),
        ({"kind": "distribute"}, "move.move.give: missing"),
        ({"kind": "distribute", "give": []}, "move.move.give:"),
        ({"kind": "distribute", "give": [[0, 1]] * 7}, "move.move.give:"),
        ({"kind": "distribute", "give": {"0": 1}}, "move.move.give:"),
        ({"kind": "distribute", "give": [[0, 1], [1]]}, "move.move.give[1]:"),
        ({"kind": "distribute", "give": [[0, 1, 2]]}, "move.move.give[0]:"),
        ({"kind": "distribute", "give": [5]}, "move.move.give[0]:"),
        ({"kind": "distribute", "give": [[6, 1]]}, "move.move.give[0][0]:"),
        ({"kind": "distribute", "give": [[0, 255]]}, "move.move.give[0][1]:"),
        ("discard_fate", "move.move:"),
    ],
)
def test_bad_move_shapes_rejected(move: object, where: str) -> None:
    assert rejected({"t": "move", "move": move}).message.startswith(where)


def test_shape_not_legality_is_checked() -> None:
    # The same card to everyone is illegal, but only the engine can say so.
    move = {"kind": "distribute", "give": [[0, 7], [0, 7], [0, 7]]}
    assert validate_request({"t": "move", "move": move}).move.to_wire() == move


# --- bool is not an int --------------------------------------------------------------------

# Every integer field, as a path into a valid example (but `hello.v`: a bool there is
# another version, see test_version_of_wrong_type_is_bad_version_too).
INT_FIELDS = [
    ("list", ("rid",)),
    ("create", ("seats",)),
    ("create", ("bots",)),
    ("create", ("variants", "round_cap")),
    ("create", ("clock", "initial")),
    ("create", ("clock", "increment")),
    ("join", ("seat",)),
    ("move", ("move", "card")),
]
MOVES_WITH_INTS = [
    {"kind": "draw", "source": "discard", "card": 1},
    {"kind": "discard_hand", "card": 1},
    {"kind": "distribute", "give": [[1, 1]]},
]


def replaced(msg: dict[str, Any], path: tuple[Any, ...], value: object) -> dict[str, Any]:
    msg = copy.deepcopy(msg)
    target = msg
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return msg


@pytest.mark.parametrize(("kind", "path"), INT_FIELDS)
@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_an_int(kind: str, path: tuple[str, ...], flag: bool) -> None:
    msg = {**FULL[kind], "rid": 1}
    error = rejected(replaced(msg, path, flag))
    assert error.message == ".".join((kind, *path)) + ": must be an integer, got bool"


@pytest.mark.parametrize("move", MOVES_WITH_INTS)
def test_bool_is_not_a_card_or_seat(move: dict[str, Any]) -> None:
    for path in (("give", 0, 0), ("give", 0, 1)) if move["kind"] == "distribute" else [("card",)]:
        error = rejected({"t": "move", "move": replaced(move, path, True)})
        assert error.message.endswith("must be an integer, got bool")


# --- robustness ----------------------------------------------------------------------------

field_names = st.sampled_from(
    [
        "v",
        "name",
        "seats",
        "bots",
        "variants",
        "deck",
        "password",
        "clock",
        "table",
        "seat",
        "token",
        "move",
        "text",
        "rid",
        "kind",
        "card",
        "give",
        "source",
        "round_cap",
    ]
)
wire_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 300)
    | st.floats()
    | st.text(max_size=30)
    | st.binary(max_size=4)
    | st.sampled_from(["deck", "discard", "draw", "distribute"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(field_names | st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.sampled_from(sorted(TYPES)), st.dictionaries(field_names, wire_values, max_size=6))
def test_any_decoded_map_is_cleaned_or_rejected_with_a_code(kind: str, fields: dict) -> None:
    try:
        msg = validate_request({**fields, "t": kind})
    except ProtocolError as error:
        assert error.code in {"bad_message", "bad_version"}
        assert error.message
    else:
        assert msg.to_wire()["t"] == kind
        assert set(msg.to_wire()) <= set(fields) | {"t"}


any_wire_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=300)
    | st.binary(max_size=70),
    lambda children: st.lists(children, max_size=8) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


def paths(value: object, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a decoded map or array, its own included."""
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*here, i))
    return found


@given(st.sampled_from(sorted(FULL)), st.data())
def test_a_valid_request_changed_anywhere_reads_or_is_refused_naming_it(
    kind: str, data: st.DataObject
) -> None:
    """Whatever a peer puts anywhere in a request (a value of any wire type, nested maps,
    a key left out or added), reading it gives the typed request or a refusal with a code
    of the contract that names the request: never any other exception (issue 33 §3)."""
    msg = copy.deepcopy({**FULL[kind], "rid": 3})
    path = data.draw(st.sampled_from([p for p in paths(msg) if p and p != ("t",)]))
    target = msg
    for step in path[:-1]:
        target = target[step]
    change = data.draw(st.sampled_from(["value", "drop", "add"]))
    if change == "value":
        target[path[-1]] = data.draw(any_wire_value)
    elif change == "drop":
        del target[path[-1]]
    elif isinstance(target, dict):
        target[data.draw(st.text(max_size=8))] = data.draw(any_wire_value)
    try:
        frame = decode(encode(msg))
    except ProtocolError as error:
        assert error.code == "bad_frame"  # too deep or too big for a frame: never read
        return
    try:
        request = validate_request(frame)
    except ProtocolError as error:
        assert error.code in {"bad_message", "bad_version"}
        assert error.message.startswith(f"{kind}") or error.code == "bad_version"
    else:
        assert request.to_wire()["t"] == kind


def test_create_bot_kind_must_be_a_known_bot() -> None:
    error = rejected({**FULL["create"], "bot": "genius"})
    assert error.message.startswith("create.bot:")


def on_the_curve(key: bytes) -> bool:
    """RFC 8032 §5.1.3's decoding, step by step (the reference the check is held to)."""
    p = 2**255 - 19
    d = -121665 * pow(121666, p - 2, p) % p
    y = int.from_bytes(key, "little") & ((1 << 255) - 1)
    x_0 = key[31] >> 7
    if y >= p:
        return False
    u, v = (y * y - 1) % p, (d * y * y + 1) % p
    x = u * pow(v, 3, p) * pow(u * pow(v, 7, p), (p - 5) // 8, p) % p
    if v * x * x % p != u:
        if v * x * x % p != -u % p:
            return False
        x = x * pow(2, (p - 1) // 4, p) % p
    return not (x == 0 and x_0 == 1)


@given(st.binary(min_size=32, max_size=32))
def test_a_hello_key_is_taken_only_if_it_is_a_point_of_ed25519(key: bytes) -> None:
    """Half of all 32-byte strings are no Ed25519 public key: no signature can prove one,
    so `hello` refuses it at once (it was taken, and every `prove` then failed)."""
    hello = {"t": "hello", "v": 1, "name": "Lenore", "key": key}
    if on_the_curve(key):
        assert validate_request(hello).key == key  # type: ignore[union-attr]
    else:
        assert "is not an Ed25519 public key" in rejected(hello).message


def test_every_key_a_client_makes_is_taken() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    for _ in range(50):
        key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        assert validate_request({"t": "hello", "v": 1, "name": "Ann", "key": key})
    for y in (1, 2**255 - 19 - 1):  # x = 0: the sign bit set names no point
        edge = y.to_bytes(32, "little")
        assert validate_request({"t": "hello", "v": 1, "name": "Ann", "key": edge})
        odd = (y | 1 << 255).to_bytes(32, "little")
        assert (
            "is not an Ed25519" in rejected({"t": "hello", "v": 1, "name": "A", "key": odd}).message
        )
