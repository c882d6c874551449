"""The game's story (the chronicle's lines, told by the narrator) and the table chat. Both
show their newest lines at the bottom; the whole story opens with `l`.

Chat text and player names are untrusted: they are put in a Text as plain strings, so
"[bold]x[/]" shows as typed."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import Line, speaker
from gother_tui.tui.widgets.following import Following
from gother_tui.tui.widgets.quiet import show
from protocol import server_messages as sm


def lines_text(lines: Sequence[Line], glyphs: Glyphs, *, only_mine: bool = False) -> Text:
    """The story's lines, those about the viewer marked (a mark, not only a style)."""
    shown = [ln for ln in lines if ln.mine or ln.kind == "gap"] if only_mine else list(lines)
    if not shown:
        return Text("Nothing has happened yet.", style="dim")
    text = Text()
    for i, line in enumerate(shown):
        if i:
            text.append("\n")
        mark = f"{glyphs.cursor} " if line.mine else "  "
        style = "bold" if line.loud or line.mine else ("dim" if line.kind in DIM else "")
        text.append(mark + line.text, style)
    return text


DIM = frozenset({"turn", "gap", "joined", "left", "away", "back", "covered"})
PANEL_LINES = 60  # the log panel shows the newest lines; `l` opens them all


def chat_text(lines: Sequence[sm.Chat], glyphs: Glyphs) -> Text:
    if not lines:
        return Text("No one has said anything.", style="dim")
    return Text("\n").join(
        Text.assemble((speaker(line, glyphs), "bold"), ": ", line.text) for line in lines
    )


class TailScroll(Following, VerticalScroll, can_focus=False):
    """A scroll area that keeps its newest line in sight."""

    DEFAULT_CSS = "TailScroll { height: 1fr; scrollbar-size-vertical: 1; }"

    def compose(self) -> ComposeResult:
        yield Static(id="content")

    def set_text(self, text: Text) -> None:
        content = self.query_one("#content", Static)
        if content.content == text:
            return
        show(content, text)
        self.call_after_refresh(self.scroll_end, animate=False)


class GameLog(TailScroll):
    def follow(self) -> None:
        lines = self.session.chronicle.lines[-PANEL_LINES:]
        self.set_text(lines_text(lines, self.session.glyphs))


class ChatLog(TailScroll):
    FOLLOWS = ("chat",)

    def follow(self) -> None:
        self.set_text(chat_text(self.session.chat, self.session.glyphs))
