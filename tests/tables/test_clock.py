"""The turn clock as a value (server/tables/clock.py): a seat's bank runs only while the
game waits on that seat and is not paused, never below nothing, and a move or a pause
changes only what it says it changes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.view import ClockRule
from server.tables.clock import TurnClock

RULE = ClockRule(initial=60, increment=5)
seconds = st.floats(min_value=0, max_value=10_000, allow_nan=False)
seats = st.integers(min_value=0, max_value=4)


def test_a_deal_fills_every_bank_and_begins_the_first_decision():
    assert TurnClock.dealt(RULE, 3, now=7.0) == TurnClock((60.0, 60.0, 60.0), since=7.0)
    assert TurnClock.dealt(None, 2, now=1.0).banks == (0.0, 0.0)  # no clock: patience only


@given(seat=seats, acting=seats, thought=seconds)
def test_only_the_acting_seats_bank_runs_and_never_below_nothing(seat, acting, thought):
    clock = TurnClock.dealt(RULE, 5, now=0.0)
    left = clock.bank_left(seat, acting, thought)
    assert 0.0 <= left <= 60.0
    assert left == (max(0.0, 60.0 - thought) if seat == acting else 60.0)


@given(before=seconds, during=seconds, after=seconds)
def test_a_pause_charges_the_time_thought_and_stops_the_bank(before, during, after):
    clock = TurnClock.dealt(RULE, 3, now=0.0)
    paused = clock.paused(1, charged=True, now=before)
    assert paused.banks == (60.0, max(0.0, 60.0 - before), 60.0)
    resumed_at = before + during
    assert paused.bank_left(1, 1, resumed_at) == paused.banks[1]  # a pause costs nothing
    going = paused.gone_on(resumed_at)
    assert going.paused_at is None and going.since == resumed_at
    spent = (resumed_at + after) - resumed_at  # as the clock reckons it, in floats
    assert going.bank_left(1, 1, resumed_at + after) == max(0.0, paused.banks[1] - spent)


@given(thought=seconds)
def test_a_move_earns_the_increment_and_begins_the_next_decision(thought):
    clock = TurnClock.dealt(RULE, 3, now=0.0).warn(0)
    bank = clock.bank_after(0, 0, RULE, thought)
    assert bank == max(0.0, 60.0 - thought) + 5
    moved = clock.moved(0, bank, now=thought)
    assert moved.banks == (bank, 60.0, 60.0)
    assert moved.since == thought and moved.warned is None
    assert clock.bank_after(0, 0, None, thought) is None  # no rule, no bank kept


def test_patience_is_the_bank_once_it_is_the_shorter():
    clock = TurnClock((20.0, 400.0))
    assert clock.patience(0, RULE, idle=300.0) == (20.0, True)
    assert clock.patience(1, RULE, idle=300.0) == (300.0, False)
    assert clock.patience(0, None, idle=300.0) == (300.0, False)


def test_a_warning_counts_down_only_for_the_warned_acting_seat():
    clock = TurnClock((20.0, 20.0), since=10.0).warn(0)
    assert clock.cover_warning(0, RULE, 300.0, now=15.0) == (0, 15.0)
    assert clock.cover_warning(1, RULE, 300.0, now=15.0) is None  # the game moved on
    assert clock.time_out(0).cover_warning(0, RULE, 300.0, now=15.0) is None  # covered now
    assert clock.paused(0, True, 12.0).cover_warning(0, RULE, 300.0, now=15.0) is None
