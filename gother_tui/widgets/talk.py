"""The game log (the view's recent events) and the table chat. Both show their newest
lines at the bottom; the whole log opens with `l`.

Chat text and player names are untrusted: they are put in a Text as plain strings, so
"[bold]x[/]" shows as typed."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.narrator import tell_view
from gother_tui.session import Session
from protocol import server_messages as sm
from protocol.view import View


def log_text(view: View | None, catalogue: Catalogue, glyphs: Glyphs) -> Text:
    if view is None or not view.log:
        return Text("Nothing has happened yet.", style="dim")
    lines = []
    for line in tell_view(view, catalogue, glyphs):
        sentence = Text(line.text)
        if line.loud:
            sentence.stylize("bold")
        elif line.kind == "turn":
            sentence.stylize("dim")
        lines.append(sentence)
    return Text("\n").join(lines)


def chat_text(lines: Sequence[sm.Chat]) -> Text:
    if not lines:
        return Text("No one has said anything.", style="dim")
    return Text("\n").join(Text.assemble((line.sender, "bold"), ": ", line.text) for line in lines)


class TailScroll(VerticalScroll, can_focus=False):
    """A scroll area that keeps its newest line in sight."""

    DEFAULT_CSS = "TailScroll { height: 1fr; scrollbar-size-vertical: 1; }"

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session

    def compose(self) -> ComposeResult:
        yield Static(id="content")

    def set_text(self, text: Text) -> None:
        self.query_one("#content", Static).update(text)
        self.call_after_refresh(self.scroll_end, animate=False)


class GameLog(TailScroll):
    def on_mount(self) -> None:
        self.watch(self.app, "view", self._show)

    def _show(self) -> None:
        self.set_text(log_text(self.session.view, self.session.catalogue, self.session.glyphs))


class ChatLog(TailScroll):
    def on_mount(self) -> None:
        self.watch(self.app, "chat", self._show)

    def _show(self) -> None:
        self.set_text(chat_text(self.session.chat))
