"""What shows until the server has answered: where we connect, and why it failed if it did."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from gother_tui.session import Session


class ConnectingScreen(Screen[None]):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Static(id="connecting")
        yield Footer()

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
