"""Error codes are a stable contract, and docs/protocol.md documents all of them."""

import re
from pathlib import Path

import pytest

from protocol import ERROR_CODES, ProtocolError
from protocol.requests import TYPES as REQUESTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

CONTRACT_CODES = {
    "bad_frame",
    "bad_message",
    "bad_version",
    "not_your_turn",
    "illegal_move",
    "game_over",
    "table_full",
    "no_such_table",
    "no_such_seat",
    "seat_taken",
    "bad_token",
    "wrong_password",
    "too_many_attempts",
    "rate_limited",
    "not_seated",
    "already_started",
    "not_started",
    "too_many_tables",
    "bad_deck",
    "hello_first",
    "no_spectators",
    "store_failed",
    "table_stopped",
    "table_broken",
    "paused",
    "too_many_seats",
    "no_record",
    "no_such_turn",
    "name_taken",
    "no_tournaments",
    "no_such_tournament",
    "not_organiser",
    "not_registered",
    "no_standings",
    "busy",
    "thinking",
    "search_failed",
    "bad_door",  # issue 18: a door's claim this server's doors did not sign
    "bad_signature",
    "server_error",
    "elsewhere",  # issue 34 §2: a table held by another process of the host, at `url`
}


def test_codes_are_exactly_the_contract() -> None:
    assert ERROR_CODES == CONTRACT_CODES


def test_protocol_error_carries_code_and_message() -> None:
    error = ProtocolError("seat_taken", "Seat 2 is taken.")
    assert (error.code, error.message) == ("seat_taken", "Seat 2 is taken.")
    assert str(error) == "seat_taken: Seat 2 is taken."


def test_unknown_code_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        ProtocolError("oops", "no such code")  # type: ignore[arg-type]


@pytest.mark.parametrize("code", sorted(CONTRACT_CODES))
def test_every_code_has_a_row_in_the_docs(code: str) -> None:
    assert re.search(rf"^\| `{code}` +\| \S", DOC.read_text(encoding="utf-8"), re.MULTILINE)


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_every_client_message_has_a_section_in_the_docs(kind: str) -> None:
    assert f"\n### `{kind}`" in DOC.read_text(encoding="utf-8")


def rid_replies() -> dict[str, str]:
    """docs/protocol.md's table under *Request ids*: each request type and its reply."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("| request   | the reply carrying its `rid`")[1].split("\n\n")[0]
    rows = {}
    for line in table.splitlines()[2:]:  # below the header's rule
        requests, reply = line.strip().strip("|").split("|")[:2]
        rows.update((kind, reply.strip()) for kind in re.findall(r"`(\w+)`", requests))
    return rows


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_every_request_type_names_the_reply_that_carries_its_rid(kind: str) -> None:
    assert re.search(r"`\w+`", rid_replies().get(kind, "")), kind
