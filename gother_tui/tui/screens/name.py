"""Who you are at the table, asked first when there is no command line to say it (the web
door starts the client with `--ask-name`). The name is checked as the server checks it in
`hello` (the protocol's NAME), so what is accepted here is what the table shows."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from gother_tui.tui.widgets.footer import KeyBar
from protocol import ProtocolError
from protocol.constants import NAME_MAX
from protocol.fields import NAME


class NameScreen(Screen[str]):
    AUTO_FOCUS = "#name"

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box"):
            yield Static(Text("Gother Than Thou", style="bold"), classes="section")
            yield Static(Text("Your name at the table, then Enter:"))
            yield Input(id="name", max_length=NAME_MAX, placeholder="e.g. Lydia")
            yield Static(id="name-error")
        yield KeyBar()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            name = NAME(event.value, "name")
        except ProtocolError as exc:
            self.query_one("#name-error", Static).update(Text(exc.message))
            return
        self.dismiss(name)
