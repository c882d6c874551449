"""Caps on things running at once (SSH sessions, logins in progress), counted overall and
by what they belong to (a connection, a key, an address), like OpenSSH's MaxSessions and
MaxStartups. Each one admitted holds its place until released. An address is labelled by
its `limits.address_key` (an IPv6 address by its /64)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

OVERALL = "overall"


class Caps:
    def __init__(self, overall: int, **per: int) -> None:
        self.limits = {OVERALL: overall, **per}
        self.counts: dict[str, Counter[Hashable]] = {kind: Counter() for kind in self.limits}
        self.held: dict[Hashable, dict[str, Hashable]] = {}  # each admitted: its labels

    def admit(self, thing: Hashable, **labels: Hashable | None) -> str | None:
        """Count `thing` under its labels (one per cap; None: that cap does not apply) and
        return None; or, when a cap is full, count nothing and return that cap's name."""
        mine = {OVERALL: OVERALL, **{k: v for k, v in labels.items() if v is not None}}
        for kind, label in mine.items():
            if self.counts[kind][label] >= self.limits[kind]:
                return kind
        for kind, label in mine.items():
            self.counts[kind][label] += 1
        self.held[thing] = mine
        return None

    def release(self, thing: Hashable) -> None:
        """Give `thing`'s place back (nothing happens if it holds none)."""
        for kind, label in self.held.pop(thing, {}).items():
            self.counts[kind][label] -= 1
            if not self.counts[kind][label]:
                del self.counts[kind][label]

    def crowding(self, kind: str) -> Hashable | None:
        """The oldest thing admitted under a label of `kind` that holds the most places (None
        when nothing is): the one to turn out to make room for a newcomer."""
        counts = self.counts[kind]
        if not counts:
            return None
        most = max(counts.values())
        return next(t for t, labels in self.held.items() if counts[labels.get(kind, "")] == most)

    def __len__(self) -> int:
        return len(self.held)
