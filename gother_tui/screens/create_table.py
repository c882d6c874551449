"""The lobby's form of a new table: name, seats, bots and how well they play, house
rules, password. Tab moves between fields, Enter submits, Esc cancels.

The form knows no limits of its own: it builds the `create` request it is about to send
and asks the protocol (`validate_request`) whether the server would take it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Select, Static

from protocol import ProtocolError, validate_request
from protocol.constants import (
    DEFAULT_ROUND_CAP,
    DIFFICULTIES,
    HOUSE_SEATS,
    NAME_MAX,
    PASSWORD_MAX,
    ROUND_CAPS,
    SEATS,
)

FATE_DISCARD = (("any card (standard)", "any"), ("the top card only", "top"))
OVERFLOW = (("at the draw step (standard)", "draw_step"), ("immediately, any turn", "immediate"))
BOT_PLAY = tuple((name, name) for name in DIFFICULTIES)  # easy, normal, hard: the players' words


def build_request(
    name: str,
    seats: str,
    bots: str,
    bot: str,
    fate_discard: str,
    overflow: str,
    round_cap: str,
    password: str,
) -> dict[str, Any]:
    """A `create` request from the form's strings, as the protocol checks it; ValueError
    says what to fix."""
    seat_count = whole(seats, "seats")
    variants: dict[str, Any] = {"fate_discard": fate_discard, "overflow": overflow}
    # explicitly off when empty (an absent key means the default)
    variants["round_cap"] = whole(round_cap, "round cap") if round_cap.strip() else None
    if seat_count in HOUSE_SEATS and seat_count not in SEATS:  # the labelled house rule (R2)
        variants["two_or_six"] = True
    request: dict[str, Any] = {
        "t": "create",
        "name": name,
        "seats": seat_count,
        "bots": whole(bots, "bots"),
        "bot": bot,
        "variants": variants,
    }
    if password:
        request["password"] = password
    try:
        checked = validate_request(request)
    except ProtocolError as exc:
        raise ValueError(exc.message) from None
    del checked["t"]
    return checked


def whole(text: str, what: str) -> int:
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
LAST_SEAT = SEATS.stop - 1


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
        name = f"{self.player}'s table"[:NAME_MAX]
        with Vertical(id="create"):
            yield Static(Text("New table", style="bold"), classes="section")
            with Grid(id="create-form"):
                yield Label("Table name")
                yield Input(name, id="name", max_length=NAME_MAX, compact=True)
                yield Label(f"Seats ({SEATS.start}-{LAST_SEAT})")
                yield Input("4", id="seats", type="integer", max_length=1, compact=True)
                yield Label("Bots")
                yield Input("3", id="bots", type="integer", max_length=1, compact=True)
                yield Label("Bots play")
                yield Select(BOT_PLAY, value="normal", allow_blank=False, id="bot", compact=True)
                yield Label("Fate discard")
                yield Select(FATE_DISCARD, value="any", allow_blank=False, id="fate", compact=True)
                yield Label("Over the limit")
                yield Select(
                    OVERFLOW, value="draw_step", allow_blank=False, id="overflow", compact=True
                )
                yield Label("Round cap")
                yield Input(
                    str(DEFAULT_ROUND_CAP),
                    id="cap",
                    type="integer",
                    max_length=len(str(ROUND_CAPS.stop - 1)),
                    compact=True,
                )
                yield Label("Password")
                yield Input(id="password", password=True, max_length=PASSWORD_MAX, compact=True)
            yield Static(
                Text(
                    "Enter: create  Tab: next field  Esc: cancel  (no round cap: empty)\n"
                    f"{HOUSE_SEATS.start} or {HOUSE_SEATS.stop - 1} seats: only as a house rule"
                ),
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
                str(self.query_one("#bot", Select).value),
                str(self.query_one("#fate", Select).value),
                str(self.query_one("#overflow", Select).value),
                value("#cap"),
                value("#password"),
            )
        except ValueError as exc:
            self.query_one("#create-error", Static).update(Text(str(exc)))
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
