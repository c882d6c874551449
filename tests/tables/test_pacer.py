"""The asyncio side of pacing (server/tables/pacer.py) on the real event loop: bots play by
themselves, and a bot that thinks long does it in a worker process, off the loop."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from protocol import requests as rq
from server.searches import Searches
from server.store.sqlite import SqliteStore
from server.tables.lobby import Lobby
from server.tables.pacer import Pacer
from server.tables.table import Settings, Table
from tests.kits.netkit import TIMEOUT
from tests.kits.tablekit import make_table


async def test_a_bot_that_thinks_long_leaves_the_loop_to_the_other_tables():
    """An ISMCTS move takes half a second of search; meanwhile a heuristic table on the
    same loop goes on playing. On the loop itself it could not make a single move."""
    moves: list[str] = []
    first_slow_move = asyncio.Event()

    def moved(table: Table) -> None:
        moves.append(table.id)
        if table.id == "slow":
            first_slow_move.set()
        pacer.arm(table)

    searches = Searches(workers=1)
    pacer = Pacer(moved, searches, ended=lambda table: None)  # all-bot tables: no votes
    slow = make_table(time.monotonic, bots=3, bot_kind="ismcts", table_id="slow")
    quick = make_table(time.monotonic, bots=3, table_id="quick")
    for table in (slow, quick):
        table.settings.bot_delay = 0.0
        assert table.start_if_full()
    assert slow.seats[0] is not None and slow.seats[0].bot_kind == "ismcts"
    pacer.arm(slow)  # armed first: its bot starts thinking first
    pacer.arm(quick)
    try:
        await asyncio.wait_for(first_slow_move.wait(), TIMEOUT)
    finally:
        pacer.close()
        searches.close()
    assert moves.index("slow") >= 3, moves


async def test_a_bot_that_fails_never_stalls_its_table(monkeypatch, caplog):
    """A bot that raises, or a seat's bot this server cannot make, is logged and the table
    plays on: the timer is armed again after every move (once it stayed disarmed for good)."""
    from server.bots.heuristic import HeuristicBot

    def broken(self: HeuristicBot, view: object) -> None:
        raise RuntimeError("a bug in the bot")

    monkeypatch.setattr(HeuristicBot, "choose", broken)
    moved_twice = asyncio.Event()
    moves: list[int] = []

    def moved(table: Table) -> None:
        moves.append(table.seq)
        if len(moves) >= 6:
            moved_twice.set()
        pacer.arm(table)

    searches = Searches(workers=1)
    pacer = Pacer(moved, searches, ended=lambda table: None)
    table = make_table(time.monotonic, bots=3, table_id="buggy")
    table.settings.bot_delay = 0.0
    assert table.start_if_full()
    seat = table.seats[1]
    assert seat is not None
    seat.bot_kind = "clairvoyant"  # type: ignore[assignment]  # no such bot: a random move
    pacer.arm(table)
    try:
        await asyncio.wait_for(moved_twice.wait(), TIMEOUT)
    finally:
        pacer.close()
        searches.close()
    assert moves == sorted(moves) and table.seq >= 6  # the game went on, move after move
    logged = [r.getMessage() for r in caplog.records]
    assert any("normal bot failed" in line for line in logged), logged
    assert any("clairvoyant bot failed" in line for line in logged), logged


def bots_paced() -> tuple[Pacer, Table, list[float], asyncio.Event]:
    """A table of three bots (and a seat) whose pacer notes when each move was made (and
    sets the event at the first), its bots due 0.05 s after a change."""
    moves: list[float] = []
    moved_once = asyncio.Event()

    def moved(table: Table) -> None:
        moves.append(time.monotonic())
        moved_once.set()

    pacer = Pacer(moved, Searches(workers=0), ended=lambda table: None)
    table = make_table(time.monotonic, bots=3)
    table.settings.bot_delay = 0.05
    return pacer, table, moves, moved_once


async def test_a_bot_waits_for_what_was_said_after_its_timer_was_armed():
    """The listener's lines come after the state that armed the bot's timer: when it fires,
    the bot waits on until they are heard (gother play --plain)."""
    pacer, table, moves, moved_once = bots_paced()
    heard = [0.0]
    table.settings.heard_by = lambda: heard[0]
    assert table.start_if_full()
    armed = time.monotonic()
    pacer.arm(table)  # due at once: nothing said yet
    heard[0] = armed + 0.5  # then the deal is said: half a second of it
    try:
        await asyncio.wait_for(moved_once.wait(), TIMEOUT)
    finally:
        pacer.close()
    assert moves[0] >= armed + 0.5


async def test_a_later_deadline_keeps_the_loop_timer_and_the_table_acts_at_it():
    """Arming lazily (issue 34 §5): a deadline pushed later keeps the loop's timer armed
    for the earlier one, which fires, finds the later one, and waits on for it; a sooner
    one replaces the timer. The table acts once, at its latest deadline, never before."""
    pacer, table, moves, moved_once = bots_paced()
    assert table.start_if_full()
    armed = time.monotonic()
    pacer.arm(table)
    early = pacer.timers[table.id]
    table.settings.bot_delay = 2.0  # due later now
    pacer.arm(table)
    assert pacer.timers[table.id] is early  # no new loop timer for a later deadline
    table.settings.bot_delay = 0.3  # sooner than that, still later than the timer armed
    pacer.arm(table)
    assert pacer.timers[table.id] is early
    try:
        await asyncio.wait_for(moved_once.wait(), TIMEOUT)
    finally:
        pacer.close()
    assert early.cancelled() is False and len(moves) == 1
    assert armed + 0.3 <= moves[0] < armed + 2.0  # the latest arming's deadline, not the first's
    table.settings.bot_delay = 10.0
    pacer.arm(table)
    late = pacer.timers[table.id]
    table.settings.bot_delay = 0.0  # due sooner than the armed timer: it is replaced
    pacer.arm(table)
    assert late.cancelled() and pacer.timers[table.id] is not late
    pacer.close()


async def test_a_bot_still_thinking_when_its_table_is_retired_plays_nowhere(caplog):
    """Players end their game (or the lobby expires it) while a hard bot's search is in a
    worker: the table is archived, and the search's answer is played nowhere. Once it was
    played on the archived table (a move written after the game's end), and re-arming its
    timer failed on seats nobody holds any more, an error in a task nobody reads."""
    store = SqliteStore(":memory:")
    settings = Settings(bot_delay=0.0)
    thinking = asyncio.Event()
    searches = Searches(workers=1)
    submit = searches.submit

    def watched(search: Any, *, urgent: bool = False) -> asyncio.Future[Any]:
        answer = submit(search, urgent=urgent)
        thinking.set()
        return answer

    searches.submit = watched  # type: ignore[method-assign]
    moves: list[int] = []

    def moved(table: Table) -> None:
        moves.append(table.seq)
        pacer.arm(table)

    pacer = Pacer(moved, searches, ended=lambda table: None)
    lobby = Lobby(store.tables, store.outcomes, settings, changed=lambda table: None)
    table = lobby.create(rq.Create(name="Crypt", seats=3, bots=3, bot="hard"))
    assert table.game is not None  # bots only: dealt at once
    pacer.arm(table)
    try:
        await asyncio.wait_for(thinking.wait(), TIMEOUT)  # the first move is being searched
        seq = table.seq
        lobby.retire(table, "the players ended the game")
        pacer.disarm(table)
        await asyncio.wait_for(asyncio.gather(*pacer.thinking), TIMEOUT)  # its answer is in
    finally:
        pacer.close()
        searches.close()
    assert table.seq == seq and moves == []  # nothing played, nobody told
    assert store.tables.game(table.id, 1)[1] == []  # the archive holds the game as it was
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
