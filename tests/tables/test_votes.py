"""What the people at a table decide together, and what the table warns them of: a pause
(every human present agrees; clocks and bots wait), an end to an abandoned game, and a
warning before a bot covers an idle player. The core with a hand-moved clock, then the
same over real websockets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import ProtocolError
from protocol import requests as rq
from protocol.moves import Draw
from protocol.view import ClockRule
from server.tables.pace import Due, due
from tests.kits.netkit import Client, close_all
from tests.kits.tablekit import (
    GRACE,
    IDLE,
    FakeClock,
    make_table,
    play_one,
    play_turn,
    seat_players,
)

WARN = 30.0

# -- pause --------------------------------------------------------------------------------


def test_a_game_pauses_once_every_human_present_asks_and_clocks_and_bots_wait():
    clock = FakeClock()
    table = make_table(clock, bots=1, clock_rule=ClockRule(initial=100, increment=0))
    seat_players(table)  # seats 0 and 1; seat 2 is a bot
    table.start_if_full()
    clock.advance(10)
    table.vote_pause(0, True)
    assert table.turn.paused_at is None and table.table_info().pause_votes == (0,)
    table.vote_pause(1, True)
    assert table.turn.paused_at == clock.now and table.table_info().paused
    assert table.bank_left(0, clock.now) == 90
    assert due(table) == Due(0, clock.now + table.settings.pause_max, "go_on")
    clock.advance(500)  # a long pause costs nobody's clock
    assert table.bank_left(0, clock.now) == 90
    with pytest.raises(ProtocolError) as refused:
        play_one(table)
    assert refused.value.code == "paused"
    table.vote_pause(1, False)  # going on is a vote like pausing: one alone does not
    assert table.turn.paused_at is not None and table.table_info().pause_votes == (0,)
    table.vote_pause(0, False)
    assert table.turn.paused_at is None and table.table_info().pause_votes == ()
    assert due(table) == Due(0, clock.now + 90, "clock")  # the bank runs on from 90


def test_a_pause_freezes_the_cover_of_an_absent_player_and_ends_by_itself():
    clock = FakeClock()
    table = make_table(clock)
    players = seat_players(table)
    table.start_if_full()
    play_turn(table)  # seat 1's decision
    assert table.disconnected(players[1])
    left = clock.now
    clock.advance(GRACE / 2)
    table.vote_pause(0, True)
    table.vote_pause(2, True)  # the absent player counts until the grace ends
    assert table.turn.paused_at is None
    assert due(table) == Due(1, left + GRACE, "tally")  # counted again before the cover
    clock.advance(GRACE / 2)
    assert not table.tally(clock.now)
    assert table.turn.paused_at == clock.now
    clock.advance(table.settings.pause_max)
    pause = due(table)
    assert pause is not None and pause.why == "go_on" and pause.at <= clock.now
    table.go_on(clock.now)
    assert due(table) == Due(1, left + GRACE + table.settings.pause_max, "cover")
    assert table.covered(1, clock.now)  # its grace ran out before the pause


def test_only_a_game_in_progress_can_be_paused_or_ended():
    table = make_table(FakeClock())
    seat_players(table)
    for vote in (lambda: table.vote_pause(0, True), lambda: table.vote_end(0)):
        with pytest.raises(ProtocolError) as refused:
            vote()
        assert refused.value.code == "not_started"


# -- the idle warning ---------------------------------------------------------------------


def test_an_idle_player_is_warned_before_a_bot_finishes_their_turn():
    clock = FakeClock()
    table = make_table(clock, warn=WARN)
    seat_players(table)
    table.start_if_full()
    began = clock.now
    assert due(table) == Due(0, began + IDLE - WARN, "warn")
    assert table.table_info().warning is None
    clock.advance(IDLE - WARN)
    seq = table.seq
    table.warn(0)
    assert table.seq == seq + 1  # everyone is told
    warning = table.table_info().warning
    assert warning is not None and (warning.seat, warning.seconds) == (0, WARN)
    assert due(table) == Due(0, began + IDLE, "idle")
    play_one(table)  # acting clears the warning and starts a new decision's patience
    assert table.table_info().warning is None
    assert table.game is not None
    assert due(table) == Due(table.game.to_act(), clock.now + IDLE - WARN, "warn")


def test_a_short_clock_gets_a_short_warning():
    clock = FakeClock()
    table = make_table(clock, warn=WARN, clock_rule=ClockRule(initial=20, increment=0))
    seat_players(table)
    table.start_if_full()
    assert due(table) == Due(0, clock.now + 10, "warn")  # half the bank, not 30 s


# -- over the wire ------------------------------------------------------------------------


async def two_humans_and_a_bot(url: str) -> tuple[str, list[Client]]:
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Votes", seats=3, bots=1)))["table"]
    await host.close()
    players = []
    for seat in range(2):
        player = await Client.connect(url, f"P{seat}")
        assert (await player.ask(rq.Join(table=table, seat=seat)))["t"] == "joined"
        players.append(player)
    for player in players:
        await player.state(lambda v: v["phase"] != "lobby")
    return table, players


async def test_pause_and_go_on_over_the_wire(server, url):
    table, (p0, p1) = await two_humans_and_a_bot(url)
    reply = await p0.ask(rq.Pause(on=True))
    assert reply["t"] == "state" and reply["view"]["table"]["pause_votes"] == [0]
    assert "paused" not in reply["view"]["table"]
    reply = await p1.ask(rq.Pause(on=True))
    assert reply["view"]["table"]["paused"] is True
    seen = await p0.state(lambda v: v["table"].get("paused", False))
    legal = seen["legal"]
    assert legal is not None  # seat 0 deals and acts first
    refused = await p0.ask(rq.Play(move=Draw(source="deck")))
    assert refused["t"] == "error" and refused["code"] == "paused", refused
    assert server.lobby.tables[table].turn.paused_at is not None
    reply = await p0.ask(rq.Pause(on=False))
    assert reply["view"]["table"]["paused"] is True  # one player's "go on" is one vote
    reply = await p1.ask(rq.Pause(on=False))
    assert "paused" not in reply["view"]["table"]
    await close_all(p0, p1)


async def test_a_game_both_players_end_is_closed_archived_and_kept_as_a_record(server, url):
    table, (p0, p1) = await two_humans_and_a_bot(url)
    reply = await p0.ask(rq.End())
    assert reply["t"] == "state" and reply["view"]["table"]["end_votes"] == [0]
    rid = await p1.tell(rq.End())
    for player in (p0, p1):
        closed = await player.next(lambda m: m["t"] == "closed")
        assert closed["table"] == table and "ended" in closed["reason"]
    assert not any(m.get("rid") == rid and m["t"] == "error" for m in p1.received)
    assert table not in server.lobby.tables
    assert server.store.tables.ended(table, 1) == "abandoned"
    record = await p0.ask(rq.Record(table=table))
    assert record["t"] == "record" and record["game"] == 1, record
    again = await p0.ask(rq.Play(move=Draw(source="deck")))
    assert again["t"] == "error" and again["code"] == "not_seated"
    await close_all(p0, p1)


@pytest.mark.parametrize("config", [{"idle": 0.6}], indirect=True)
async def test_an_idle_player_sees_the_warning_then_a_bot_plays_their_turn(server, url):
    _, (p0, p1) = await two_humans_and_a_bot(url)
    warned = await p0.state(lambda v: v["table"].get("warning") is not None)
    assert warned["table"]["warning"]["seat"] == 0 and warned["to_act"] == 0
    assert 0 < warned["table"]["warning"]["seconds"] <= 0.3  # half the patience, at most
    covered = await p1.state(lambda v: v["turn"] != 0)
    assert covered["players"][0]["connected"] is True  # present, but a bot played that turn
    await close_all(p0, p1)


# -- votes and absent players (issue 18, item 4) -----------------------------------------


def test_an_end_vote_waits_for_an_absent_player_until_the_grace_ends():
    clock = FakeClock()
    table = make_table(clock, bots=1)
    players = seat_players(table)  # seats 0 and 1; seat 2 is a bot
    table.start_if_full()  # seat 0 to act
    assert table.disconnected(players[1])
    left = clock.now
    assert not table.vote_end(0)  # the absent player still counts
    assert table.table_info().end_votes == (0,)
    assert due(table) == Due(0, left + GRACE, "tally")
    clock.advance(GRACE - 0.1)
    assert not table.tally(clock.now)
    clock.advance(0.1)
    assert table.tally(clock.now)  # the grace is over: the vote of those left carries


def test_an_absent_players_return_keeps_the_vote_open():
    clock = FakeClock()
    table = make_table(clock, bots=1)
    players = seat_players(table)
    table.start_if_full()
    assert table.disconnected(players[1])
    assert not table.vote_end(0)
    clock.advance(GRACE / 2)
    table.resume(players[1], 1)  # back: nothing is due for the vote any more
    assert due(table) is not None and due(table).why != "tally"
    clock.advance(GRACE)
    assert not table.tally(clock.now)
    assert table.table_info().end_votes == (0,)


def test_going_on_waits_for_an_absent_voter_then_counts_without_them():
    clock = FakeClock()
    table = make_table(clock, bots=1)
    players = seat_players(table)
    table.start_if_full()
    table.vote_pause(0, True)
    table.vote_pause(1, True)
    assert table.turn.paused_at is not None
    assert table.disconnected(players[1])
    left = clock.now
    table.vote_pause(0, False)
    assert table.turn.paused_at is not None  # the absent player's "pause" still counts
    assert due(table) == Due(0, left + GRACE, "tally")
    clock.advance(GRACE)
    table.tally(clock.now)
    assert table.turn.paused_at is None


def test_a_player_back_after_a_pause_they_never_agreed_to_ends_it_by_going_on():
    """Seat 1 is away past the grace; seat 0 pauses alone. Seat 1 comes back and says go
    on: that voter never agreed to the pause, so it ends (it stayed paused for as long as
    seat 0 kept its vote)."""
    clock = FakeClock()
    table = make_table(clock, bots=1)
    players = seat_players(table)
    table.start_if_full()
    assert table.disconnected(players[1])
    clock.advance(GRACE)  # seat 1 no longer counts
    table.vote_pause(0, True)
    assert table.turn.paused_at is not None
    clock.advance(10)
    table.resume(players[1], 1)
    table.vote_pause(1, False)
    assert table.turn.paused_at is None and table.table_info().pause_votes == ()


def test_a_pause_its_voters_agreed_to_still_needs_them_all_to_go_on():
    """The voters of a pause still end it only together (a vote alike), whoever came back."""
    clock = FakeClock()
    table = make_table(clock, bots=0)
    players = seat_players(table)  # three players
    table.start_if_full()
    assert table.disconnected(players[2])
    clock.advance(GRACE)
    table.vote_pause(0, True)
    table.vote_pause(1, True)
    table.resume(players[2], 2)
    table.vote_pause(1, False)
    assert table.turn.paused_at is not None  # seat 0 still holds its pause
    table.vote_pause(2, True)  # the newcomer agrees after all: nothing changes
    assert table.turn.paused_at is not None


def test_a_pause_nobody_is_left_to_hold_ends():
    """The only player paused, then left the game (a bot has the seat) or stayed away past
    the grace: the pause ends, and the bots play on (it held for the hour it may last)."""
    for gone in ("leave", "away"):
        clock = FakeClock()
        table = make_table(clock, bots=2)
        (player,) = seat_players(table)
        table.start_if_full()
        table.vote_pause(0, True)
        assert table.turn.paused_at is not None
        if gone == "leave":
            table.leave(player)
            assert due(table) == Due(0, clock.now, "tally")
        else:
            table.disconnected(player)
            assert due(table) == Due(0, clock.now + GRACE, "tally")  # a blip keeps it
            clock.advance(GRACE)
        table.tally(clock.now)
        assert table.turn.paused_at is None, gone
        assert due(table) is not None and due(table).why in ("bot", "cover"), gone


@pytest.mark.parametrize("config", [{"grace": 60.0}], indirect=True)
async def test_a_griefers_end_vote_during_a_blip_does_not_end_the_game(server, url):
    table, (griefer, victim) = await two_humans_and_a_bot(url)
    token = next(m["token"] for m in victim.received if m["t"] == "joined")
    await victim.close()  # the victim's connection drops
    await griefer.state(lambda v: not v["players"][1]["connected"])
    reply = await griefer.ask(rq.End())
    assert reply["t"] == "state" and reply["view"]["table"]["end_votes"] == [0], reply
    back = await Client.connect(url, "P1")
    joined = await back.ask(rq.Resume(token=token))
    assert joined["t"] == "joined" and joined["seat"] == 1, joined  # inside the grace
    view = await back.state(lambda v: v["players"][1]["connected"])
    assert view["table"]["end_votes"] == [0] and table in server.lobby.tables
    assert not any(m["t"] == "closed" for m in griefer.received + back.received)
    await close_all(griefer, back)


@pytest.mark.parametrize("config", [{"grace": 0.5}], indirect=True)
async def test_an_end_vote_carries_once_the_absent_players_grace_is_over(server, url):
    table, (p0, p1) = await two_humans_and_a_bot(url)
    await p1.close()
    await p0.state(lambda v: not v["players"][1]["connected"])
    reply = await p0.ask(rq.End())
    assert reply["t"] == "state" and reply["view"]["table"]["end_votes"] == [0], reply
    closed = await p0.next(lambda m: m["t"] == "closed")
    assert closed["table"] == table and "ended" in closed["reason"]
    assert table not in server.lobby.tables
    assert server.store.tables.ended(table, 1) == "abandoned"
    await close_all(p0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["end", "pause", "go_on", "drop", "back", "wait"]),
            st.integers(0, 2),
            st.floats(0, GRACE, allow_nan=False),
        ),
        max_size=25,
    )
)
def test_no_vote_carries_without_a_player_still_within_the_grace(steps):
    """Whatever the order of drops, returns, votes and waits: the game ends, pauses or goes
    on only with the vote of every player present or away for less than the grace."""
    clock = FakeClock()
    table = make_table(clock)
    players = seat_players(table)
    table.start_if_full()

    def within(seat: int) -> bool:
        holder = table.seats[seat]
        assert holder is not None
        return holder.away_since is None or clock.now - holder.away_since < GRACE

    for what, seat, seconds in steps:
        holder = table.seats[seat]
        assert holder is not None
        was_paused = table.turn.paused_at is not None
        present = holder.peer is not None
        for_pause = {s: bool(table.seats[s].pause) for s in range(3)}  # before this step
        # the grace of the votes runs through a pause, but go_on then moves an absent
        # player's away_since by the pause (their cover's clock stood still): judge who
        # counted by the times the votes were counted with, those before this step
        away = {s: h.away_since for s, h in enumerate(table.seats) if h is not None}
        if what == "go_on" and present:
            for_pause[seat] = False
        ended = False
        if what == "end" and present:
            ended = table.vote_end(seat)
        elif what in ("pause", "go_on") and present:
            table.vote_pause(seat, what == "pause")
        elif what == "drop" and present:
            table.disconnected(players[seat])
        elif what == "back" and not present and within(seat):
            table.resume(players[seat], seat)
        elif what == "wait":
            clock.advance(seconds)
            ended = table.tally(clock.now)
        counted = [s for s in range(3) if away[s] is None or clock.now - away[s] < GRACE]
        if ended:
            assert all(table.seats[s].end for s in counted)
            return
        if table.turn.paused_at is not None and not was_paused:
            assert all(table.seats[s].pause for s in counted)
        if was_paused and table.turn.paused_at is None:  # go_on clears the flags: look before
            assert not any(for_pause[s] for s in counted)
