"""The game log (sentences from the view's recent events) and the table chat. Both show
their newest lines at the bottom; the whole log opens with `l`.

Chat text and player names are untrusted: they are put in a Text as plain strings, so
"[bold]x[/]" shows as typed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from gother_tui.logtext import Narrator


def log_text(view: Mapping[str, Any] | None, catalogue: Any) -> Text:
    if not view or not view.get("log"):
        return Text("Nothing has happened yet.", style="dim")
    narrator = Narrator.for_view(view, catalogue)
    lines = []
    for event in view["log"]:
        sentence = Text(narrator.sentence(event))
        if event.get("kind") in ("swoon", "over"):
            sentence.stylize("bold")
        elif event.get("kind") == "turn":
            sentence.stylize("dim")
        lines.append(sentence)
    return Text("\n").join(lines)


def chat_text(lines: Sequence[tuple[str, str]]) -> Text:
    if not lines:
        return Text("No one has said anything.", style="dim")
    return Text("\n").join(Text.assemble((sender, "bold"), ": ", text) for sender, text in lines)


class TailScroll(VerticalScroll, can_focus=False):
    """A scroll area that keeps its newest line in sight."""

    DEFAULT_CSS = "TailScroll { height: 1fr; scrollbar-size-vertical: 1; }"

    def compose(self):
        yield Static(id="content")

    def set_text(self, text: Text) -> None:
        self.query_one("#content", Static).update(text)
        self.call_after_refresh(self.scroll_end, animate=False)


class GameLog(TailScroll):
    def on_mount(self) -> None:
        self.watch(self.app, "view", self._show)

    def _show(self, view: dict[str, Any] | None) -> None:
        self.set_text(log_text(view, self.app.catalogue))  # type: ignore[attr-defined]


class ChatLog(TailScroll):
    def on_mount(self) -> None:
        self.watch(self.app, "chat_lines", lambda lines: self.set_text(chat_text(lines)))
