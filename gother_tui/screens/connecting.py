"""What shows until the server has answered: where we connect, and why it failed if it did."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class ConnectingScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static(id="connecting")
        yield Footer()

    def on_mount(self) -> None:
        for name in ("link", "link_detail"):
            self.watch(self.app, name, lambda _: self._show())

    def _show(self) -> None:
        app: Any = self.app
        text = Text.assemble(
            ("Gother Than Thou\n\n", "bold"),
            f"Connecting to {app.options.url} as ",
            (app.options.name, "bold"),
            app.glyphs.ellipsis,
        )
        if app.link_detail:
            text.append(f"\n\n{app.link_detail}", "yellow")
        self.query_one("#connecting", Static).update(text)
