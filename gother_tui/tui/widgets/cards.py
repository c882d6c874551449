"""A list of cards with a cursor: your hand, your Fate pile or the discard pile, whichever
the decision in front of you is about. Keys are the screen's; this widget only draws, and
shows the window of lines around the cursor when the list is longer than its height."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.cells import fit
from protocol.constants import NAME_MAX

NAME_W = NAME_MAX  # the longest name a deck file allows
VALUE_W = 3  # each of the three values, right-aligned under the header's glyphs


def values_header(glyphs: Glyphs) -> str:
    """The glyphs over the three value columns: "  ☥  ☠  $"."""
    return "".join(g.rjust(VALUE_W) for g in (glyphs.goth, glyphs.sickness, glyphs.money))


@dataclass(frozen=True, slots=True)
class CardRow:
    card: int
    note: str = ""  # e.g. "→ 2 Morticia" (who gets it)
    enabled: bool = True  # may be chosen now


def card_line(
    row: CardRow, catalogue: Catalogue, glyphs: Glyphs, width: int, selected: bool
) -> Text:
    card = catalogue[row.card]
    mark = glyphs.cursor if selected else " "
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{mark} ", "bold")
    text.append(fit(card.name, NAME_W, glyphs.ellipsis), "bold" if selected else "")
    numbers = (card.goth, card.sickness, card.money)
    text.append("".join(f"{v:+d}".rjust(VALUE_W) for v in numbers) + " ")
    if row.note:
        text.append(fit(row.note, max(0, width - text.cell_len), glyphs.ellipsis), "bold")
    if selected:
        text.stylize("reverse")
    elif not row.enabled:
        text.stylize("dim")
    return text


class CardList(Widget):
    DEFAULT_CSS = "CardList { height: 6; }"  # fixed: a new list never moves the rest

    rows: reactive[tuple[CardRow, ...]] = reactive(())
    cursor: reactive[int | None] = reactive(None)

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session

    def show(self, rows: Sequence[CardRow], cursor: int | None) -> None:
        self.rows = tuple(rows)
        self.cursor = cursor

    def render(self) -> Text:
        glyphs, catalogue = self.session.glyphs, self.session.catalogue
        if not self.rows:
            return Text("(no cards)", style="dim")
        height = max(1, self.size.height)
        first = self._window_start(height)
        shown = self.rows[first : first + height]
        lines = [
            card_line(row, catalogue, glyphs, self.size.width, first + i == self.cursor)
            for i, row in enumerate(shown)
        ]
        if first > 0:
            lines[0] = Text(f"  {glyphs.ellipsis} {first + 1} more above", style="dim")
        hidden_below = len(self.rows) - (first + height)
        if hidden_below > 0:
            lines[-1] = Text(f"  {glyphs.ellipsis} {hidden_below + 1} more below", style="dim")
        return Text("\n").join(lines)

    def _window_start(self, height: int) -> int:
        if len(self.rows) <= height or self.cursor is None:
            return 0
        # Keep the cursor off the first and last lines, which become "more" markers.
        start = max(0, self.cursor - height // 2)
        return min(start, len(self.rows) - height)
