"""What holds up the game's loop, for the host to see: how late its callbacks run (loop
lag, sampled every SAMPLE seconds) and how long the garbage collector stops the
interpreter (a collection of every generation walks every object the server holds). A move
waits on both; the stats line says the worst of each since the line before, `/healthz`
since the start.

`tune_collector` is `gother serve`'s: the objects alive once the server has started (its
code, its restored tables) are moved out of the collector's sight, and the youngest
generation is collected every YOUNG allocations instead of 700, so that the full
collections, whose pause grows with every connection and game held, come some fifteen
times less often (at 200 tables of four, a 0.4-0.7 s stall once every minute or so).
"""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass, field
from typing import Any

SAMPLE = 0.05  # seconds between two looks at the loop's lag
YOUNG = 10_000  # allocations between two collections of the youngest generation (700)


def tune_collector() -> None:
    """For a server process, once it has started (see the module's docstring). No collection
    first: its pause would be the worst the host is told of, for a few cycles' worth."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, oldest)


@dataclass
class Worst:
    """The worst of some pauses, in seconds, and how many there were."""

    seconds: float = 0.0
    count: int = 0

    def add(self, seconds: float) -> None:
        self.seconds = max(self.seconds, seconds)
        self.count += 1


@dataclass
class Pauses:
    """Loop lag and collections, since the start and since the last `take`."""

    lag: Worst = field(default_factory=Worst)  # since the start
    full: Worst = field(default_factory=Worst)  # collections of every generation
    collections: Worst = field(default_factory=Worst)  # of any generation
    window: tuple[Worst, Worst, Worst] = field(default_factory=lambda: (Worst(), Worst(), Worst()))
    _began: float = 0.0

    def start(self) -> asyncio.Task[None]:
        """Watch the collector and the loop (this one) until the task is cancelled."""
        gc.callbacks.append(self._collected)
        task = asyncio.get_running_loop().create_task(self._watch())
        task.add_done_callback(lambda _: gc.callbacks.remove(self._collected))
        return task

    def take(self) -> tuple[Worst, Worst, Worst]:
        """Loop lag, full collections and any collections since the last take."""
        taken, self.window = self.window, (Worst(), Worst(), Worst())
        return taken

    async def _watch(self) -> None:
        while True:
            began = time.perf_counter()
            await asyncio.sleep(SAMPLE)
            late = max(0.0, time.perf_counter() - began - SAMPLE)
            for lag in (self.lag, self.window[0]):
                lag.add(late)

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        kinds = [self.collections, self.window[2]]
        if info["generation"] == 2:
            kinds += [self.full, self.window[1]]
        for kind in kinds:
            kind.add(took)
