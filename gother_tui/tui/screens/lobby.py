"""The lobby: the server's tables (seats, bots, started, spectators, house rules), under them
the chosen table's bots, house rules and how long its games run, a line on its open
tournaments, the host's standings below them, and keys to join, watch, create and refresh.
The lobby asks for what it shows itself: the answers to its requests come back to it, and
refusals show here in plain words. A player the SSH door has just given a token reads it
here first, with how to come back."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gother_tui.core import tournament_words as words
from gother_tui.core.comeback import how_to_come_back, kept_for_the_first
from gother_tui.core.forms import TRAIT_MEANS
from gother_tui.core.notice import title
from gother_tui.core.record import Reference
from gother_tui.tui import messages as msg
from gother_tui.tui.screens.create_table import CreateTableScreen
from gother_tui.tui.screens.password import PasswordScreen
from gother_tui.tui.screens.tournament import TournamentScreen
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar
from gother_tui.tui.widgets.standings import StandingsPanel
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.house_rules import differing
from protocol.view import Variants

# The house rules last, counted, and a name cut at NAME_SHOWN: a row stays whole at 80
# columns (the other columns take 64 with their padding), and the line on the chosen table
# says its name and rules in full.
NAME_SHOWN = 16
COLUMNS = ("Table", "Name", "Seats", "Bots", "Game", "Watching", "Password", "Rules")


def status_of(table: sm.TableRow) -> str:
    if table.phase == "lobby":
        return "waiting"
    return "over" if table.phase == "over" else "playing"


def about(table: sm.TableRow) -> str:
    """The chosen table in a line or two: its bots and whom they hurt, every house rule it
    plays that is not the published game's, and how long its games run (what the server
    measured for it; an older server says neither)."""
    said = table.name
    if table.bots and table.bot:
        said += f": {table.bots} {table.bot} bot{'s' * (table.bots != 1)}"
        if table.trait in TRAIT_MEANS:
            said += f", {table.trait} (each {TRAIT_MEANS[table.trait]})"
    said += "."
    for rule in differing(table.variants):  # the house rules, where not the published game's
        said += f" {rule}."
    if table.lasts:
        said += f" Length: {table.lasts}."
    return said


def rules_cell(variants: Variants) -> str:
    """A table's house rules in the list, counted: "1 rule", "3 rules", or nothing."""
    count = len(differing(variants))
    return f"{count} rule{'s' * (count != 1)}" if count else ""


def name_cell(name: str) -> str:
    """A table's name in the list, cut to NAME_SHOWN with an ellipsis."""
    return name if len(name) <= NAME_SHOWN else name[: NAME_SHOWN - 1] + "…"


def table_row(table: sm.TableRow) -> list[Text]:
    return [
        Text(table.id),
        Text(name_cell(table.name)),
        Text(f"{table.seated}/{table.seats}"),
        Text(f"{table.bots} {table.bot}" if table.bot else str(table.bots)),
        Text(status_of(table)),
        Text(str(table.spectators)),
        Text("yes" if table.password else ""),
        Text(rules_cell(table.variants)),
    ]


class LobbyScreen(Screen[None]):
    REFRESH_EVERY = 5.0  # seconds: tables fill up and start while you look
    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: Enter joins, rather than being the grid's own "select" key
        Binding(
            "enter",
            "join",
            "Join",
            key_display="⏎",
            priority=True,
            id="lobby.join",
            tooltip="join the table chosen with Up/Down",
        ),
        # a spectator's Enter watches (the join binding above is off for them)
        Binding("enter", "watch", "Watch", show=False, priority=True, id="lobby.enter_watch"),
        Binding("w", "watch", "Watch", id="lobby.watch", tooltip="watch the table chosen"),
        Binding("n", "create", "New table", id="lobby.create", tooltip="create a new table"),
        Binding("r", "refresh", "Refresh", id="lobby.refresh", tooltip="refresh the list"),
        Binding(
            "t", "tournament", "Tournament", id="lobby.tournament", tooltip="a tournament night"
        ),
        Binding(
            "y",
            "replay",
            "Replay",
            id="lobby.replay",
            tooltip="a finished game of the table chosen: as your seat saw it if you played",
        ),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.tables: tuple[sm.TableRow, ...] = ()
        self._error_shown = False  # an error stays until the next thing the player does
        self.standings_known = True  # False once the server said it knows no such request

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "join" and self.session.options.watch)

    def compose(self) -> ComposeResult:
        yield Static(id="lobby-title")
        yield Static(id="lobby-door")  # the SSH door's new token, when it gave one
        yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static(id="lobby-table")
        yield Static(id="lobby-tournaments")
        yield StandingsPanel(id="standings")
        yield Static(id="lobby-status")
        yield KeyBar()

    def on_mount(self) -> None:
        options, glyphs = self.session.options, self.session.glyphs
        mode = "watch" if options.watch else "join"
        self.query_one("#lobby-title", Static).update(
            Text.assemble(
                ("Gother Than Thou", "bold"),
                f" {glyphs.sep} {options.url} {glyphs.sep} ",
                (options.name, "bold"),
                f" ({mode})",
            )
        )
        token = options.door_token
        door = self.query_one("#lobby-door", Static)
        door.display = token is not None
        if token is not None:
            door.update(Text(how_to_come_back(token)))
        table = self.query_one("#tables", DataTable)
        table.add_columns(*COLUMNS)
        self.set_interval(self.REFRESH_EVERY, self._refresh_by_itself)
        table.focus()

    # -- what the server answers -----------------------------------------------------------

    def on_answered(self, event: msg.Answered) -> None:
        reply = event.reply
        if isinstance(reply, sm.Tables):
            self._show_tables(reply.tables)
            tournaments = self.query_one("#lobby-tournaments", Static)
            line = words.open_line(reply.tournaments, "t")
            tournaments.update(Text("".join(line)))
            tournaments.display = bool(line)
            if self.standings_known:  # whoever asked for the tables: the standings fresh too
                self.session.request(self, rq.Standings())
        elif isinstance(reply, sm.Standings):
            self.query_one(StandingsPanel).show(reply, self.session.glyphs)
        elif isinstance(reply, sm.Created):  # the creator is not seated until it joins
            asked = event.asked
            password = asked.password if isinstance(asked, rq.Create) else None
            self._go(reply.table, password, watch=self.session.options.watch)

    def on_refused(self, event: msg.Refused) -> None:
        if isinstance(event.asked, rq.Standings):  # an older server has none to give
            self.standings_known = event.error.code != "bad_message"
            self.query_one(StandingsPanel).display = False
            return
        error = event.error
        said = f"{title(error.code)}: {error.message}"
        kept = kept_for_the_first(error.code, self.session.options.door_token)
        self._status(said if kept is None else f"{said}. {kept}", error=True)

    def _show_tables(self, tables: tuple[sm.TableRow, ...]) -> None:
        self.tables = tables
        grid = self.query_one("#tables", DataTable)
        selected = self._selected_id()
        grid.clear()
        for table in tables:
            grid.add_row(*table_row(table), key=table.id)
        if selected is not None and any(t.id == selected for t in tables):
            grid.move_cursor(row=grid.get_row_index(selected))
        self._about_chosen()
        if not self._error_shown:
            if not tables:
                self._status("No tables yet: n creates one.")
            else:
                count = f"{len(tables)} table{'s' * (len(tables) != 1)}"
                enter = "watches" if self.session.options.watch else "joins"
                self._status(f"{count}: Enter {enter}, w watches, n creates a new one.")

    def _selected_id(self) -> str | None:
        grid = self.query_one("#tables", DataTable)
        if grid.row_count == 0:
            return None
        return grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value

    def _selected(self) -> sm.TableRow | None:
        table_id = self._selected_id()
        return next((t for t in self.tables if t.id == table_id), None)

    def _status(self, text: str, error: bool = False) -> None:
        self._error_shown = error
        status = self.query_one("#lobby-status", Static)
        status.set_class(error, "-error")
        status.update(Text(text))

    def _refresh_by_itself(self) -> None:
        if self.session.link == "online" and self.is_current:
            self.session.request(self, rq.List())

    def _about_chosen(self) -> None:
        table = self._selected()
        self.query_one("#lobby-table", Static).update(Text(about(table) if table else ""))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._about_chosen()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_join()

    # -- actions -------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self._status("Refreshing…")
        self.session.request(self, rq.List())

    def action_join(self) -> None:
        self._enter(watch=self.session.options.watch)

    def action_watch(self) -> None:
        self._enter(watch=True)

    def _enter(self, watch: bool) -> None:
        table = self._selected()
        if table is None:
            self._status("No table chosen: press n to create one.", error=True)
            return
        if table.password and not watch:

            def with_password(password: str | None) -> None:
                if password:
                    self._go(table.id, password, watch=False)

            self.app.push_screen(PasswordScreen(f"Password for {table.name}"), with_password)
            return
        self._status(f"{'Watching' if watch else 'Joining'} {table.name}…")
        self._go(table.id, None, watch=watch)

    def _go(self, table: str, password: str | None, *, watch: bool) -> None:
        password = password or None
        if watch:
            self.session.request(self, rq.Watch(table=table, password=password))
        else:
            self.session.request(self, rq.Join(table=table, password=password))

    def action_replay(self) -> None:
        """The chosen table's finished game replayed (as `y` at the game-over panel does):
        your seat's replay if a seat bears your name, else every hand shown."""
        table = self._selected()
        if table is None or table.phase != "over":
            self._status("Choose a table whose game is over to replay it.", error=True)
            return
        name = self.session.options.name
        seat = table.players.index(name) if name in table.players else None
        place = Reference(self.session.options.url, table.id, None, seat)
        self.post_message(msg.ReplayAsked(place))

    def action_tournament(self) -> None:
        self.app.push_screen(TournamentScreen(self.session))

    def action_create(self) -> None:
        def created(request: rq.Create | None) -> None:
            if request is not None:
                self._status(f"Creating {request.name}…")
                self.session.request(self, request)

        self.app.push_screen(CreateTableScreen(self.session.options.name), created)
