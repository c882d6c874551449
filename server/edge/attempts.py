"""Wrong passwords cost time, so guessing one is slow.

Counted per address *and* per secret (the server's password, the tournaments' password,
each table's, a door's: each a `secret` label of its own). Two counts hold an address back:
- its count on that secret: the first wrong passwords are free (a typo), then each one
  doubles the wait before that address may try that secret again, up to a cap. A right
  password starts this count afresh, and only this one: knowing one password (a table of
  your own, the server's that the whole club knows) shortens no wait on another;
- its count on every secret together: more free ones, then the same doubling. No right
  password resets it, so guessing a few of each of many secrets is no faster.
Either count also starts afresh after a long enough quiet. A try made while an address must
wait is refused unread, so it tells a guesser nothing. The steady rate on any one secret is
one guess per `max_wait` from one address, however many secrets it knows. Per connection: a
few wrong passwords and the connection is closed (the websocket server and the doors each
count theirs).

Memory is bounded: at most `max_addresses` are remembered, the stalest forgotten first, and
an address's secrets are few (the count on every secret lets it make only so many wrong
guesses before its own quiet forgets them). An IPv6 address counts by its /64
(`limits.address_key`), like every address cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from server.edge.limits import address_key


@dataclass(frozen=True)
class Guessing:
    """The limits on password guesses (the same for every kind of password)."""

    tries: int = 3  # wrong passwords on one connection before it is closed
    free: int = 2  # wrong passwords for one secret from one address before it must wait
    free_overall: int = 10  # wrong passwords for any secrets from one address before it waits
    first_wait: float = 1.0  # seconds after the first wrong one past the free, then doubling
    max_wait: float = 60.0
    forget_after: float = 900.0  # seconds of quiet after which a count starts afresh
    max_addresses: int = 10_000
    clock: Callable[[], float] = time.monotonic

    def wait_after(self, failures: int, free: int | None = None) -> float:
        """Seconds to wait after the `failures`-th wrong password in a row, `free` of them
        free (this rule's per-secret `free` unless told)."""
        free = self.free if free is None else free
        if failures <= free:
            return 0.0
        return min(self.max_wait, self.first_wait * 2.0 ** (failures - free - 1))


@dataclass
class _Count:
    failures: int
    last: float  # when the latest wrong password came


@dataclass
class _Address:
    overall: _Count  # its wrong passwords for every secret
    secrets: dict[str, _Count] = field(default_factory=dict)


class Attempts:
    """The wrong passwords of each address, for each secret."""

    def __init__(self, rules: Guessing) -> None:
        self.rules = rules
        self._addresses: dict[str, _Address] = {}  # oldest first: a failure moves it to the end

    def wait(self, address: str, secret: str) -> float:
        """Seconds before `address` may try `secret` again (0: now)."""
        record = self._current(address_key(address))
        if record is None:
            return 0.0
        rules, now = self.rules, self.rules.clock()
        due = record.overall.last + rules.wait_after(record.overall.failures, rules.free_overall)
        count = record.secrets.get(secret)
        if count is not None and now - count.last < rules.forget_after:
            due = max(due, count.last + rules.wait_after(count.failures))
        return max(0.0, due - now)

    def failed(self, address: str, secret: str) -> None:
        key, now = address_key(address), self.rules.clock()
        record = self._current(key)
        if record is None:
            record = _Address(_Count(0, now))
        record.overall = _Count(record.overall.failures + 1, now)
        count = record.secrets.get(secret)
        if count is None or now - count.last >= self.rules.forget_after:
            count = _Count(0, now)
        record.secrets[secret] = _Count(count.failures + 1, now)
        self._forget_quiet_secrets(record, now)
        self._addresses.pop(key, None)
        self._addresses[key] = record
        self._forget_stale()

    def succeeded(self, address: str, secret: str) -> None:
        """The right password for `secret`: that secret's count starts afresh (no other)."""
        record = self._addresses.get(address_key(address))
        if record is not None:
            record.secrets.pop(secret, None)

    def _current(self, key: str) -> _Address | None:
        record = self._addresses.get(key)
        if record is None or self.rules.clock() - record.overall.last < self.rules.forget_after:
            return record
        del self._addresses[key]  # quiet long enough: every count of it starts afresh
        return None

    def _forget_quiet_secrets(self, record: _Address, now: float) -> None:
        for secret, count in list(record.secrets.items()):
            if now - count.last >= self.rules.forget_after:
                del record.secrets[secret]

    def _forget_stale(self) -> None:
        now, rules = self.rules.clock(), self.rules
        for key, record in list(self._addresses.items()):
            quiet = now - record.overall.last >= rules.forget_after
            if not quiet and len(self._addresses) <= rules.max_addresses:
                break
            del self._addresses[key]

    def __len__(self) -> int:
        return len(self._addresses)
