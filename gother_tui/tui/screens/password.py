"""A password asked in a dialog, typed masked: the server's (when it wants one) or a
private table's. Enter gives it, Esc goes back without it; a note says why it is asked
again (the server's sentence: "Wrong password: try again in 2 s.")."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from gother_tui.tui.widgets.footer import KeyBar
from protocol.constants import PASSWORD_MAX


class PasswordScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", id="password.cancel"),
    ]

    def __init__(self, heading: str, note: str = "") -> None:
        super().__init__()
        self.heading = heading
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="password-box"):
            yield Static(Text(self.heading, style="bold"))
            if self.note:
                yield Static(Text(self.note), id="password-note")
            yield Input(id="password", password=True, max_length=PASSWORD_MAX)
            yield Static(Text("Enter: go on   Esc: back"), id="password-help")
        yield KeyBar()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value:  # nothing typed yet: still asked (Esc goes back)
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
