"""What shows until the server has answered: where we connect, and why it failed if it did.
A server that wants its password has it asked in a dialog; back here, p asks again."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar


class ConnectingScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # shown only while the server waits for its password (GotherApp.check_action)
        Binding("p", "app.password", "Password", id="connecting.password"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Static(id="connecting")
        yield KeyBar()

    def on_mount(self) -> None:
        for name in ("link", "link_detail"):
            self.watch(self.app, name, self._show)

    def _show(self) -> None:
        session = self.session
        text = Text.assemble(
            ("Gother Than Thou\n\n", "bold"),
            f"Connecting to {session.options.url} as ",
            (session.options.name, "bold"),
            session.glyphs.ellipsis,
        )
        if session.link_detail:
            text.append(f"\n\n{session.link_detail}", session.palette.warning)
        self.query_one("#connecting", Static).update(text)
