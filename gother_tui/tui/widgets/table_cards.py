"""The card-table layout (from about 120x36): cards drawn as small cards, the players
around the table, the draw and discard piles between them.

A card is a box: its name, its three values with their symbols, and a line for what is
happening to it ("→ 2 Morticia", "top"). Cards grow with the terminal: as wide as their row
leaves room for (from CARD_W to CARD_MAX, where any name fits on one line), and from
CARD_TALL lines up a name has two lines, so at 140x44 every card's name is whole. The
widgets here only draw what the view says; keys stay the table screen's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import plural
from gother_tui.core.preview import NEAR_SWOON, fate_sums
from gother_tui.tui.palette import BOLD, NO_COLOUR, Palette
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.cards import CardRow
from gother_tui.tui.widgets.cells import fit, wrap
from gother_tui.tui.widgets.following import Following
from gother_tui.tui.widgets.players import name_with_marks
from protocol.constants import NAME_MAX
from protocol.view import Player, View

CARD_W = 17  # the narrowest card in rows that wrap: five cards and their gaps in 89 cells
CARD_NARROW = 12  # the narrowest around the table, which never wraps (five seats at 120x36)
CARD_MAX = NAME_MAX + 2  # the widest: any card's name on one line
CARD_TALL = 40  # terminal lines from which a card's name has two lines
GAP = 1


@dataclass(frozen=True, slots=True)
class Shape:
    """A card's size: its width in cells, borders included, and its name's lines (its
    height: the borders, the name, the values and the note)."""

    width: int = CARD_W
    name_lines: int = 1

    @property
    def height(self) -> int:
        return self.name_lines + 4


def shape(widget: Widget, room: int, count: int, least: int = CARD_W) -> Shape:
    """The cards `widget` draws, `count` side by side in `room` cells: as wide as that
    leaves room for, within least..CARD_MAX; two lines of name on a tall terminal."""
    width = (room + GAP) // max(1, count) - GAP
    tall = widget.app.size.height >= CARD_TALL
    return Shape(min(CARD_MAX, max(least, width)), 2 if tall else 1)


def _frame(glyphs: Glyphs) -> tuple[str, str, str, str, str, str]:
    """(top-left, top-right, bottom-left, bottom-right, horizontal, vertical)."""
    return ("+", "+", "+", "+", "-", "|") if glyphs.ascii_only else ("╭", "╮", "╰", "╯", "─", "│")


def card_box(
    card: int | None,
    catalogue: Catalogue,
    glyphs: Glyphs,
    *,
    note: str = "",
    selected: bool = False,
    dim: bool = False,
    label: str = "",
    size: Shape = Shape(),
) -> list[Text]:
    """One card as `size.height` lines of `size.width` cells; `card` None draws a
    face-down `label`."""
    tl, tr, bl, br, h, v = _frame(glyphs)
    inner = size.width - 2
    if card is None:
        name, values = label, ""
    else:
        c = catalogue[card]
        name = c.name
        values = " ".join(
            f"{g}{n:+d}"
            for g, n in (
                (glyphs.goth, c.goth),
                (glyphs.sickness, c.sickness),
                (glyphs.money, c.money),
            )
        )
    style = "reverse bold" if selected else ("dim" if dim else "")
    edge = "bold" if selected else ("dim" if dim else "")
    top = h * inner
    if selected:  # the cursor, also as a mark: not only a style
        top = fit(f"{glyphs.cursor} ", inner).replace(" ", h)
    lines = [Text(tl + top + tr, edge)]
    named = [(row, style or "bold") for row in wrap(name, inner, size.name_lines, glyphs.ellipsis)]
    for body, body_style in (*named, (values, style), (note, style or "italic")):
        line = Text(v, edge)
        line.append(fit(body, inner, glyphs.ellipsis), body_style)
        line.append(v, edge)
        lines.append(line)
    lines.append(Text(bl + h * inner + br, edge))
    return lines


def side_by_side(boxes: Sequence[list[Text]]) -> list[Text]:
    """Card boxes in one row, GAP cells apart."""
    if not boxes:
        return []
    rows = []
    for i in range(len(boxes[0])):
        row = Text()
        for j, box in enumerate(boxes):
            if j:
                row.append(" " * GAP)
            row.append_text(box[i])
        rows.append(row)
    return rows


def per_row(width: int) -> int:
    """How many of the narrowest cards fit side by side in `width` cells."""
    return max(1, (width + GAP) // (CARD_W + GAP))


class CardFan(Widget):
    """The cards of the decision (your hand, your Fate pile, the discard pile) as small
    cards in rows, the cursor's card raised in reverse; a window of rows around the cursor
    when they do not all fit."""

    DEFAULT_CSS = "CardFan { height: auto; }"

    rows: reactive[tuple[CardRow, ...]] = reactive(())
    cursor: reactive[int | None] = reactive(None)

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.max_rows = 2

    def show(self, rows: Sequence[CardRow], cursor: int | None) -> None:
        across = per_row(self.size.width)
        resized = -(-len(rows) // across) != -(-len(self.rows) // across)  # rows of cards
        self.rows = tuple(rows)
        self.cursor = cursor
        if resized:
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        count = -(-len(self.rows) // per_row(width)) if self.rows else 1
        height = shape(self, width, 1).height
        return min(count, self.max_rows) * height + (1 if count > self.max_rows else 0)

    def render(self) -> Text:
        session = self.session
        if not self.rows:
            return Text("(no cards)", style="dim")
        across = per_row(self.size.width)
        size = shape(self, self.size.width, min(across, len(self.rows)))
        lines_of_cards = [self.rows[i : i + across] for i in range(0, len(self.rows), across)]
        first = 0
        if len(lines_of_cards) > self.max_rows and self.cursor is not None:
            first = min(self.cursor // across, len(lines_of_cards) - self.max_rows)
        shown = lines_of_cards[first : first + self.max_rows]
        out: list[Text] = []
        for r, row in enumerate(shown):
            boxes = [
                card_box(
                    c.card,
                    session.catalogue,
                    session.glyphs,
                    note=c.note,
                    selected=(first + r) * across + i == self.cursor,
                    dim=not c.enabled,
                    size=size,
                )
                for i, c in enumerate(row)
            ]
            out += side_by_side(boxes)
        hidden = len(self.rows) - sum(len(r) for r in shown)
        if hidden > 0:
            out.append(Text(f"{session.glyphs.ellipsis} {hidden} more (arrows)", style="dim"))
        return Text("\n").join(out)


def seat_lines(
    p: Player,
    view: View,
    catalogue: Catalogue,
    glyphs: Glyphs,
    width: int,
    palette: Palette = NO_COLOUR,
    size: Shape = Shape(),
) -> list[Text]:
    """One player's place at the table: name and marks, scores, hand, the Fate pile's top
    (a card of `size`)."""
    acting = None if view.over else view.to_act if view.to_act is not None else view.turn
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{glyphs.turn} " if p.seat == acting else "  ", "bold")
    head.append(f"{p.seat + 1} ", "bold")
    head.append(
        name_with_marks(p, view.seat, glyphs, width - 4).rstrip(),
        "bold" if p.seat == acting else "",
    )
    scores = Text(no_wrap=True, overflow="ellipsis")
    scores.append(f"{glyphs.goth}{p.goth} ", "bold")
    warn = p.sickness >= NEAR_SWOON
    sums = fate_sums(p.fate, catalogue)
    sick = f"{glyphs.sickness}{p.sickness}" + (f" {glyphs.warning}" if warn else "")
    scores.append(sick, BOLD + palette.warning if warn else "")
    money = f" {glyphs.money}{p.money}" + (f" {glyphs.debt}" if p.in_debt else "")
    scores.append(money, BOLD + palette.error if p.in_debt else "")
    extra = f"hand {p.hand_count}/{p.hand_limit}"
    if sums.banked:
        extra += f"  (-{sums.banked} banked)"
    lines = [head, scores, Text(fit(extra, width), "dim" if not sums.banked else "")]
    if p.fate:
        below = len(p.fate) - 1
        note = f"+{below} below" if below else "the only card"
        lines += card_box(p.fate[-1], catalogue, glyphs, note=note, size=size)
    else:
        lines += card_box(None, catalogue, glyphs, label="(no Fate card)", dim=True, size=size)
    return lines


class Seats(Following, Widget):
    """Every player around the table, side by side, in seat order: shown in the card-table
    layout only, always the same height."""

    DEFAULT_CSS = "Seats { height: auto; }"

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 3 + shape(self, width, 1).height

    def render(self) -> Text:
        session, view = self.session, self.session.view
        if view is None:
            return Text("")
        players = view.players
        count = max(1, len(players))
        width = max(CARD_NARROW, (self.size.width - GAP * (count - 1)) // count)
        size = shape(self, self.size.width, count, CARD_NARROW)
        columns = [
            seat_lines(p, view, session.catalogue, session.glyphs, width, session.palette, size)
            for p in players
        ]
        rows = []
        for i in range(3 + size.height):
            row = Text(no_wrap=True)
            for j, column in enumerate(columns):
                if j:
                    row.append(" " * GAP)
                cell = column[i].copy()
                cell.truncate(width, overflow="ellipsis", pad=True)
                row.append_text(cell)
            rows.append(row)
        return Text("\n").join(rows)


class PilesRow(Following, Widget):
    """The draw pile (face down, its count) and the discard pile's top card."""

    DEFAULT_CSS = "PilesRow { height: auto; }"

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return shape(self, width, 2).height

    def render(self) -> Text:
        session, view = self.session, self.session.view
        if view is None or view.phase == "lobby":
            return Text("")
        g, cat = session.glyphs, session.catalogue
        size = shape(self, self.size.width, len(view.players), CARD_NARROW)  # as the seats'
        count = plural(view.deck_count, "card")
        deck = card_box(None, cat, g, label="Draw pile", note=count, size=size)
        discard = view.discard
        if discard:
            note = f"discard: {len(discard)} (x)"
            top = card_box(discard[-1], cat, g, note=note, size=size)
        else:
            top = card_box(None, cat, g, label="Discard pile", note="empty", dim=True, size=size)
        return Text("\n").join(side_by_side([deck, top]))
