"""The lobby's form of a new table: name, seats, bots, how well they play and whom they
hurt, house rules (the game's length a preset of the round cap), password. Tab moves
between fields, Enter submits, Esc cancels. Under the fields, how long such a table's games
run, from measured games, as the fields change.

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

from gother_tui.core.forms import (
    BOT_AIM,
    BOT_PLAY,
    FATE_DISCARD,
    LENGTHS,
    OVERFLOW,
    lasts,
    table_request,
)
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
        fields = ("name", "seats", "bots", "bot", "aim", "fate", "overflow", "cap", "password")
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
                yield Label("Bots aim")
                yield Select(BOT_AIM, value="", allow_blank=False, id="aim", compact=True)
                yield Label("Fate discard")
                yield Select(FATE_DISCARD, value="any", allow_blank=False, id="fate", compact=True)
                yield Label("Over the limit")
                yield Select(
                    OVERFLOW, value="draw_step", allow_blank=False, id="overflow", compact=True
                )
                yield Label("Length")
                yield Select(
                    LENGTHS,
                    value=str(DEFAULT_ROUND_CAP),
                    allow_blank=False,
                    id="length",
                    compact=True,
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
            yield Static(id="create-lasts")
            yield Static(id="create-error")
        yield KeyBar()

    def on_mount(self) -> None:
        self._say_how_long()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "length":  # a preset of the round cap (H1)
            self.query_one("#cap", Input).value = str(event.value)
        self._say_how_long()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._say_how_long()

    def _say_how_long(self) -> None:
        _, seats, _, bot, aim, _, _, cap, _ = self.typed()
        self.query_one("#create-lasts", Static).update(Text(lasts(seats, bot, aim, cap)))
