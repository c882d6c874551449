"""`l`: the whole game as this client saw it, opened at the newest line. `m` shows only
the lines about you; the title says how many events this client missed (a late join, a
lost link), which it never makes up. It follows the game while open."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gother_tui.core.narrator import plural
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar
from gother_tui.tui.widgets.talk import lines_text


class StoryScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "m",
            "only_mine",
            "Only you",
            id="story.mine",
            tooltip="the whole log: only the lines about you (again: every line)",
        ),
        Binding("escape,q,l", "close", "Close", key_display="Esc", id="story.close"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.only_mine = False

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(id="story-title", classes="section")
            with VerticalScroll(id="viewer-body"):
                yield Static(id="story")
        yield KeyBar()

    def on_mount(self) -> None:
        self.watch(self.app, "view", self._show)

    def _show(self) -> None:
        chronicle = self.session.chronicle
        title = "The whole game" + (": only the lines about you" if self.only_mine else "")
        if chronicle.missed:
            title += f" ({plural(chronicle.missed, 'event')} happened while this client was away)"
        self.query_one("#story-title", Static).update(Text(title, style="bold"))
        glyphs = self.session.glyphs
        text = lines_text(chronicle.lines, glyphs, only_mine=self.only_mine)
        self.query_one("#story", Static).update(text)
        body = self.query_one("#viewer-body", VerticalScroll)
        self.call_after_refresh(body.scroll_end, animate=False)  # the newest line in sight

    def action_only_mine(self) -> None:
        self.only_mine = not self.only_mine
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)
