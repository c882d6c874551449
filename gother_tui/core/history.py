"""Goth Points over the rounds, as this client saw them.

The client keeps, per round, each player's Goth from the latest view of that round it
received; a client that joined late (or lost its connection for a while) has gaps and shows
only what it saw. A new game (another game number, or the round going back) starts afresh.
"""

from __future__ import annotations

from collections.abc import Sequence

from gother_tui.core.glyphs import Glyphs
from protocol.view import View

UNICODE_LEVELS = "▁▂▃▄▅▆▇█"
ASCII_LEVELS = "_.-:=+*#"


class GothHistory:
    def __init__(self) -> None:
        self._game: tuple[str, int] | None = None  # (table id, game number)
        self._rounds: dict[int, dict[int, int]] = {}  # round -> seat -> goth

    def record(self, view: View | None) -> None:
        if view is None or view.phase == "lobby":
            return
        game = (view.table.id, view.table.game)
        if game != self._game or (self._rounds and view.round < max(self._rounds)):
            self._game, self._rounds = game, {}
        self._rounds[view.round] = {p.seat: p.goth for p in view.players}

    @property
    def rounds(self) -> list[int]:
        return sorted(self._rounds)

    def series(self, seat: int) -> list[int]:
        """Goth at the end of each round seen (the latest view of that round)."""
        return [goths[seat] for _, goths in sorted(self._rounds.items()) if seat in goths]


def levels(values: Sequence[int], low: int, high: int, glyphs: Glyphs, width: int) -> str:
    """One character per value (the last `width` values), on a scale shared by every player
    so the rows compare."""
    chars = ASCII_LEVELS if glyphs.ascii_only else UNICODE_LEVELS
    span = max(1, high - low)
    top = len(chars) - 1
    return "".join(chars[round((v - low) * top / span)] for v in values[-width:] if width > 0)
