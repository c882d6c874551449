"""The decision in front of you: what it is, the cards it is about (with the cursor and
who gets what), and the preview of the move being composed."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import names_of, plural
from gother_tui.core.plans import Plan
from gother_tui.core.preview import fate_sums, sickness_text
from gother_tui.core.prompts import fate_of, preview, prompt
from gother_tui.tui.palette import BOLD
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.cards import NAME_W, CardList, CardRow, values_header
from gother_tui.tui.widgets.cells import fit
from gother_tui.tui.widgets.quiet import show
from gother_tui.tui.widgets.table_cards import CardFan, PilesRow, Seats
from protocol.view import View


def share_line(url: str, table: str) -> str:
    """What to send the others so they sit down at this table."""
    return f"Others join with: gother join {url} --table {table}"


def card_rows(
    view: View, plan: Plan | None, glyphs: Glyphs
) -> tuple[str, list[CardRow], int | None]:
    """(title, rows, cursor row) for the decision: which pile the list shows."""
    hand = list(view.hand or ())
    if plan is None:
        return "Your hand", [CardRow(c) for c in hand], None
    current = plan.current
    if plan.kind == "discard_fate":
        fate = list(reversed(fate_of(view, view.seat)))
        rows = [CardRow(c, "top" if i == 0 else "", c in plan.choices) for i, c in enumerate(fate)]
        return "Your Fate pile, top first", rows, _index(fate, current)
    if plan.kind == "draw" and plan.source == "discard":
        pile = list(reversed(view.discard))
        rows = [CardRow(c, "", c in plan.choices) for c in pile]
        return "Discard pile (Esc: back)", rows, _index(pile, current)
    if plan.kind == "distribute":
        names = names_of(view.players)
        rows = []
        for c in hand:
            seat = plan.assigned.get(c)
            note = "" if seat is None else f"{glyphs.arrow} {seat + 1} {names.get(seat, '?')}"
            rows.append(CardRow(c, note))
        return "Your hand", rows, _index(hand, current)
    if plan.kind == "discard_hand":
        rows = [CardRow(c, "", c in plan.choices) for c in hand]
        return "Your hand", rows, _index(hand, current)
    return "Your hand", [CardRow(c) for c in hand], None


def watching_text(view: View, catalogue: Catalogue, glyphs: Glyphs) -> Text:
    """For a spectator: each player's Fate pile, top first, and the discard pile's top."""
    names = names_of(view.players)
    text = Text()
    for p in view.players:
        text.append(f"{p.seat + 1} {names[p.seat]}", "bold")
        sick = sickness_text(fate_sums(p.fate, catalogue))
        text.append(f"  {glyphs.goth}{p.goth} {glyphs.sickness}{sick} {glyphs.money}{p.money}\n")
        top = [catalogue.name(c) for c in reversed(p.fate)][:3]
        more = f" {glyphs.ellipsis} +{len(p.fate) - 3}" if len(p.fate) > 3 else ""
        text.append(
            f"  Fate: {', '.join(top) + more if top else 'empty'}\n", "italic" if top else "dim"
        )
    return text


class PreviewScroll(VerticalScroll, can_focus=False):
    """The preview, scrolled with PgUp/PgDn when it is longer than its room (a table of
    five at 80x24): the keys stay the table's, and the title says what is out of sight."""


def _index(cards: list[int], card: int | None) -> int | None:
    return cards.index(card) if card is not None and card in cards else None


class ActionPanel(Vertical):
    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self._preview_title = ""  # above the preview, before any mark of more

    def compose(self) -> ComposeResult:
        yield Seats(self.session, id="around")  # the card-table layout only (-cards)
        yield PilesRow(self.session, id="between")
        yield Static(id="prompt")
        yield Static(id="spectating")  # a spectator's: every player's piles, in the compact layout
        yield Static(id="list-title", classes="section")
        yield CardList(self.session, id="cards")
        yield CardFan(self.session, id="fan")
        yield Static(Text("If you confirm (Enter):"), id="preview-title", classes="section")
        with PreviewScroll(id="preview-box"):
            yield Static(id="preview")

    def show(
        self, view: View | None, plan: Plan | None, hint: str | None = None, thinking: bool = False
    ) -> None:
        """`hint`: the plan is the server's hint, for this reason ("" if it gave none);
        `thinking`: the server is still thinking about the hint asked for this plan."""
        if view is None:
            return
        glyphs = self.session.glyphs
        show(self.query_one("#prompt", Static), self._headline(view, plan))
        title, rows, cursor = card_rows(view, plan, glyphs)
        if self.screen.has_class("-cards"):  # only the one on screen: a redraw costs less
            show(self.query_one("#list-title", Static), Text(title))
            self.query_one(CardFan).show(rows, cursor)
        else:
            header = fit(title, 2 + NAME_W, glyphs.ellipsis) + values_header(glyphs)
            show(self.query_one("#list-title", Static), Text(header))
            self.query_one(CardList).show(rows, cursor)
        if view.you is None:
            spectating = watching_text(view, self.session.catalogue, glyphs)
            show(self.query_one("#spectating", Static), spectating)
        lines = preview(view, plan, self.session.catalogue, glyphs)
        if hint:
            lines.insert(0, f"Why: {hint}")
        elif thinking:  # where the hint will appear, not a toast over the log and its chat
            lines.insert(0, f"The hint: thinking{glyphs.ellipsis}")
        title = "The hint; Enter plays it:" if hint is not None else "If you confirm (Enter):"
        # emptied rather than hidden: hiding lays the whole screen out again
        self._preview_title = title if lines and plan is not None else ""
        url = self.session.options.url
        if view.phase == "lobby" and view.you is not None and url.startswith(("ws://", "wss://")):
            lines = [share_line(url, view.table.id)]  # the lobby has no move to preview
        text = Text("\n".join(lines))
        palette = self.session.palette
        text.highlight_regex(r"SWOON|DEBT", BOLD + palette.error)
        text.highlight_regex(r"\d from swoon", BOLD + palette.warning)
        show(self.query_one("#preview", Static), text)
        self.call_after_refresh(self.mark_preview)

    def mark_preview(self) -> None:
        """The preview's title, saying what of it is out of sight and the key that shows it."""
        box = self.query_one(PreviewScroll)
        below, above = round(box.max_scroll_y - box.scroll_y), round(box.scroll_y)
        title = self._preview_title
        if title and below > 0:
            title += f" (PgDn: {plural(below, 'more line')})"
        elif title and above > 0:
            title += " (PgUp: the top)"
        show(self.query_one("#preview-title", Static), Text(title))

    def page_preview(self, pages: int) -> None:
        box = self.query_one(PreviewScroll)
        box.scroll_to(y=box.scroll_y + pages * box.scrollable_content_region.height, animate=False)
        self.call_after_refresh(self.mark_preview)

    def _headline(self, view: View, plan: Plan | None) -> Text:
        g, link = self.session.glyphs, self.session.link
        if link == "offline":
            # Colours as spans, not as the Text's base style: spans keep their ANSI colour.
            return Text.assemble(
                (
                    f"{g.warning} Connection lost: reconnecting{g.ellipsis} "
                    "This is the last state seen.",
                    BOLD + self.session.palette.warning,
                )
            )
        if link == "closed":
            detail = self.session.link_detail
            closed = BOLD + self.session.palette.error
            return Text.assemble((f"{g.warning} Disconnected: {detail}.", closed))
        return Text(prompt(view, plan), style="bold")
