"""The whole game as this client saw it: every event told once, in order, with the gaps.

A `state` carries only the newest events (`view.log`) and where they start in the game's
log (`view.log_start`), so the chronicle tells each event once, when it first appears, and
keeps the lines for the rest of the game: the log panel, the full log window (`l`), the
summary since your last turn and the alerts read it. A client that joined late or lost its
link for a while missed some events: the chronicle says how many, and never makes them up.
Presence lines (joined, left, away, back) sit among the events where the view showed them.
A new game at the table (a rematch) starts a new chronicle.
"""

from __future__ import annotations

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.narrator import Line, Narrator, gap, presence
from protocol.view import View

Game = tuple[str, int]  # (table id, game number)


class Chronicle:
    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.game: Game | None = None
        self.missed = 0  # events of this game this client never saw
        self._next = 0  # the place in the game's log of the next event not yet told
        self._last: View | None = None

    def follow(self, view: View | None, catalogue: Catalogue, glyphs: Glyphs) -> list[Line]:
        """Take the newest view; returns the lines it adds (for alerts)."""
        if view is None:
            self._last = None
            return []
        game = (view.table.id, view.table.game)
        if game != self.game:
            self.lines, self.game, self.missed, self._next = [], game, 0, 0
        added = presence(self._last, view, view.seat)
        self._last = view
        end = view.log_start + len(view.log)
        if end > self._next:
            first = max(self._next, view.log_start)
            if first > self._next:
                added.append(gap(first - self._next))
                self.missed += first - self._next
            new = view.log[first - view.log_start :]
            narrator = Narrator.for_view(view, catalogue, glyphs, new)
            added += [narrator.tell(event) for event in new]
            self._next = end
        self.lines += added
        return added
