"""Token buckets: a short burst is fine, a flood is refused. One per connection, or one per
address (`Buckets`)."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.stamp = clock()

    def allow(self, cost: float = 1.0) -> bool:
        """Take `cost` tokens (a request that costs the server more takes more), or none."""
        if self.tokens_now() < cost:
            return False
        self.tokens -= cost
        return True

    def tokens_now(self) -> float:
        """The tokens there are now (below zero: a debt still being paid off)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens

    def spend(self, cost: float) -> None:
        """Take `cost` tokens whatever is left, into debt: for a cost known only after."""
        self.tokens_now()
        self.tokens -= cost


class Buckets:
    """A token bucket for each of many keys (an address's `limits.address_key`), at most
    `most` of them kept: the one used least lately is forgotten first, so memory is bounded
    and only a key quiet longer than every other starts full again."""

    def __init__(
        self,
        rate: float,
        burst: float,
        most: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate, self.burst, self.most, self.clock = rate, burst, most, clock
        self._buckets: dict[str, TokenBucket] = {}  # used least lately first

    def allow(self, key: str, cost: float = 1.0) -> bool:
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, self.clock)
        self._buckets[key] = bucket
        while len(self._buckets) > self.most:
            del self._buckets[next(iter(self._buckets))]
        return bucket.allow(cost)

    def __len__(self) -> int:
        return len(self._buckets)
