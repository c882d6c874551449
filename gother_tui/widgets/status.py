"""The top line (table, round, whose decision and which step, connection) and the piles
line (draw pile count, discard pile size and top card)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widget import Widget

from gother_tui.glyphs import Glyphs
from gother_tui.prompts import waiting_for
from gother_tui.widgets.cells import fit


def status_text(
    view: Mapping[str, Any] | None, link: str, detail: str, glyphs: Glyphs, width: int
) -> Text:
    left = Text(no_wrap=True)
    if view:
        table = view.get("table", {})
        left.append(str(table.get("name") or table.get("id", "")), "bold")
        round_no, cap = view.get("round", 0), view.get("round_cap")
        if view.get("phase") != "lobby":
            left.append(f" {glyphs.sep} Round {round_no}" + (f"/{cap}" if cap else ""))
        left.append(f" {glyphs.sep} ")
        left.append(f"{glyphs.turn} {waiting_for(view)}", "bold")
        if view.get("you") is None and link != "replay":
            left.append(f" {glyphs.sep} watching", "italic")
    if link == "online":
        right = Text(f"{glyphs.dot} online", "green")
    elif link == "offline":
        right = Text(f"{glyphs.warning} reconnecting{glyphs.ellipsis}", "bold reverse yellow")
    elif link == "replay":
        right = Text("replay", "bold")
    elif link == "closed":
        right = Text(f"{glyphs.warning} disconnected", "bold reverse red")
    else:
        right = Text(f"connecting{glyphs.ellipsis}", "yellow")
    room = max(0, width - right.cell_len - 1)
    left.truncate(room, overflow="ellipsis", pad=True)
    return Text.assemble(left, " ", right)


def piles_text(view: Mapping[str, Any] | None, catalogue: Any, glyphs: Glyphs, width: int) -> Text:
    if not view or view.get("phase") == "lobby":
        return Text("")
    discard = list(view.get("discard", ()))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"Draw pile {view.get('deck_count', 0)}", "bold")
    text.append(f"  {glyphs.sep}  ")
    text.append(f"Discard pile {len(discard)}", "bold")
    if discard:
        top = catalogue[discard[-1]]
        text.append(f", top: {top.name} {top.values(glyphs, all_three=False)}")
    text.append(f"  {glyphs.sep}  x: all", "dim")
    return Text(fit(text.plain, width, glyphs.ellipsis)) if text.cell_len > width else text


class StatusLine(Widget):
    DEFAULT_CSS = "StatusLine { height: 1; }"

    def on_mount(self) -> None:
        for name in ("view", "link", "link_detail"):
            self.watch(self.app, name, lambda _: self.refresh())

    def render(self) -> Text:
        app: Any = self.app
        return status_text(app.view, app.link, app.link_detail, app.glyphs, self.size.width)


class PilesLine(Widget):
    DEFAULT_CSS = "PilesLine { height: 1; }"

    def on_mount(self) -> None:
        self.watch(self.app, "view", lambda _: self.refresh())

    def render(self) -> Text:
        app: Any = self.app
        return piles_text(app.view, app.catalogue, app.glyphs, self.size.width)
