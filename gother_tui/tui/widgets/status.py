"""The top line (table, round, whose decision and which step, connection) and the piles
line (draw pile count, discard pile size and top card)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from gother_tui.core.catalogue import Catalogue, values
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.prompts import waiting_for
from gother_tui.tui.palette import LOUD, NO_COLOUR, Palette
from gother_tui.tui.session import Link
from gother_tui.tui.widgets.cells import fit
from gother_tui.tui.widgets.following import Following
from protocol.view import View


def status_text(
    view: View | None, link: Link, glyphs: Glyphs, width: int, palette: Palette = NO_COLOUR
) -> Text:
    left = Text(no_wrap=True)
    if view is not None:
        left.append(view.table.name or view.table.id, "bold")
        if view.phase != "lobby":
            cap = view.round_cap
            left.append(f" {glyphs.sep} Round {view.round}" + (f"/{cap}" if cap else ""))
        left.append(f" {glyphs.sep} ")
        left.append(f"{glyphs.turn} {waiting_for(view)}", "bold")
        if view.you is None and link != "replay":
            left.append(f" {glyphs.sep} watching", "italic")
    if link == "online":
        right = Text(f"{glyphs.dot} online", palette.success)
    elif link == "offline":
        right = Text(f"{glyphs.warning} reconnecting{glyphs.ellipsis}", LOUD + palette.warning)
    elif link == "replay":
        right = Text("replay", "bold")
    elif link == "closed":
        right = Text(f"{glyphs.warning} disconnected", LOUD + palette.error)
    else:
        right = Text(f"connecting{glyphs.ellipsis}", palette.warning)
    room = max(0, width - right.cell_len - 1)
    left.truncate(room, overflow="ellipsis", pad=True)
    return Text.assemble(left, " ", right)


def piles_text(view: View | None, catalogue: Catalogue, glyphs: Glyphs, width: int) -> Text:
    if view is None or view.phase == "lobby":
        return Text("")
    discard = view.discard
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"Draw pile {view.deck_count}", "bold")
    text.append(f"  {glyphs.sep}  ")
    text.append(f"Discard pile {len(discard)}", "bold")
    if discard:
        top = catalogue[discard[-1]]
        text.append(f", top: {top.name} {values(top, glyphs, all_three=False)}")
    text.append(f"  {glyphs.sep}  x: all", "dim")
    return Text(fit(text.plain, width, glyphs.ellipsis)) if text.cell_len > width else text


class StatusLine(Following, Widget):
    DEFAULT_CSS = "StatusLine { height: 1; }"
    FOLLOWS = ("view", "link", "link_detail")

    def render(self) -> Text:
        session = self.session
        width = self.size.width
        return status_text(session.view, session.link, session.glyphs, width, session.palette)


class PilesLine(Following, Widget):
    DEFAULT_CSS = "PilesLine { height: 1; }"

    def render(self) -> Text:
        session = self.session
        return piles_text(session.view, session.catalogue, session.glyphs, self.size.width)
