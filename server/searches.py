"""Searches outside the game's interpreter: hints, the hard bot's moves, reviews, the
seating of a tournament's round (server/tournament/seating.py), any later analysis.

A search holds its interpreter's lock for as long as it thinks, so in the game's process it
stalls every table (six connections asking hints slowed an honest table 220 times). Here
each search is a job run by one of a few worker processes:

- a job is a picklable value whose `run()` gives its picklable answer (`Search[T]`), thought
  from a View like any bot's, never from the Game;
- the pool is sized from the cores (all but one, which is the game's), and its workers are
  niced: when the machine is short of CPU, the game's process gets it first;
- jobs wait in one bounded queue, a table's (a bot's move) ahead of a person's (a hint): a
  job that would wait longer than `max_wait`, by the thinking time of the jobs ahead of it,
  is refused at once (`Busy`), and so is one past `queue` jobs waiting; one that, overtaken
  by the tables' jobs, has not begun LATE times its wait after it was asked fails then
  (`Busy`): every job is answered, none waits for ever behind the bots (a table's own job
  is never overtaken: it waits for the searches running);
- a worker that dies, or spends more of a core on its job than its deadline allows, is
  killed and replaced, and its job fails (`SearchFailed`); the jobs after it go on. The
  deadline counts the worker's CPU time, not the clock: a niced worker starved by a busy
  machine is slow, not stuck (Principle 11: a search is a fixed budget of work).

A worker is spawned (not forked: the game's process has threads and an event loop) when a
job needs one, or all at once by `spawn_all` (`gother serve` does), and then stays until
the pool closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, TypeVar

log = logging.getLogger("gother.server")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
QUEUE = 16  # jobs waiting, at most
MAX_WAIT = 0.5  # seconds a job may expect to wait behind the jobs ahead of it
NICENESS = 10  # a worker's CPU comes after the game's
# Seconds a fresh worker may take to start and import before its first job's deadline: a
# niced worker starting while both cores are busy took over 10 s (a CI run with stress-ng),
# and failing that job (a hint, a bot's move) would only make the host wait for nothing.
SPAWN_TIME = 30.0
OVERRUN = 5.0  # seconds of CPU past a job's thinking time before its worker is stuck
# A search is a fixed budget of work, not a time (Principle 11): a slower core than the one
# its thinking time was measured on may take a few times as long.
SLOWER = 10
# A job not begun this many times its wait after it was asked fails: under a stream of bots'
# moves, a hint accepted behind max_wait of work was overtaken for ever (a fuzz's hints were
# never answered). A bot's move is never overtaken, and not timed: on a loaded machine it
# waits for the fixed budget of the search ahead of it (seconds), then searches its own.
LATE = 4.0


class Search(Protocol[T_co]):
    """A job: what to think about, picklable, and its expected thinking time in seconds."""

    @property
    def think(self) -> float: ...

    def run(self) -> T_co: ...


class Busy(Exception):
    """Refused at once: the pool is too far behind to answer in time."""


class SearchFailed(Exception):
    """The job's worker died or overran its deadline, or the job raised."""


@contextlib.contextmanager
def _real_stderr() -> Iterator[None]:
    """While a worker starts, sys.stderr is one with a descriptor. multiprocessing hands
    sys.stderr's descriptor to the helper process it starts first; a Textual app in this
    process (`gother play` runs its server beside the client) has put in its place a writer
    whose descriptor is -1, which the start refuses (`bad value(s) in fds_to_keep`), so no
    hint could be thought. Swapped for the moment of the start only."""
    try:
        usable = sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable or sys.__stderr__ is None:
        yield
        return
    shown, sys.stderr = sys.stderr, sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = shown


def pool_size() -> int:
    """One worker a core this process may run on, but one: that core is the game's."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


@dataclass(eq=False)
class _Job:
    search: Search[Any]
    answer: asyncio.Future[Any]
    urgent: bool  # a table waits on it: ahead of every job that is not
    late: asyncio.TimerHandle | None = None  # fails it if it has not begun in time


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    pipe: Connection  # the pool's end: jobs out, answers in
    job: _Job | None = None
    deadline: asyncio.TimerHandle | None = None
    spent: float | None = None  # its CPU time when its job was given (None: unknown here)
    started: bool = False  # has answered a job: its imports are done


class Searches:
    """The worker pool and its queue. Use from the event loop's thread only."""

    def __init__(
        self, workers: int | None = None, queue: int = QUEUE, max_wait: float = MAX_WAIT
    ) -> None:
        self.size = workers if workers is not None else pool_size()
        self.queue_limit = queue
        self.max_wait = max_wait
        self.workers: list[_Worker] = []
        self.waiting: deque[_Job] = deque()  # the urgent ones first
        self.replaced = 0  # workers that died or were killed, and were replaced
        self._context = multiprocessing.get_context("spawn")

    def submit(
        self, search: Search[T], *, urgent: bool = False, wait: float | None = None
    ) -> asyncio.Future[T]:
        """The future answer of `search`; raises Busy at once if it would wait too long
        (`wait` seconds, or the pool's `max_wait`). Cancelling the future drops the job if
        it has not started (a started one runs on, its answer unread)."""
        wait = self.max_wait if wait is None else wait
        self.check_room(urgent=urgent, wait=wait)
        loop = asyncio.get_running_loop()
        job = _Job(search, loop.create_future(), urgent)
        if not urgent:  # a table's job is never overtaken: it waits for the running ones only
            job.late = loop.call_later(LATE * wait, self._late, job, LATE * wait)
        if urgent:
            self.waiting.insert(sum(j.urgent for j in self.waiting), job)
        else:
            self.waiting.append(job)
        self._dispatch()
        return job.answer

    def check_room(self, *, urgent: bool = False, wait: float | None = None) -> None:
        """Busy if a job asked now would wait longer than `wait` (or the pool's `max_wait`):
        what `submit` checks first, so a request whose search would be refused is refused
        before anything is read for it."""
        if sum(worker.job is not None for worker in self.workers) < self.size:
            return  # a worker is free
        if len(self.waiting) >= self.queue_limit:
            raise Busy(f"{len(self.waiting)} searches are waiting already")
        ahead = [job for job in self.waiting if job.urgent or not urgent]
        behind = sum(job.search.think for job in ahead) / self.size
        if behind > (self.max_wait if wait is None else wait):
            raise Busy(f"it would wait {behind:.1f} s for the searches ahead of it")

    def spawn_all(self) -> None:
        """Start the workers not started yet, without waiting for them to be ready."""
        while len(self.workers) < self.size:
            self._spawn()

    def close(self) -> None:
        """Kill every worker and fail every job (the server is going down)."""
        for job in self.waiting:
            job.answer.cancel()
        self.waiting.clear()
        for worker in list(self.workers):
            self._retire(worker)
            if worker.job is not None:
                worker.job.answer.cancel()

    # -- inside ---------------------------------------------------------------------------

    def _dispatch(self) -> None:
        """Give waiting jobs to idle workers, spawning workers up to the pool's size."""
        while self.waiting:
            job = self.waiting.popleft()
            if job.answer.cancelled():
                continue
            worker = next((w for w in self.workers if w.job is None), None)
            if worker is None and len(self.workers) < self.size:
                worker = self._spawn()
            if worker is None:
                self.waiting.appendleft(job)
                return
            self._give(worker, job)

    def _spawn(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_serve, args=(theirs,), name="gother-search", daemon=True
        )
        with _real_stderr():
            process.start()
        theirs.close()  # the worker holds its own copy: its death reads as end of file here
        worker = _Worker(process, ours)
        asyncio.get_running_loop().add_reader(ours.fileno(), self._answered, worker)
        self.workers.append(worker)
        return worker

    def _late(self, job: _Job, after: float) -> None:
        """A job not begun in time (`after` seconds) fails (Busy): its asker is told."""
        if job in self.waiting:
            self.waiting.remove(job)
            if not job.answer.done():
                job.answer.set_exception(Busy(f"not begun after {after:g} s"))

    def _give(self, worker: _Worker, job: _Job) -> None:
        if job.late is not None:
            job.late.cancel()
        worker.job = job
        worker.spent = cpu_time(worker.process.pid)
        self._watch(worker, self._allowed(worker))
        try:
            worker.pipe.send(job.search)  # a View pickles to a few KiB: the pipe takes it whole
        except OSError as exc:  # the worker is gone: its reader says so next
            log.warning("a search worker cannot take a job: %s", exc)

    def _answered(self, worker: _Worker) -> None:
        try:
            ok, answer = worker.pipe.recv()
        except (EOFError, OSError):
            self._lost(worker, "died")
            return
        job, worker.job = worker.job, None
        worker.started = True
        if worker.deadline is not None:
            worker.deadline.cancel()
        if not ok:  # a bug in the search: its worker goes on, the log says what
            log.warning("a search failed: %s", answer)
        if job is not None and not job.answer.done():
            if ok:
                job.answer.set_result(answer)
            else:
                job.answer.set_exception(SearchFailed(answer))
        self._dispatch()

    def _allowed(self, worker: _Worker) -> float:
        """Seconds of CPU the worker's job may take before the worker is stuck."""
        assert worker.job is not None
        slack = OVERRUN + (0.0 if worker.started else SPAWN_TIME)
        return SLOWER * worker.job.search.think + slack

    def _watch(self, worker: _Worker, delay: float) -> None:
        loop = asyncio.get_running_loop()
        worker.deadline = loop.call_later(delay, self._overran, worker)

    def _overran(self, worker: _Worker) -> None:
        """The job's deadline has passed on the clock: stuck if it spent as much CPU, else
        looked at again once it could have (CPU time never runs faster than the clock)."""
        worker.deadline = None
        now = cpu_time(worker.process.pid)
        allowed = self._allowed(worker)
        if now is not None and worker.spent is not None and now - worker.spent < allowed:
            self._watch(worker, allowed - (now - worker.spent))
            return
        self._lost(worker, "overran its deadline and was killed")

    def _lost(self, worker: _Worker, what: str) -> None:
        """A worker is gone: fail its job, put a fresh worker in its place."""
        log.warning("search worker %s %s; replaced", worker.process.pid, what)
        self._retire(worker)
        self.replaced += 1
        job = worker.job
        if job is not None and not job.answer.done():
            job.answer.set_exception(SearchFailed(f"the search's worker {what}"))
        if len(self.workers) < self.size:
            self._spawn()  # in its place now, so the next job finds it warm
        self._dispatch()

    def _retire(self, worker: _Worker) -> None:
        if worker.deadline is not None:
            worker.deadline.cancel()
        asyncio.get_running_loop().remove_reader(worker.pipe.fileno())
        worker.pipe.close()
        worker.process.kill()
        worker.process.join(1.0)  # killed: it is gone at once
        self.workers.remove(worker)


def cpu_time(pid: int | None) -> float | None:
    """The CPU seconds process `pid` has spent (user and system), or None where /proc does
    not say (not Linux: its deadline is then the clock's)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the name may hold spaces
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _serve(pipe: Connection) -> None:
    """A worker's life: run each job it is sent and send back (ok, answer or why not)."""
    os.nice(NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    while True:
        try:
            search = pipe.recv()
        except EOFError:
            return  # the pool is gone
        try:
            reply: tuple[bool, Any] = (True, search.run())
        except Exception as exc:  # a bug in a search fails that job, not the worker
            reply = (False, f"the search failed: {exc!r}")
        try:
            pipe.send(reply)
        except (BrokenPipeError, ConnectionResetError):
            return  # the pool died while we searched (a process killed -9): nothing to tell
