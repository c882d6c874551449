"""What a new `state` adds to the story: the events since the view before it, told by the
narrator, with who came and went.

A view carries only the newest events of its game (the server's log window), so what is new
is found by lining the two logs up: the longest end of the old log that starts the new one.
A blind draw reads the same either way (a card drawn blind is shown to all once the game is
over). Nothing in common although both hold events: more happened than one log holds
(a long lost connection), and the line that says so comes first.
"""

from __future__ import annotations

from collections.abc import Sequence

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import Line, Narrator, presence
from protocol.view import Drew, Event, View

MISSED = Line("(Earlier events were missed here: this client was not connected then.)", "gap")


def same_game(before: View | None, after: View) -> bool:
    return (
        before is not None
        and before.table.id == after.table.id
        and before.table.game == after.table.game
    )


def _same(a: Event, b: Event) -> bool:
    if isinstance(a, Drew) and isinstance(b, Drew) and (a.card is None or b.card is None):
        return (a.seat, a.source) == (b.seat, b.source)
    return a == b


def _overlap(old: Sequence[Event], new: Sequence[Event]) -> int:
    """How many events the end of `old` and the start of `new` have in common."""
    for k in range(min(len(old), len(new)), 0, -1):
        if all(_same(a, b) for a, b in zip(old[len(old) - k :], new[:k], strict=True)):
            return k
    return 0


def new_events(before: View | None, after: View) -> tuple[tuple[Event, ...], bool]:
    """The events of `after` that `before` did not hold, and whether some were missed."""
    if not same_game(before, after):
        return after.log, False
    assert before is not None
    old, new = before.log, after.log
    common = _overlap(old, new)
    return new[common:], common == 0 and bool(old) and bool(new)


def told(before: View | None, after: View, catalogue: Catalogue, glyphs: Glyphs) -> list[Line]:
    """The lines `after` adds to the story told up to `before`, in order."""
    events, missed = new_events(before, after)
    lines = presence(before, after, after.seat)
    if missed:
        lines.append(MISSED)
    narrator = Narrator.for_view(after, catalogue, glyphs, events)
    lines.extend(narrator.tell(event) for event in events)
    return lines
