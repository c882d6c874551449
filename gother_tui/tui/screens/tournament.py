"""A tournament: the id to register in or follow (or a new one, by its form), its
heading, the current round's tables (Enter watches the one chosen) and the standings,
redrawn from the session's `tournament` whenever the server sends a new one. The director
seats a registered player at each round's table by itself: the client goes to the table
as for any `joined`."""

from __future__ import annotations

from typing import ClassVar

import msgspec
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from gother_tui.core import tournament_words as words
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.notice import title
from gother_tui.core.standings import rating_cell
from gother_tui.tui import messages as msg
from gother_tui.tui.screens.new_tournament import NewTournamentScreen
from gother_tui.tui.session import Session
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm

TABLE_COLUMNS = ("Table", "Players", "Bots", "Game")
STANDING_COLUMNS = ("#", "Player", "Points", "Goth", "Rating", "Games", "")
WHAT_IS_DONE: dict[type[Request], str] = {
    rq.TournamentCreate: "Created (give its id to the players; s starts it)",
    rq.TournamentJoin: "Registered",
    rq.TournamentWatch: "Following",
    rq.TournamentStart: "Round 1 is seated",
    rq.TournamentDrop: "You dropped out of the rounds to come",
}
# what the screen asks of a tournament by its id
ById = type[rq.TournamentJoin | rq.TournamentWatch | rq.TournamentStart | rq.TournamentDrop]


class TournamentScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="tournament.back", tooltip="back to the lobby"),
        Binding(
            "enter",
            "watch",
            "Watch",
            key_display="⏎",
            id="tournament.watch_table",
            tooltip="watch the table chosen with Up/Down",
        ),
        Binding(
            "f",
            "follow",
            "Follow",
            id="tournament.follow",
            tooltip="follow the tournament whose id is typed, without playing",
        ),
        Binding(
            "s",
            "start",
            "Start",
            id="tournament.start",
            tooltip="deal the first round (the tournament's creator)",
        ),
        Binding("d", "drop", "Drop out", id="tournament.drop", tooltip="leave the rounds to come"),
        Binding(
            "n",
            "new",
            "New",
            id="tournament.new",
            tooltip="create a tournament (with the host's password for tournaments)",
        ),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self._last_form: rq.TournamentCreate | None = None  # a refused form opens as it was

    def compose(self) -> ComposeResult:
        yield Static(id="tournament-title")
        yield Input(placeholder="tournament id: Enter registers, f follows", id="tournament-id")
        yield DataTable(id="tournament-tables", cursor_type="row")
        yield DataTable(id="tournament-standings", cursor_type="none", zebra_stripes=True)
        yield Static(id="tournament-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#tournament-tables", DataTable).add_columns(*TABLE_COLUMNS)
        self.query_one("#tournament-standings", DataTable).add_columns(*STANDING_COLUMNS)
        self.watch(self.app, "tournament", self._show)
        followed = self.session.tournament
        if followed is None:
            self.query_one(Input).focus()
        else:
            self.query_one(Input).value = followed.id
            self.query_one("#tournament-tables", DataTable).focus()

    def _show(self, tournament: sm.Tournament | None) -> None:
        heading = "No tournament yet: type its id and Enter registers; Tab, then n, makes one."
        tables = self.query_one("#tournament-tables", DataTable)
        standings = self.query_one("#tournament-standings", DataTable)
        tables.clear()
        standings.clear()
        if tournament is not None:
            heading = words.heading(tournament)
            for table in tournament.tables:
                players = ", ".join(table.players)
                state = "over" if table.over else "playing"
                tables.add_row(
                    Text(table.table),
                    Text(players),
                    Text(str(table.bots)),
                    Text(state),
                    key=table.table,
                )
            for place, row in enumerate(tournament.standings, 1):
                standings.add_row(
                    *_standing_cells(place, row, tournament.duplicate, self.session.glyphs)
                )
        self.query_one("#tournament-title", Static).update(Text(heading, style="bold"))

    # -- what the server answers -----------------------------------------------------------

    def on_answered(self, event: msg.Answered) -> None:
        done = WHAT_IS_DONE.get(type(event.asked))
        if done is not None and isinstance(event.reply, sm.Tournament):
            self._status(f"{done}: {event.reply.name}.")

    def on_refused(self, event: msg.Refused) -> None:
        self._status(f"{title(event.error.code)}: {event.error.message}", error=True)

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#tournament-status", Static)
        status.set_class(error, "-error")
        status.update(Text(text))

    # -- actions -------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._ask(rq.TournamentJoin, event.value.strip())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter on the round's tables: the grid's own key, the screen's action
        self.action_watch()

    def action_follow(self) -> None:
        self._ask(rq.TournamentWatch, self.query_one(Input).value.strip())

    def action_start(self) -> None:
        self._ask(rq.TournamentStart, self._followed_id())

    def action_drop(self) -> None:
        self._ask(rq.TournamentDrop, self._followed_id())

    def action_watch(self) -> None:
        grid = self.query_one("#tournament-tables", DataTable)
        if grid.row_count == 0:
            self._status("No table to watch yet: the first round is not seated.", error=True)
            return
        table = grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value
        assert table is not None  # every row is keyed by its table's id
        self.session.request(self, rq.Watch(table=table))

    def action_new(self) -> None:
        def made(request: rq.TournamentCreate | None) -> None:
            if request is not None:
                self._last_form = msgspec.structs.replace(request, password=None)
                self._status(f"Creating {request.name}…")
                self.session.request(self, request)

        self.app.push_screen(NewTournamentScreen(self._last_form), made)

    def action_back(self) -> None:
        self.dismiss()

    def _followed_id(self) -> str:
        followed = self.session.tournament
        return followed.id if followed is not None else self.query_one(Input).value.strip()

    def _ask(self, kind: ById, tournament: str) -> None:
        if not tournament:
            self._status("Type the tournament's id first.", error=True)
            self.query_one(Input).focus()
            return
        self.session.request(self, kind(tournament=tournament))


def _standing_cells(
    place: int, row: sm.TournamentStanding, duplicate: bool, glyphs: Glyphs
) -> list[Text]:
    match = f"{words.number(row.match_points)} match, " if duplicate else ""
    return [
        Text(str(place)),
        Text(row.name),
        Text(f"{match}{words.number(row.points)}"),
        Text(str(row.goth)),
        Text(rating_cell(glyphs, row.rating, row.spread)),
        Text(str(row.games)),
        Text("dropped" if row.dropped else ""),
    ]
