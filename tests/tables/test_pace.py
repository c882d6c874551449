"""Who must act next, when and why (server/tables/pace.py), on a table core with a hand-moved
clock: a bot's pace, an absent player covered after the grace, a clock that runs out."""

from __future__ import annotations

from protocol.view import ClockRule
from server.game import Variants
from server.tables.pace import Due, due
from tests.kits.tablekit import (
    BOT_DELAY,
    GRACE,
    IDLE,
    FakeClock,
    Keeper,
    make_table,
    play_one,
    play_turn,
    seat_players,
)


def test_nothing_is_due_before_the_deal_or_after_the_game():
    clock = FakeClock()
    table = make_table(clock, bots=3, variants=Variants(round_cap=1))
    assert due(table) is None  # bots only, but not dealt yet
    assert table.start_if_full()
    assert due(table) is not None
    for _ in range(500):
        if table.game is not None and table.game.over:
            break
        play_one(table)
    assert table.game is not None and table.game.over
    assert due(table) is None


def test_a_present_player_without_a_clock_is_waited_for_until_their_patience_runs_out():
    clock = FakeClock()
    table = make_table(clock)
    seat_players(table)
    table.start_if_full()
    began = clock.now
    assert due(table) == Due(0, began + IDLE, "idle")
    clock.advance(IDLE - 1)
    assert due(table) == Due(0, began + IDLE, "idle") and not table.covered(0, clock.now)
    play_one(table)  # any move starts the next decision's patience afresh
    assert table.game is not None
    assert due(table) == Due(table.game.to_act(), clock.now + IDLE, "idle")


def test_a_bot_moves_its_delay_after_the_decision_began_whatever_happens_meanwhile():
    clock = FakeClock()
    table = make_table(clock, bots=2)
    (p0,) = seat_players(table)  # seat 0, who deals and plays first (R4)
    table.start_if_full()
    clock.advance(5)
    play_turn(table)
    assert table.game is not None and table.game.to_act() == 1
    began = clock.now
    assert due(table) == Due(1, began + BOT_DELAY, "bot")
    clock.advance(0.3)
    assert table.disconnected(p0)  # a change, but not a new decision
    assert due(table) == Due(1, began + BOT_DELAY, "bot")
    clock.advance(0.5)
    play_one(table)  # the bot's move: the next decision has its own delay
    now_acting = table.game.to_act()
    assert now_acting in (1, 2)  # seat 1 goes on, or its turn passed to the other bot
    assert due(table) == Due(now_acting, clock.now + BOT_DELAY, "bot")


def test_an_absent_player_is_covered_once_the_grace_is_over_until_they_resume():
    clock = FakeClock()
    table = make_table(clock)
    players = seat_players(table)
    table.start_if_full()
    play_turn(table)  # seat 1's decision now
    assert table.disconnected(players[2])  # absent, but not their decision
    assert due(table) == Due(1, clock.now + IDLE, "idle")  # seat 1 is there and thinking
    clock.advance(2)
    left = clock.now
    assert table.disconnected(players[1])
    assert due(table) == Due(1, left + GRACE, "cover")
    clock.advance(GRACE - 0.1)
    assert not table.covered(1, clock.now)
    assert due(table) == Due(1, left + GRACE, "cover")
    clock.advance(0.1)
    assert table.covered(1, clock.now)
    table.resume(Keeper("P1 again"), 1)
    assert not table.covered(1, clock.now)
    assert due(table) == Due(1, table.decision_since + IDLE, "idle")  # theirs again


def test_a_player_who_left_for_good_is_played_by_a_bot_at_a_bots_pace():
    clock = FakeClock()
    table = make_table(clock)
    players = seat_players(table)
    table.start_if_full()
    assert table.leave(players[1])
    play_turn(table)
    assert table.game is not None and table.game.to_act() == 1
    assert due(table) == Due(1, clock.now + BOT_DELAY, "bot")


def test_a_clock_is_due_when_the_bank_runs_out_and_moves_earn_the_increment():
    clock = FakeClock()
    table = make_table(clock, clock_rule=ClockRule(initial=30, increment=5))
    players = seat_players(table)
    table.start_if_full()
    began = clock.now
    assert due(table) == Due(0, began + 30, "clock")
    clock.advance(10)
    assert table.disconnected(players[2])  # presence changes do not reset a running clock
    assert due(table) == Due(0, began + 30, "clock")
    assert table.bank_left(0, clock.now) == 20
    play_one(table)
    assert table.seats[0] is not None and table.seats[0].bank == 25  # 30 - 10 + 5
    assert table.game is not None
    acting = table.game.to_act()
    assert acting is not None
    bank = 25 if acting == 0 else 30  # its own next decision, or the next player's
    assert due(table) == Due(acting, clock.now + bank, "clock")


def test_once_a_clock_ran_out_bots_finish_that_turn_at_once_and_only_that_turn():
    clock = FakeClock()
    table = make_table(clock, clock_rule=ClockRule(initial=10, increment=5))
    seat_players(table)
    table.start_if_full()
    began = clock.now
    clock.advance(10)
    ran_out = due(table)
    assert ran_out == Due(0, began + 10, "clock") and ran_out.at <= clock.now
    table.time_out(0)
    assert table.covered(0, clock.now)
    assert due(table) == Due(0, began, "clock")  # at once
    play_one(table)
    assert table.game is not None
    while table.game.to_act() == 0:
        assert due(table) == Due(0, clock.now, "clock") and table.covered(0, clock.now)
        play_one(table)
    # the turn is over: the player is back on their clock, which the moves refilled
    assert table.timed_out is None and not table.covered(0, clock.now)
    assert due(table) == Due(1, clock.now + 10, "clock")
    play_turn(table)
    play_turn(table)
    assert table.game.to_act() == 0
    holder = table.seats[0]
    assert holder is not None and holder.bank >= 5
    assert due(table) == Due(0, clock.now + holder.bank, "clock")


def test_a_bot_also_waits_until_the_listener_has_heard_the_last_line():
    """Issue 29 §7 (gother play --plain): a bot moves its delay after the decision began,
    or once the listener has heard what was said, whichever is later."""
    clock = FakeClock()
    heard: list[float] = [0.0]
    table = make_table(clock, bots=3)
    table.settings.heard_by = lambda: heard[0]
    table.start_if_full()
    began = clock.now
    assert due(table) == Due(0, began + BOT_DELAY, "bot")  # nothing left to hear
    heard[0] = began + 7.5  # the deal's lines take seven and a half seconds to say
    assert due(table) == Due(0, began + 7.5, "bot")
