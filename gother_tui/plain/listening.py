"""How far behind the story a listener is: when they will have heard the last line said.

A screen reader speaks a line in the time its words take (espeak-ng, which the plain mode's
figures are measured with, says 175 words a minute by default); lines written faster than
that wait in its queue, and at the bots' own pace a round of 7-9 seconds took 50-100
seconds to hear. `gother play --plain` runs its server in this process: its bots wait for
`heard_by` (server/tables/pace.py), so the next turn begins once the last line was heard.
On a shared server the host's pace holds (docs/plain.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable

LISTENING_WPM = 175  # words a minute: espeak-ng's own rate


class Listener:
    """`said(line)` as each line is written; `heard_by()`: when the last will be heard, on
    `clock` (time.monotonic, the server's clock too). Read from the server's thread: one
    float, written whole."""

    def __init__(self, wpm: float = LISTENING_WPM, clock: Callable[[], float] = time.monotonic):
        self.wpm = wpm
        self.clock = clock
        self._heard_by = 0.0

    def said(self, line: str) -> None:
        start = max(self._heard_by, self.clock())  # after what is still being said
        self._heard_by = start + len(line.split()) * 60.0 / self.wpm

    def heard_by(self) -> float:
        return self._heard_by
