"""The card-table layout (from about 120x36): cards drawn as small cards, the players
around the table, the draw and discard piles between them.

A card is a box CARD_W cells wide: its name, its three values with their symbols, and a
line for what is happening to it ("→ 2 Morticia", "top"). The widgets here only draw what
the view says; keys stay the table screen's.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from gother_tui.tui.widgets.cells import fit
from gother_tui.tui.widgets.following import Following
from gother_tui.tui.widgets.players import name_with_marks
from protocol.view import Player, View

CARD_W = 17  # cells, borders included: five cards and their gaps in 89 cells
CARD_H = 5  # lines: top border, name, values, note, bottom border
GAP = 1


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
) -> list[Text]:
    """One card as CARD_H lines of CARD_W cells; `card` None draws a face-down `label`."""
    tl, tr, bl, br, h, v = _frame(glyphs)
    inner = CARD_W - 2
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
    for body, body_style in ((name, style or "bold"), (values, style), (note, style or "italic")):
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
        return min(count, self.max_rows) * CARD_H + (1 if count > self.max_rows else 0)

    def render(self) -> Text:
        session = self.session
        if not self.rows:
            return Text("(no cards)", style="dim")
        across = per_row(self.size.width)
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
) -> list[Text]:
    """One player's place at the table: name and marks, scores, hand, the Fate pile's top."""
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
        lines += card_box(p.fate[-1], catalogue, glyphs, note=note)
    else:
        lines += card_box(None, catalogue, glyphs, label="(no Fate card)", dim=True)
    return lines


class Seats(Following, Widget):
    """Every player around the table, side by side, in seat order: shown in the card-table
    layout only, always the same height."""

    DEFAULT_CSS = "Seats { height: auto; }"

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 3 + CARD_H

    def render(self) -> Text:
        session, view = self.session, self.session.view
        if view is None:
            return Text("")
        players = view.players
        width = max(CARD_W, (self.size.width - GAP * (len(players) - 1)) // max(1, len(players)))
        columns = [
            seat_lines(p, view, session.catalogue, session.glyphs, width, session.palette)
            for p in players
        ]
        rows = []
        for i in range(3 + CARD_H):
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
        return CARD_H

    def render(self) -> Text:
        session, view = self.session, self.session.view
        if view is None or view.phase == "lobby":
            return Text("")
        g, cat = session.glyphs, session.catalogue
        deck = card_box(None, cat, g, label="Draw pile", note=plural(view.deck_count, "card"))
        discard = view.discard
        if discard:
            top = card_box(discard[-1], cat, g, note=f"discard: {len(discard)} (x)")
        else:
            top = card_box(None, cat, g, label="Discard pile", note="empty", dim=True)
        return Text("\n").join(side_by_side([deck, top]))
