"""The new-tournament form's request (gother_tui/screens/new_tournament.py): whatever is
typed, it is either a `tournament_create` the protocol takes, with what was typed, or a
sentence saying what to fix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gother_tui.screens.create_table import FATE_DISCARD, OVERFLOW
from gother_tui.screens.new_tournament import DEALS, build_request
from protocol import validate_request
from protocol.constants import DIFFICULTIES, TOURNAMENT_ROUNDS

typed = st.one_of(st.integers(-3, 30).map(str), st.text(max_size=4))


@given(
    name=st.text(max_size=40),
    rounds=typed,
    seats=typed,
    bot=st.sampled_from(list(DIFFICULTIES)),
    deals=st.sampled_from([v for _, v in DEALS]),
    fate=st.sampled_from([v for _, v in FATE_DISCARD]),
    overflow=st.sampled_from([v for _, v in OVERFLOW]),
    password=st.text(max_size=8),
)
def test_the_form_sends_what_the_protocol_takes_or_says_what_to_fix(
    name, rounds, seats, bot, deals, fate, overflow, password
):
    try:
        request = build_request(name, rounds, seats, bot, deals, fate, overflow, password)
    except ValueError as exc:
        assert str(exc)  # a sentence, never an empty refusal
        return
    assert validate_request({"t": "tournament_create", **request})
    assert 1 <= request["rounds"] <= TOURNAMENT_ROUNDS and request["rounds"] == int(rounds)
    assert 3 <= request["seats"] <= 5 and request["seats"] == int(seats)
    assert request["duplicate"] is (deals == "duplicate")
    assert request["variants"] == {"fate_discard": fate, "overflow": overflow}
    assert request.get("password", "") == password


@pytest.mark.parametrize(
    ("rounds", "seats", "fix"),
    [("0", "4", "rounds"), ("3", "6", "seats"), ("three", "4", "rounds"), ("3", "", "seats")],
)
def test_a_field_out_of_range_names_itself(rounds, seats, fix):
    with pytest.raises(ValueError, match=fix):
        build_request("Night", rounds, seats, "normal", "own", "any", "draw_step", "leave")
