"""The tournament screen's form of a new tournament: name, rounds, seats at every table,
whether its creator plays in it, how well the bots that fill short tables play, duplicate
deals, the house rules (the round cap among them) and the host's password for tournaments.
Tab moves between fields, Enter submits, Esc cancels.

Like the lobby's form of a table, it knows no limits of its own: it builds the
`tournament_create` request (gother_tui/core/forms.py) and asks the protocol whether the server
would take it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.widgets import Input, Label, Select, Static

from gother_tui.core.forms import (
    BOT_PLAY,
    DEALS,
    FATE_DISCARD,
    OVERFLOW,
    PLAY,
    tournament_request,
)
from gother_tui.tui.screens.form import FIELD_KEYS, RequestForm
from gother_tui.tui.widgets.footer import KeyBar
from protocol import requests as rq
from protocol.constants import (
    NAME_MAX,
    PASSWORD_MAX,
    ROUND_CAPS,
    TOURNAMENT_ROUNDS,
)
from protocol.view import Variants

FIELDS = (
    "name",
    "rounds",
    "seats",
    "play",
    "bot",
    "deals",
    "fate",
    "overflow",
    "cap",
    "password",
)
# what the form offers first
FIRST = rq.TournamentCreate(name="Tournament night", rounds=3, seats=4, bot="normal", play=True)


class NewTournamentScreen(RequestForm[rq.TournamentCreate]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_KEYS,
        Binding("escape", "cancel", "Cancel", id="new_tournament.cancel"),
        Binding("ctrl+s", "submit", "Create", id="new_tournament.submit"),
    ]

    def __init__(self, last: rq.TournamentCreate | None = None) -> None:
        super().__init__(tournament_request, FIELDS, "new-tournament-error")
        self.last = last or FIRST  # the request sent before (a refused one is asked again)

    def compose(self) -> ComposeResult:
        last = self.last
        rules = last.variants or Variants()
        deals = "duplicate" if last.duplicate else "own"
        with Vertical(id="new-tournament"):
            yield Static(Text("New tournament", style="bold"), classes="section")
            with Grid(id="new-tournament-form"):
                yield Label("Name")
                yield Input(
                    last.name,
                    id="name",
                    max_length=NAME_MAX,
                    compact=True,
                )
                yield Label(f"Rounds (1-{TOURNAMENT_ROUNDS})")
                yield Input(
                    str(last.rounds),
                    id="rounds",
                    type="integer",
                    max_length=2,
                    compact=True,
                )
                yield Label("Seats (3-5)")
                yield Input(
                    str(last.seats),
                    id="seats",
                    type="integer",
                    max_length=1,
                    compact=True,
                )
                yield Label("You play")
                play = "yes" if last.play else "no"
                yield Select(PLAY, value=play, allow_blank=False, id="play", compact=True)
                yield Label("Bots play")
                yield Select(
                    BOT_PLAY,
                    value=last.bot or "normal",
                    allow_blank=False,
                    id="bot",
                    compact=True,
                )
                yield Label("Deals")
                yield Select(DEALS, value=deals, allow_blank=False, id="deals", compact=True)
                yield Label("Fate discard")
                yield Select(
                    FATE_DISCARD,
                    value=rules.fate_discard,
                    allow_blank=False,
                    id="fate",
                    compact=True,
                )
                yield Label("Over the limit")
                yield Select(
                    OVERFLOW,
                    value=rules.overflow,
                    allow_blank=False,
                    id="overflow",
                    compact=True,
                )
                yield Label("Round cap")
                cap = rules.round_cap
                yield Input(
                    "" if cap is None else str(cap),
                    id="cap",
                    type="integer",
                    max_length=len(str(ROUND_CAPS.stop - 1)),
                    compact=True,
                )
                yield Label("Host's password")
                yield Input(id="password", password=True, max_length=PASSWORD_MAX, compact=True)
            yield Static(
                Text(
                    "Enter: create  Tab: next field  Esc: cancel  (no round cap: empty)\n"
                    "Bots fill short tables; the password is the host's, for tournaments."
                ),
                id="new-tournament-help",
            )
            yield Static(id="new-tournament-error")
        yield KeyBar()
