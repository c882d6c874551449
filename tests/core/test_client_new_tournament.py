"""The forms' requests (gother_tui/core/forms.py, behind the new-table and new-tournament forms
and the plain mode's `tournament new`): whatever is typed, it is either a request the
protocol takes, with what was typed, or a sentence saying what to fix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from gother_tui.core.forms import (
    DEALS,
    FATE_DISCARD,
    OVERFLOW,
    PLAY,
    table_request,
    tournament_request,
)
from protocol import validate_request
from protocol.constants import DIFFICULTIES, ROUND_CAPS, TOURNAMENT_ROUNDS
from protocol.view import Variants

typed = st.one_of(st.integers(-3, 30).map(str), st.text(max_size=4))
caps = st.one_of(st.just(""), st.integers(-1, ROUND_CAPS.stop + 1).map(str), st.text(max_size=3))


@given(
    name=st.text(max_size=40),
    rounds=typed,
    seats=typed,
    play=st.sampled_from([v for _, v in PLAY]),
    bot=st.sampled_from(list(DIFFICULTIES)),
    deals=st.sampled_from([v for _, v in DEALS]),
    fate=st.sampled_from([v for _, v in FATE_DISCARD]),
    overflow=st.sampled_from([v for _, v in OVERFLOW]),
    cap=caps,
    password=st.text(max_size=8),
)
def test_the_tournament_form_sends_what_the_protocol_takes_or_says_what_to_fix(
    name, rounds, seats, play, bot, deals, fate, overflow, cap, password
):
    try:
        request = tournament_request(
            name, rounds, seats, play, bot, deals, fate, overflow, cap, password
        )
    except ValueError as exc:
        assert str(exc)  # a sentence, never an empty refusal
        return
    assert validate_request(request.to_wire()) == request  # as the server will read it
    assert 1 <= request.rounds <= TOURNAMENT_ROUNDS and request.rounds == int(rounds)
    assert 3 <= request.seats <= 5 and request.seats == int(seats)
    assert request.duplicate is (deals == "duplicate")
    assert request.play is (play == "yes")  # the creator registers in it, or only runs it
    round_cap = int(cap) if cap.strip() else None
    assert request.variants == Variants(fate_discard=fate, overflow=overflow, round_cap=round_cap)
    assert (request.password or "") == password


@given(
    seats=typed,
    bots=typed,
    fate=st.sampled_from([v for _, v in FATE_DISCARD]),
    overflow=st.sampled_from([v for _, v in OVERFLOW]),
    cap=caps,
)
def test_the_table_form_reads_the_house_rules_as_the_tournament_form_does(
    seats, bots, fate, overflow, cap
):
    try:
        table = table_request("Crypt", seats, bots, "normal", "", fate, overflow, cap, "")
        night = tournament_request(
            "Night", "3", "4", "yes", "normal", "own", fate, overflow, cap, "x"
        )
    except ValueError as exc:
        assert str(exc)
        return
    assert validate_request(table.to_wire()) == table
    assert table.variants is not None
    rules = replace(table.variants, two_or_six=False)
    assert rules == night.variants  # one reading of the house rules for both


@pytest.mark.parametrize(
    ("rounds", "seats", "play", "deals", "cap", "fix"),
    [
        ("0", "4", "yes", "own", "", "rounds"),
        ("3", "6", "yes", "own", "", "seats"),
        ("three", "4", "yes", "own", "", "rounds"),
        ("3", "", "yes", "own", "", "seats"),
        ("3", "4", "maybe", "own", "", "play"),
        ("3", "4", "yes", "twice", "", "deals"),
        ("3", "4", "yes", "own", "0", "round_cap"),
        ("3", "4", "yes", "own", "soon", "round cap"),
    ],
)
def test_a_field_out_of_range_names_itself(rounds, seats, play, deals, cap, fix):
    with pytest.raises(ValueError, match=fix):
        tournament_request(
            "Night", rounds, seats, play, "normal", deals, "any", "draw_step", cap, "x"
        )
