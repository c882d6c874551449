"""The whole game as this client saw it: every event told once, in order, with the gaps.

A `state` carries only the newest events (`view.log`) and where they start in the game's
log (`view.log_start`), so the chronicle tells each event once, when it first appears, and
keeps the lines for the rest of the game: the log panel, the full log window (`l`), the
summary since your last turn and the alerts read it. A client that joined late or lost its
link for a while missed some events: the server sends them (`story`, after `joined` or
`watching`), and the chronicle tells them when the view that follows comes; from a server
that does not, it says how many it missed, and never makes them up.
Presence lines (joined, left, away, back) sit among the events where the view showed them.
A new game at the table (a rematch) starts a new chronicle.
"""

from __future__ import annotations

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import Line, Narrator, covered_for_you, gap, presence
from protocol.server_messages import Story
from protocol.view import Event, View

Game = tuple[str, int]  # (table id, game number)


class Chronicle:
    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.game: Game | None = None
        self.missed = 0  # events of this game this client never saw
        self._next = 0  # the place in the game's log of the next event not yet told
        self._last: View | None = None
        self._recalled: tuple[Game | None, list[Event]] = (None, [])  # the server's story
        self._covered = 0  # rounds a bot played for us while we were away, to tell

    def welcome_back(self, rounds: int) -> None:
        """The server says a bot played `rounds` rounds for us while we were away: told
        after the story, with the next view (which says whether it won for us)."""
        self._covered = rounds

    def recall(self, story: Story) -> None:
        """A part of the game's story the server sent: kept until the next view tells it.
        Parts come in order from event 0; one out of place is dropped (a gap is said)."""
        game, events = self._recalled
        if story.start == 0 or (story.table, story.game) != game:
            game, events = (story.table, story.game), []
        if story.start == len(events):
            events.extend(story.log)
        self._recalled = (game, events)

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
            recalled = self._recall(game, first)
            if first > self._next + len(recalled):
                recalled = []  # the story does not reach the view: not told, but counted
                added.append(gap(first - self._next))
                self.missed += first - self._next
            new = recalled + list(view.log[first - view.log_start :])
            narrator = Narrator.for_view(view, catalogue, glyphs, new)
            added += [narrator.tell(event) for event in new]
            self._next = end
        if self._covered:
            added.append(covered_for_you(self._covered, view))
            self._covered = 0
        self.lines += added
        return added

    def _recall(self, game: Game, first: int) -> list[Event]:
        """The recalled events from the next one not yet told up to `first` (then dropped)."""
        recalled, events = self._recalled
        self._recalled = (None, [])
        return events[self._next : first] if recalled == game else []
