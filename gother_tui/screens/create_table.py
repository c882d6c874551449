"""The forms of the lobby: a new table (name, seats, bots, house rules, password) and the
password of a private table. Tab moves between fields, Enter submits, Esc cancels."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Select, Static

FATE_DISCARD = (("any card (standard)", "any"), ("the top card only", "top"))
OVERFLOW = (("at the draw step (standard)", "draw_step"), ("immediately, any turn", "immediate"))


def build_request(
    name: str,
    seats: str,
    bots: str,
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> dict[str, Any]:
    """A `create` request from the form's strings; ValueError says what to fix."""
    name = name.strip()
    if not 1 <= len(name) <= 24 or not name.isprintable():
        raise ValueError("the table name must be 1 to 24 printable characters")
    seat_count = _whole(seats, "seats")
    if not 3 <= seat_count <= 5:
        raise ValueError("seats must be 3, 4 or 5")
    bot_count = _whole(bots, "bots")
    if not 0 <= bot_count <= seat_count:
        raise ValueError(f"bots must be between 0 and {seat_count}")
    variants: dict[str, Any] = {"fate_discard": fate_discard, "overflow": overflow}
    if round_cap.strip():
        cap = _whole(round_cap, "round cap")
        if not 1 <= cap <= 1000:
            raise ValueError("the round cap must be 1 to 1000 (or empty: no cap)")
        variants["round_cap"] = cap
    else:
        variants["round_cap"] = None  # explicitly off (an absent key means the default)
    request: dict[str, Any] = {
        "name": name,
        "seats": seat_count,
        "bots": bot_count,
        "variants": variants,
    }
    if password:
        if len(password) > 64:
            raise ValueError("the password must be at most 64 characters")
        request["password"] = password
    return request


def _whole(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: {text.strip() or 'nothing'} is not a whole number") from None


# priority: the focus moves before the next key is routed, so keys typed fast (or batched
# over SSH) after a Tab land in the next field, not the one being left.
FIELD_KEYS: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


class CreateTableScreen(ModalScreen[dict[str, Any] | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_KEYS,
        Binding("escape", "cancel", "Cancel", id="create.cancel"),
        Binding("ctrl+s", "submit", "Create", id="create.submit"),
    ]

    def __init__(self, player: str) -> None:
        super().__init__()
        self.player = player

    def compose(self) -> ComposeResult:
        with Vertical(id="create"):
            yield Static(Text("New table", style="bold"), classes="section")
            with Grid(id="create-form"):
                yield Label("Table name")
                yield Input(f"{self.player}'s table"[:24], id="name", max_length=24, compact=True)
                yield Label("Seats (3-5)")
                yield Input("4", id="seats", type="integer", max_length=1, compact=True)
                yield Label("Bots")
                yield Input("3", id="bots", type="integer", max_length=1, compact=True)
                yield Label("Fate discard")
                yield Select(FATE_DISCARD, value="any", allow_blank=False, id="fate", compact=True)
                yield Label("Over the limit")
                yield Select(
                    OVERFLOW, value="draw_step", allow_blank=False, id="overflow", compact=True
                )
                yield Label("Round cap")
                yield Input("100", id="cap", type="integer", max_length=4, compact=True)
                yield Label("Password")
                yield Input(id="password", password=True, max_length=64, compact=True)
            yield Static(
                Text("Enter: create  Tab: next field  Esc: cancel  (no round cap: empty)"),
                id="create-help",
            )
            yield Static(id="create-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        def value(selector: str) -> str:
            return self.query_one(selector, Input).value

        try:
            request = build_request(
                value("#name"),
                value("#seats"),
                value("#bots"),
                str(self.query_one("#fate", Select).value),
                str(self.query_one("#overflow", Select).value),
                value("#cap"),
                value("#password"),
            )
        except ValueError as exc:
            self.query_one("#create-error", Static).update(Text.assemble((str(exc), "bold red")))
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PasswordScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="password.cancel"),
    ]

    def __init__(self, table_name: str) -> None:
        super().__init__()
        self.table_name = table_name

    def compose(self) -> ComposeResult:
        with Vertical(id="password-box"):
            yield Static(Text(f"Password for {self.table_name}", style="bold"))
            yield Input(id="password", password=True, max_length=64)
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
