"""Wrong passwords cost time, so guessing one is slow.

Per address: the first wrong passwords are free (a typo), then each one doubles the wait
before that address may try again, up to a cap; a right password, or a long enough quiet,
starts it afresh. A try made while an address must wait is refused unread, so it tells a
guesser nothing. Per connection: a few wrong passwords and the connection is closed (the
websocket server and the SSH door each count theirs).

Memory is bounded: at most `max_addresses` are remembered, the stalest forgotten first.
An IPv6 address counts by its /64 (`limits.address_key`), like every address cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from server.edge.limits import address_key


@dataclass(frozen=True)
class Guessing:
    """The limits on password guesses (the same for every kind of password)."""

    tries: int = 3  # wrong passwords on one connection before it is closed
    free: int = 2  # wrong passwords from one address before it must wait
    first_wait: float = 1.0  # seconds after the first wrong one past `free`, then doubling
    max_wait: float = 60.0
    forget_after: float = 900.0  # seconds of quiet after which an address starts afresh
    max_addresses: int = 10_000
    clock: Callable[[], float] = time.monotonic

    def wait_after(self, failures: int) -> float:
        """Seconds an address waits after its `failures`-th wrong password in a row."""
        if failures <= self.free:
            return 0.0
        return min(self.max_wait, self.first_wait * 2.0 ** (failures - self.free - 1))


@dataclass
class _Record:
    failures: int
    last: float  # when the latest wrong password came


class Attempts:
    """The wrong passwords of each address, for one kind of password."""

    def __init__(self, rules: Guessing) -> None:
        self.rules = rules
        self._records: dict[str, _Record] = {}  # oldest first: a change moves it to the end

    def wait(self, address: str) -> float:
        """Seconds before `address` may try a password again (0: now)."""
        record = self._current(address_key(address))
        if record is None:
            return 0.0
        due = record.last + self.rules.wait_after(record.failures)
        return max(0.0, due - self.rules.clock())

    def failed(self, address: str) -> None:
        key = address_key(address)
        record = self._current(key)
        failures = 1 if record is None else record.failures + 1
        self._records.pop(key, None)
        self._records[key] = _Record(failures, self.rules.clock())
        self._forget_stale()

    def succeeded(self, address: str) -> None:
        self._records.pop(address_key(address), None)

    def _current(self, key: str) -> _Record | None:
        record = self._records.get(key)
        if record is not None and self.rules.clock() - record.last >= self.rules.forget_after:
            del self._records[key]
            return None
        return record

    def _forget_stale(self) -> None:
        now, rules = self.rules.clock(), self.rules
        for key, record in list(self._records.items()):
            quiet = now - record.last >= rules.forget_after
            if not quiet and len(self._records) <= rules.max_addresses:
                break
            del self._records[key]

    def __len__(self) -> int:
        return len(self._records)
