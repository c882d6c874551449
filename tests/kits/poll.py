"""The one poll of the tests: look at a condition until it holds, within a deadline.

A test waits on an event when it has one (a message, a line of output, a process's end).
When what it waits for shows only as a state (a process gone, a count of connections, a
screen's text), it looks again and again with `until`, or with `until_blocking` in a test
that is no coroutine (tmux, subprocesses). The deadline is generous: two busy cores may run
a cold client start meanwhile, and only a failing test ever waits it out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

TIMEOUT = 60.0  # seconds


async def until(
    what: str,
    check: Callable[[], T],
    timeout: float = TIMEOUT,
    pause: Callable[[], Awaitable[object]] | None = None,
) -> T:
    """`check()` once it is truthy. Between two looks the loop runs: 10 ms of it, or
    `pause()` (a Pilot's, when a Textual app is looked at: it lets the app work first)."""
    late = _deadline(what, timeout)
    while not (value := check()):
        late()
        await (asyncio.sleep(0.01) if pause is None else pause())
    return value


def until_blocking(
    what: str,
    check: Callable[[], T],
    timeout: float = TIMEOUT,
    every: float = 0.1,
    pause: Callable[[], object] | None = None,
) -> T:
    """`until` for a test that is no coroutine: between two looks it sleeps `every` seconds,
    or calls `pause()` (a browser page's own clock, which runs the page's events)."""
    late = _deadline(what, timeout)
    while not (value := check()):
        late()
        if pause is None:
            time.sleep(every)
        else:
            pause()
    return value


def _deadline(what: str, timeout: float) -> Callable[[], None]:
    """What fails once `timeout` seconds have passed, naming what never came."""
    deadline = time.monotonic() + timeout

    def late() -> None:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")

    return late
