"""The tournament screen's form of a new tournament: name, rounds, seats at every table,
how well the bots that fill short tables play, duplicate deals, the house rules and the
host's password for tournaments. Tab moves between fields, Enter submits, Esc cancels.

Like the lobby's form of a table, it knows no limits of its own: it builds the
`tournament_create` request and asks the protocol whether the server would take it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Select, Static

from gother_tui.screens.create_table import BOT_PLAY, FATE_DISCARD, FIELD_KEYS, OVERFLOW, whole
from protocol import ProtocolError, validate_request
from protocol.constants import NAME_MAX, PASSWORD_MAX, TOURNAMENT_ROUNDS

DEALS = (("each table its own", "own"), ("the same at every table", "duplicate"))


def build_request(
    name: str,
    rounds: str,
    seats: str,
    bot: str,
    deals: str,
    fate_discard: str,
    overflow: str,
    password: str,
) -> dict[str, Any]:
    """A `tournament_create` request from the form's strings, as the protocol checks it;
    ValueError says what to fix."""
    request: dict[str, Any] = {
        "t": "tournament_create",
        "name": name,
        "rounds": whole(rounds, "rounds"),
        "seats": whole(seats, "seats"),
        "bot": bot,
        "duplicate": deals == "duplicate",
        "variants": {"fate_discard": fate_discard, "overflow": overflow},
    }
    if password:
        request["password"] = password
    try:
        checked = validate_request(request)
    except ProtocolError as exc:
        raise ValueError(exc.message) from None
    del checked["t"]
    return checked


class NewTournamentScreen(ModalScreen[dict[str, Any] | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_KEYS,
        Binding("escape", "cancel", "Cancel", id="new_tournament.cancel"),
        Binding("ctrl+s", "submit", "Create", id="new_tournament.submit"),
    ]

    def __init__(self, last: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.last = last or {}  # the request sent before (a refused one is asked again)

    def compose(self) -> ComposeResult:
        last, rules = self.last, self.last.get("variants", {})
        deals = "duplicate" if last.get("duplicate") else "own"
        with Vertical(id="new-tournament"):
            yield Static(Text("New tournament", style="bold"), classes="section")
            with Grid(id="new-tournament-form"):
                yield Label("Name")
                yield Input(
                    last.get("name", "Tournament night"),
                    id="name",
                    max_length=NAME_MAX,
                    compact=True,
                )
                yield Label(f"Rounds (1-{TOURNAMENT_ROUNDS})")
                yield Input(
                    str(last.get("rounds", 3)),
                    id="rounds",
                    type="integer",
                    max_length=2,
                    compact=True,
                )
                yield Label("Seats (3-5)")
                yield Input(
                    str(last.get("seats", 4)),
                    id="seats",
                    type="integer",
                    max_length=1,
                    compact=True,
                )
                yield Label("Bots play")
                yield Select(
                    BOT_PLAY,
                    value=last.get("bot", "normal"),
                    allow_blank=False,
                    id="bot",
                    compact=True,
                )
                yield Label("Deals")
                yield Select(DEALS, value=deals, allow_blank=False, id="deals", compact=True)
                yield Label("Fate discard")
                yield Select(
                    FATE_DISCARD,
                    value=rules.get("fate_discard", "any"),
                    allow_blank=False,
                    id="fate",
                    compact=True,
                )
                yield Label("Over the limit")
                yield Select(
                    OVERFLOW,
                    value=rules.get("overflow", "draw_step"),
                    allow_blank=False,
                    id="overflow",
                    compact=True,
                )
                yield Label("Host's password")
                yield Input(id="password", password=True, max_length=PASSWORD_MAX, compact=True)
            yield Static(
                Text(
                    "Enter: create  Tab: next field  Esc: cancel\n"
                    "Bots fill short tables; the password is the host's, for tournaments."
                ),
                id="new-tournament-help",
            )
            yield Static(id="new-tournament-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        def value(selector: str) -> str:
            return self.query_one(selector, Input).value

        def chosen(selector: str) -> str:
            return str(self.query_one(selector, Select).value)

        try:
            request = build_request(
                value("#name"),
                value("#rounds"),
                value("#seats"),
                chosen("#bot"),
                chosen("#deals"),
                chosen("#fate"),
                chosen("#overflow"),
                value("#password"),
            )
        except ValueError as exc:
            self.query_one("#new-tournament-error", Static).update(Text(str(exc)))
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
