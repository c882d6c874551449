"""Searches in worker processes (server/searches.py), on real processes and a real server:
a worker that dies is replaced and its hint answers an error, a full queue answers `busy`
at once, a hard bot whose search fails plays as the normal bot, and a hard-bot table keeps
its pace while hints are asked back to back. A worker is frozen with SIGSTOP where a test
needs a search to be still running when it looks."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import pytest

from protocol import requests as rq
from server import searches as the_pool
from server.edge.app import GotherServer
from server.searches import LATE, Busy, Searches, SearchFailed
from server.tables import hint
from tests.kits.netkit import TIMEOUT, Client, close_all, first_legal_move
from tests.kits.poll import until
from tests.tables.test_hints import COLD, hinted, seated_at_bots

ONE_WORKER = {"search_workers": 1}


@dataclass(frozen=True)
class Echo:
    """A search that answers its own value (or fails, if it is an exception)."""

    value: object
    think: float = 0.0

    def run(self) -> object:
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


@dataclass(frozen=True)
class Spin:
    """A search that never ends: it spins a core."""

    think: float = 0.1

    def run(self) -> object:
        while True:
            pass


@dataclass(frozen=True)
class Gate:
    """A search that answers once a byte comes down the pipe whose read end it holds (a
    worker forked from the test inherits it)."""

    read_end: int
    think: float = 0.0

    def run(self) -> object:
        return os.read(self.read_end, 1)


def _a_worker(pool_end: Connection, worker_end: Connection) -> None:
    pool_end.close()  # forked, the worker holds both ends: only the pool's may keep it open
    the_pool._serve(worker_end)


def test_a_worker_whose_pool_died_mid_search_ends_quietly() -> None:
    """A game process killed -9 leaves its workers searching: each ends when it would answer,
    with no traceback of a broken pipe in the host's log (exit code 0, not 1)."""
    context = multiprocessing.get_context("fork")  # the worker inherits the gate's pipe
    gate_read, gate_write = os.pipe()
    ours, theirs = context.Pipe()
    worker = context.Process(target=_a_worker, args=(ours, theirs))
    worker.start()
    theirs.close()
    ours.send(Gate(gate_read))
    ours.close()  # the pool is gone while the worker searches
    os.write(gate_write, b"x")
    worker.join(TIMEOUT)
    os.close(gate_read)
    os.close(gate_write)
    assert worker.exitcode == 0


def the_worker(searches: Searches) -> int:
    (worker,) = searches.workers
    assert worker.process.pid is not None
    return worker.process.pid


@contextmanager
def frozen(pid: int) -> Iterator[None]:
    """The worker stopped (its jobs wait in its pipe) until the block ends."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        with suppress(ProcessLookupError):  # unless it was killed meanwhile
            os.kill(pid, signal.SIGCONT)


def running(searches: Searches) -> int:
    return sum(worker.job is not None for worker in searches.workers)


async def next_state(client: Client, after: int, wait: float = TIMEOUT) -> dict[str, Any]:
    """The next `state` message of a change after `after` (a seq), within `wait`."""
    return await client.next(lambda m: m["t"] == "state" and m["seq"] > after, wait)


async def watch_hard_bots(url: str) -> tuple[Client, dict[str, Any]]:
    """A spectator at a table of three hard bots, and the state of their first move (its
    search waits for a worker to start: on a loaded machine, many seconds)."""
    watcher = await Client.connect(url, "Watcher")
    created = await watcher.ask(rq.Create(name="Hard", seats=3, bots=3, bot="hard"))
    assert (await watcher.ask(rq.Watch(table=created["table"])))["t"] == "watching"
    state = await watcher.next(lambda m: m["t"] == "state" and m["view"]["phase"] != "lobby")
    return watcher, await next_state(watcher, state["seq"], COLD)


# -- the pool itself ---------------------------------------------------------------------


async def test_answers_come_back_and_a_failing_search_fails_only_its_job(
    caplog: pytest.LogCaptureFixture,
):
    searches = Searches(workers=1)
    try:
        assert await searches.submit(Echo("first")) == "first"
        with pytest.raises(SearchFailed, match="no such card"):
            await searches.submit(Echo(ValueError("no such card")))
        assert any("no such card" in r.getMessage() for r in caplog.records)  # the bug, logged
        assert await searches.submit(Echo("after")) == "after"  # the same worker goes on
        assert searches.replaced == 0 and len(searches.workers) == 1
    finally:
        searches.close()


async def test_a_table_s_search_goes_ahead_of_hints_and_a_long_wait_is_refused_at_once():
    searches = Searches(workers=1, queue=8, max_wait=1.0)
    try:
        await searches.submit(Echo("warm"))
        done: list[str] = []
        with frozen(the_worker(searches)):
            first = searches.submit(Echo("running", think=0.6))
            hints = [searches.submit(Echo(f"hint {i}", think=0.6)) for i in range(2)]
            with pytest.raises(Busy, match=r"wait 1\.2 s"):  # behind two hints of 0.6 s
                searches.submit(Echo("hint 3", think=0.6))
            bot = searches.submit(Echo("bot", think=0.6), urgent=True)  # no hint is ahead
            for answer in (first, *hints, bot):
                answer.add_done_callback(lambda f: done.append(f.result()))
        await asyncio.wait_for(asyncio.gather(first, *hints, bot), TIMEOUT)
        assert done == ["running", "bot", "hint 0", "hint 1"]
    finally:
        searches.close()


@dataclass(frozen=True)
class Nap:
    """A search that thinks for real: it sleeps its `think`."""

    think: float

    def run(self) -> float:
        time.sleep(self.think)
        return self.think


async def test_a_hint_overtaken_by_the_tables_searches_is_answered_busy_in_time():
    """A stream of bots' moves, each ahead of every hint, never leaves the worker idle: the
    hint accepted behind a short wait is refused once it has waited LATE times that to
    begin, while the bots' moves go on. It used to wait for as long as the stream lasted."""
    searches = Searches(workers=1, max_wait=0.3)
    try:
        await searches.submit(Echo("warm"))
        bots = [searches.submit(Nap(0.1), urgent=True)]
        hint = searches.submit(Echo("hint", think=0.1))
        asked = time.monotonic()
        while not hint.done():
            assert time.monotonic() - asked < TIMEOUT, "the hint was never answered"
            bots.append(searches.submit(Nap(0.1), urgent=True))  # one always waits
            await asyncio.wait_for(bots[-2], TIMEOUT)
        waited = time.monotonic() - asked
        with pytest.raises(Busy, match="not begun"):
            hint.result()
        assert LATE * 0.3 <= waited < LATE * 0.3 + 1.0
        assert await asyncio.wait_for(bots[-1], TIMEOUT) == 0.1  # the bots go on
    finally:
        searches.close()


async def test_a_full_queue_is_busy_whatever_the_waits():
    searches = Searches(workers=1, queue=2, max_wait=100.0)
    try:
        await searches.submit(Echo("warm"))
        with frozen(the_worker(searches)):
            waiting = [searches.submit(Echo(i)) for i in range(3)]  # one runs, two wait
            with pytest.raises(Busy, match="2 searches are waiting"):
                searches.submit(Echo("one too many"))
        assert await asyncio.wait_for(asyncio.gather(*waiting), TIMEOUT) == [0, 1, 2]
    finally:
        searches.close()


async def test_a_worker_is_stuck_when_its_job_spends_its_cpu_not_when_it_waits_for_a_core(
    monkeypatch: pytest.MonkeyPatch,
):
    """The deadline counts the worker's CPU time: one frozen past it (as a niced worker on a
    busy machine waits for a core) is looked at again and answers; one spinning is killed."""
    monkeypatch.setattr(the_pool, "OVERRUN", 0.3)
    monkeypatch.setattr(the_pool, "SLOWER", 1)
    searches = Searches(workers=1)
    try:
        await asyncio.wait_for(searches.submit(Echo("warm")), COLD)  # no start's slack now
        (worker,) = searches.workers
        with frozen(the_worker(searches)):
            late = searches.submit(Echo("late", think=0.1))
            first = worker.deadline
            await until("looked at again", lambda: worker.deadline not in (first, None))
            again = worker.deadline
            await until("and again", lambda: worker.deadline not in (again, None))
        assert await asyncio.wait_for(late, TIMEOUT) == "late"
        assert searches.replaced == 0
        with pytest.raises(SearchFailed, match="overran its deadline"):
            await asyncio.wait_for(searches.submit(Spin()), COLD)
        assert searches.replaced == 1
        assert await asyncio.wait_for(searches.submit(Echo("after")), COLD) == "after"
    finally:
        searches.close()


# -- through the server ------------------------------------------------------------------


@pytest.mark.parametrize("config", [ONE_WORKER], indirect=True)
async def test_a_killed_worker_is_replaced_and_its_hint_answers_an_error(
    server: GotherServer, url: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(hint, "PATIENCE", TIMEOUT / 2)  # its answer, not `thinking` meanwhile
    monkeypatch.setattr(the_pool, "OVERRUN", 10 * TIMEOUT)  # frozen is not stuck, however long
    warm = await seated_at_bots(url, "normal", searched=True)
    warmed = await hinted(warm)
    assert warmed["t"] == "hint", warmed  # the worker is up
    player = await seated_at_bots(url, "normal", searched=True)  # a position not kept
    killed = the_worker(server.searches)
    with frozen(killed):
        rid = await player.tell(rq.Hint())
        await until("the hint on the frozen worker", lambda: running(server.searches) == 1)
        os.kill(killed, signal.SIGKILL)
        failed = await player.next(lambda m: m.get("rid") == rid)
    assert failed["t"] == "error" and failed["code"] == "search_failed", failed
    assert "ask again" in failed["message"]
    assert server.searches.replaced == 1
    assert the_worker(server.searches) != killed  # a fresh worker in its place
    again = await hinted(player)  # the decision still waits: nothing changed
    assert again["t"] == "hint", again
    await close_all(warm, player)


# a long wait allowed: the frozen worker holds the queued hint while the test looks
@pytest.mark.parametrize(
    "config", [{"search_workers": 1, "search_queue": 1, "search_wait": 5.0}], indirect=True
)
async def test_a_hint_the_searches_cannot_take_is_busy_at_once(
    server: GotherServer,
    url: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
):
    """Refused at once, and not logged: a spammer's refusals would flood the log."""
    monkeypatch.setattr(the_pool, "OVERRUN", 10 * TIMEOUT)  # frozen is not stuck, however long
    caplog.set_level(logging.INFO, "gother.server")
    *players, warm = [await seated_at_bots(url, "normal", searched=True) for _ in range(4)]
    assert (await hinted(warm))["t"] == "hint"  # the worker is up
    with frozen(the_worker(server.searches)):
        thinking = await players[0].tell(rq.Hint())  # on the frozen worker
        await until("one search running", lambda: running(server.searches) == 1)
        queued = await players[1].tell(rq.Hint())
        await until("one search waiting", lambda: len(server.searches.waiting) == 1)
        refused = await players[2].ask(rq.Hint())
        assert refused["t"] == "error" and refused["code"] == "busy", refused
        assert "ask again" in refused["message"]
        assert not [r for r in caplog.records if "busy" in r.getMessage()]
    for player, rid in ((players[0], thinking), (players[1], queued)):
        reply = await player.next(lambda m, rid=rid: m.get("rid") == rid)
        if reply.get("code") == "thinking":  # a loaded machine: past its patience, kept
            reply = await hinted(player)
        assert reply["t"] == "hint", reply
    assert (await hinted(players[2]))["t"] == "hint"  # room again
    await close_all(warm, *players)


@pytest.mark.parametrize("config", [ONE_WORKER], indirect=True)
async def test_a_hint_not_thought_in_time_says_thinking_and_comes_when_asked_again(
    server: GotherServer, url: str, monkeypatch: pytest.MonkeyPatch
):
    """Issue 30 §1: an answer within PATIENCE, the hint or `thinking`; the search goes
    on, and asked again the hint comes from what is kept, at once."""
    monkeypatch.setattr(the_pool, "OVERRUN", 10 * TIMEOUT)  # frozen is not stuck, however long
    warm = await seated_at_bots(url, "normal", searched=True)
    assert (await hinted(warm))["t"] == "hint"  # the worker is up
    player = await seated_at_bots(url, "normal", searched=True)
    with frozen(the_worker(server.searches)):
        started = time.monotonic()
        said = await player.request("hint")
        waited = time.monotonic() - started
        assert said["t"] == "error" and said["code"] == "thinking", said
        assert "ask again" in said["message"]
        assert hint.PATIENCE <= waited < hint.PATIENCE + 1.0
        assert (await player.request("hint"))["code"] == "thinking"  # the same search
        assert running(server.searches) == 1 and not server.searches.waiting
    await until("thought, and kept", lambda: running(server.searches) == 0)
    started = time.monotonic()
    answered = await player.request("hint")
    assert answered["t"] == "hint" and time.monotonic() - started < hint.PATIENCE
    await close_all(warm, player)


@pytest.mark.parametrize("config", [ONE_WORKER], indirect=True)
async def test_a_hint_that_cannot_begin_in_time_is_answered_busy(
    server: GotherServer, url: str, monkeypatch: pytest.MonkeyPatch
):
    """Behind a search that does not end (a frozen worker), a hint queued is answered
    `thinking` while it waits, then `busy` once it has waited LATE times its wait to begin:
    every hint gets its reply."""
    monkeypatch.setattr(hint, "HINT_WAIT", 0.5)  # busy after LATE times that, not a minute
    monkeypatch.setattr(the_pool, "OVERRUN", 10 * TIMEOUT)  # frozen is not stuck, however long
    warm, *players = [await seated_at_bots(url, "normal", searched=True) for _ in range(3)]
    assert (await hinted(warm))["t"] == "hint"  # the worker is up
    with frozen(the_worker(server.searches)):
        await players[0].tell(rq.Hint())  # on the frozen worker
        await until("the frozen hint's search", lambda: running(server.searches) == 1)
        late = await hinted(players[1])  # `thinking`, asked again, until it is answered
    assert late["t"] == "error" and late["code"] == "busy", late
    assert "not begun" in late["message"] and "ask again" in late["message"]
    await close_all(warm, *players)


@pytest.mark.parametrize("config", [{"search_workers": 1, "bot_delay": 1.0}], indirect=True)
async def test_a_hard_bot_whose_search_fails_plays_as_the_normal_bot(
    server: GotherServer, url: str, caplog: pytest.LogCaptureFixture
):
    """Frozen within the second before the next move's search is sent, so that search is
    the one on the killed worker."""
    watcher, first = await watch_hard_bots(url)  # the worker is up: it searched that move
    killed = the_worker(server.searches)
    with caplog.at_level(logging.WARNING, "gother.server"), frozen(killed):
        await until("the next move's search", lambda: running(server.searches) == 1)
        os.kill(killed, signal.SIGKILL)
        moved = await next_state(watcher, first["seq"])  # the table went on
    assert moved["view"]["log"] != first["view"]["log"]
    said = [r.getMessage() for r in caplog.records if "normal bot moves" in r.getMessage()]
    assert len(said) == 1 and "hard bot's search failed" in said[0], said
    await watcher.close()


async def spam_hints(player: Client, stop: asyncio.Event) -> int:
    """Ask a hint and play it, then ask at the next decision, until `stop`: each hint a
    position not thought before (a kept one costs nothing); how many were answered."""
    answered = 0
    while not stop.is_set():
        reply = await player.request("hint")
        if reply["t"] == "error":
            assert reply["code"] in ("busy", "rate_limited", "thinking"), reply
            if reply["code"] != "thinking":  # refused: the others are being thought
                await asyncio.sleep(0.05)
            continue
        assert reply["t"] == "hint", reply
        answered += 1
        moved = await player.request("move", move=reply["move"])
        assert moved["t"] == "state", moved
        view = moved["view"]
        if view["legal"] is None and view["phase"] != "over":
            view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
        if view["phase"] == "over":
            break
    return answered


@pytest.mark.parametrize("config", [ONE_WORKER], indirect=True)
async def test_a_hard_bot_table_keeps_its_pace_while_hints_are_asked_back_to_back(
    server: GotherServer, url: str, caplog: pytest.LogCaptureFixture
):
    """Its moves' searches go ahead of every hint: a move waits for at most the hint being
    thought, never for the queue, and no move gives way to the normal bot. A search is a
    fixed budget, not a time: the bound is in searches, each timed here as the machine
    runs it now."""
    spammers = [await seated_at_bots(url, "normal", searched=True) for _ in range(4)]
    solo = await timed_hint(await seated_at_bots(url, "normal", searched=True))
    watcher, state = await watch_hard_bots(url)
    stop = asyncio.Event()
    spam = [asyncio.create_task(spam_hints(p, stop)) for p in spammers]
    with caplog.at_level(logging.WARNING, "gother.server"):
        since, gaps = time.monotonic(), []
        while len(gaps) < 6 and state["view"]["phase"] != "over":
            state = await next_state(watcher, state["seq"], 2 * (2 * solo + 1.5))
            now = time.monotonic()
            gaps.append(now - since)
            since = now
        stop.set()
        answered = await asyncio.wait_for(asyncio.gather(*spam), TIMEOUT)
    assert sum(answered) >= 3, answered  # hints were thought meanwhile
    # a busy machine's pace can change while the table plays: a search timed after it too
    solo = max(solo, await timed_hint(await seated_at_bots(url, "normal", searched=True)))
    # a move: its own search, at most one hint ahead of it, and a busy machine's slack
    assert max(gaps) <= 2 * solo + 1.5, (gaps, solo)
    assert not [r for r in caplog.records if "normal bot moves" in r.getMessage()]
    await close_all(watcher, *spammers)


async def timed_hint(player: Client) -> float:
    """Seconds the hint of a new placement takes with the searches idle (its worker up)."""
    warmed = await hinted(player)  # the worker is up: the next search is timed
    assert warmed["t"] == "hint", warmed
    move = warmed["move"]
    while True:  # on to the next placement: a decision the search must weigh
        reply = await player.request("move", move=move)
        assert reply["t"] == "state", reply
        view = reply["view"]
        if view["legal"] is None:
            view = await player.state(lambda v: v["legal"] is not None)
        if view["legal"]["kind"] == "distribute":
            break
        move = first_legal_move(view["legal"])
    started = time.monotonic()
    assert (await hinted(player))["t"] == "hint"
    return time.monotonic() - started
