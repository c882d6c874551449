"""A token bucket per connection: a short burst is fine, a flood is refused."""

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
