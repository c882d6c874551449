"""The lobby's form of a new table: name, seats, bots and how well they play, house
rules, password. Tab moves between fields, Enter submits, Esc cancels.

The form knows no limits of its own: it builds the `create` request it is about to send
(gother_tui/core/forms.py) and asks the protocol whether the server would take it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.widgets import Input, Label, Select, Static

from gother_tui.core.forms import BOT_PLAY, FATE_DISCARD, OVERFLOW, table_request
from gother_tui.tui.screens.form import FIELD_KEYS, RequestForm
from gother_tui.tui.widgets.footer import KeyBar
from protocol import requests as rq
from protocol.constants import (
    DEFAULT_ROUND_CAP,
    HOUSE_SEATS,
    NAME_MAX,
    PASSWORD_MAX,
    ROUND_CAPS,
    SEATS,
)

LAST_SEAT = SEATS.stop - 1


class CreateTableScreen(RequestForm[rq.Create]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_KEYS,
        Binding("escape", "cancel", "Cancel", id="create.cancel"),
        Binding("ctrl+s", "submit", "Create", id="create.submit"),
    ]

    def __init__(self, player: str) -> None:
        fields = ("name", "seats", "bots", "bot", "fate", "overflow", "cap", "password")
        super().__init__(table_request, fields, "create-error")
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
        yield KeyBar()
