"""A tournament night: the server's open tournaments (Enter registers in the one chosen, f
follows it, n makes a new one by its form), and the one registered in or followed: its
heading, the current round's tables (Enter watches the one chosen) and the standings with
what their points mean, redrawn from the session's `tournament` whenever the server sends a
new one; the status line says how it stands now. The director seats a registered player at
each round's table by itself: the client goes to the table as for any `joined`."""

from __future__ import annotations

from typing import ClassVar

import msgspec
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gother_tui.core import tournament_words as words
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.notice import title
from gother_tui.core.standings import rating_cell
from gother_tui.tui import messages as msg
from gother_tui.tui.screens.new_tournament import NewTournamentScreen
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm

OPEN_COLUMNS = ("Tournament", "Id", "Now", "Players", "Rounds", "Seats")
TABLE_COLUMNS = ("Table", "Players", "Bots", "Game")
STANDING_COLUMNS = ("#", "Player", "Points", "Goth", "Rating", "Games", "")
WHAT_IS_DONE: dict[type[Request], str] = {
    rq.TournamentCreate: "Created",
    rq.TournamentJoin: "Registered",
    rq.TournamentWatch: "Following",
    rq.TournamentStart: "Started",
    rq.TournamentDrop: "You dropped out of the rounds to come",
}
# what the screen asks of a tournament by its id
ById = type[rq.TournamentJoin | rq.TournamentWatch | rq.TournamentStart | rq.TournamentDrop]


class TournamentScreen(Screen[None]):
    REFRESH_EVERY = 5.0  # seconds: tournaments open and fill up while you look
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="tournament.back", tooltip="back to the lobby"),
        # Enter is the focused list's: register in a tournament, or watch a table (priority:
        # the screen's, not the grid's own "select", so the footer says which it does)
        Binding(
            "enter",
            "register",
            "Register",
            key_display="⏎",
            priority=True,
            id="tournament.register",
            tooltip="register in the tournament chosen with Up/Down (or come back to it)",
        ),
        Binding(
            "enter",
            "watch",
            "Watch",
            key_display="⏎",
            priority=True,
            id="tournament.watch_table",
            tooltip="watch the table chosen with Up/Down",
        ),
        Binding(
            "f",
            "follow",
            "Follow",
            id="tournament.follow",
            tooltip="follow the tournament chosen, without playing",
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
        self.open: tuple[sm.TournamentRow, ...] = ()  # as the server last listed them
        self._error_shown = False  # a refusal stays until the tournament or the player moves

    def compose(self) -> ComposeResult:
        yield Static(id="tournament-title")
        yield DataTable(id="tournament-open", cursor_type="row")
        yield DataTable(id="tournament-tables", cursor_type="row")
        # not focusable: Tab goes between the two lists whose Enter does something
        standings: DataTable[Text] = DataTable(
            id="tournament-standings", cursor_type="none", zebra_stripes=True
        )
        standings.can_focus = False
        yield standings
        yield Static(id="tournament-legend")
        yield Static(id="tournament-status")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#tournament-open", DataTable).add_columns(*OPEN_COLUMNS)
        self.query_one("#tournament-tables", DataTable).add_columns(*TABLE_COLUMNS)
        self.query_one("#tournament-standings", DataTable).add_columns(*STANDING_COLUMNS)
        self.watch(self.app, "tournament", self._show)
        self.set_interval(self.REFRESH_EVERY, self._refresh_by_itself)
        self.session.request(self, rq.List())  # the open tournaments come with the tables
        grid = "#tournament-open" if self.session.tournament is None else "#tournament-tables"
        self.query_one(grid, DataTable).focus()

    def _refresh_by_itself(self) -> None:
        if self.session.link == "online" and self.is_current:
            self.session.request(self, rq.List())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter does what the focused list is for: the footer shows the one it does."""
        on_open = self.focused is not None and self.focused.id == "tournament-open"
        if action == "register":
            return on_open
        if action == "watch":
            return not on_open
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def _show(self, tournament: sm.Tournament | None) -> None:
        heading = "Tournaments on this server"
        tables = self.query_one("#tournament-tables", DataTable)
        standings = self.query_one("#tournament-standings", DataTable)
        legend = self.query_one("#tournament-legend", Static)
        tables.clear()
        standings.clear()
        if tournament is not None:
            heading = words.heading(tournament)
            for table in tournament.tables:
                tables.add_row(
                    Text(table.table),
                    Text(", ".join(words.seated(tournament, table))),
                    Text(str(table.bots)),
                    Text("over" if table.over else "playing"),
                    key=table.table,
                )
            glyphs = self.session.glyphs
            for place, row in enumerate(tournament.standings, 1):
                standings.add_row(*_standing_cells(place, row, tournament.duplicate, glyphs))
            legend.update(Text(words.points_legend(tournament)))
            self._status(words.status(tournament))
            listed = next((row for row in self.open if row.id == tournament.id), None)
            now = (tournament.phase, tournament.round, len(tournament.players))
            if listed is not None and (listed.phase, listed.round, listed.players) != now:
                self.session.request(self, rq.List())  # the list says it as it is now
        tables.display = tournament is not None and bool(tournament.tables)
        standings.display = legend.display = tournament is not None
        self.query_one("#tournament-title", Static).update(Text(heading, style="bold"))

    def _show_open(self, rows: tuple[sm.TournamentRow, ...]) -> None:
        self.open = rows
        grid = self.query_one("#tournament-open", DataTable)
        chosen = self._chosen_open()
        grid.clear()
        for row in rows:
            grid.add_row(
                Text(row.name),
                Text(row.id),
                Text("registering" if row.phase == "registering" else f"round {row.round}"),
                Text(str(row.players)),
                Text(str(row.rounds)),
                Text(str(row.seats)),
                key=row.id,
            )
        if chosen is not None and any(row.id == chosen.id for row in rows):
            grid.move_cursor(row=grid.get_row_index(chosen.id))
        grid.display = bool(rows)
        if self.session.tournament is None and not self._error_shown:
            self._status(
                "Enter registers in the tournament chosen, f follows it, n makes a new one."
                if rows
                else "No tournament is open on this server: n makes one."
            )

    # -- what the server answers -----------------------------------------------------------

    def on_answered(self, event: msg.Answered) -> None:
        reply = event.reply
        if isinstance(reply, sm.Tables):
            self._show_open(reply.tournaments)
            return
        done = WHAT_IS_DONE.get(type(event.asked))
        if done is not None and isinstance(reply, sm.Tournament):
            self._status(f"{done}: {reply.name}. {words.status(reply)}")
            self.query_one("#tournament-tables", DataTable).focus()

    def on_refused(self, event: msg.Refused) -> None:
        self._status(f"{title(event.error.code)}: {event.error.message}", error=True)

    def _status(self, text: str, error: bool = False) -> None:
        self._error_shown = error
        status = self.query_one("#tournament-status", Static)
        status.set_class(error, "-error")
        status.update(Text(text))

    # -- actions -------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # a row clicked: as Enter on it
        if event.data_table.id == "tournament-open":
            self.action_register()
        else:
            self.action_watch()

    def action_register(self) -> None:
        self._ask(rq.TournamentJoin, self._chosen_open())

    def action_follow(self) -> None:
        self._ask(rq.TournamentWatch, self._chosen_open())

    def action_start(self) -> None:
        self._ask(rq.TournamentStart, self._followed())

    def action_drop(self) -> None:
        self._ask(rq.TournamentDrop, self._followed())

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

    def _chosen_open(self) -> sm.TournamentRow | None:
        grid = self.query_one("#tournament-open", DataTable)
        if grid.row_count == 0:
            return None
        chosen = grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value
        return next((row for row in self.open if row.id == chosen), None)

    def _followed(self) -> sm.Tournament | sm.TournamentRow | None:
        return self.session.tournament or self._chosen_open()

    def _ask(self, kind: ById, tournament: sm.Tournament | sm.TournamentRow | None) -> None:
        if tournament is None:
            self._status("No tournament chosen: n makes one.", error=True)
            return
        self.session.request(self, kind(tournament=tournament.id))


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
