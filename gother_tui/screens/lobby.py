"""The lobby: the server's tables (seats, bots, started, spectators), and keys to join,
watch, create and refresh. Server errors show here in plain words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from gother_tui.screens.create_table import CreateTableScreen, PasswordScreen

if TYPE_CHECKING:
    from gother_tui.app import GotherApp

REFRESH_EVERY = 5.0  # seconds: tables fill up and start while you look
COLUMNS = ("Table", "Name", "Seats", "Bots", "Game", "Watching", "Password")


def status_of(table: dict[str, Any]) -> str:
    phase = table.get("phase", "lobby")
    if phase == "lobby":
        return "waiting"
    return "over" if phase == "over" else "playing"


def table_row(table: dict[str, Any]) -> list[Text]:
    return [
        Text(str(table.get("id", "?"))),
        Text(str(table.get("name", ""))),
        Text(f"{table.get('seated', 0)}/{table.get('seats', '?')}"),
        Text(str(table.get("bots", 0))),
        Text(status_of(table)),
        Text(str(table.get("spectators", 0))),
        Text("yes" if table.get("password") else ""),
    ]


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: Enter joins, rather than being the grid's own "select" key
        Binding("enter", "join", "Join", key_display="⏎", priority=True, id="lobby.join"),
        # a spectator's Enter watches (the join binding above is off for them)
        Binding("enter", "watch", "Watch", show=False, priority=True, id="lobby.enter_watch"),
        Binding("w", "watch", "Watch", id="lobby.watch"),
        Binding("n", "create", "New table", id="lobby.create"),
        Binding("r", "refresh", "Refresh", id="lobby.refresh"),
    ]

    _error_shown = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (
            action == "join" and self.gapp.options.watch
        )  # an error stays until the next thing the player does

    @property
    def gapp(self) -> GotherApp:
        return cast("GotherApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="lobby-title")
        yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static(id="lobby-status")
        yield Footer()

    def on_mount(self) -> None:
        app = self.gapp
        mode = "watch" if app.options.watch else "join"
        self.query_one("#lobby-title", Static).update(
            Text.assemble(
                ("Gother Than Thou", "bold"),
                f" {app.glyphs.sep} {app.options.url} {app.glyphs.sep} ",
                (app.options.name, "bold"),
                f" ({mode})",
            )
        )
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.watch(self.app, "tables", self._show_tables)
        self.watch(self.app, "lobby_error", self._show_error)
        self.set_interval(REFRESH_EVERY, self._auto_refresh)
        table.focus()

    def _show_tables(self, tables: list[dict[str, Any]]) -> None:
        grid = self.query_one(DataTable)
        selected = self._selected_id()
        grid.clear()
        for table in tables:
            grid.add_row(*table_row(table), key=str(table.get("id")))
        if selected is not None and any(str(t.get("id")) == selected for t in tables):
            grid.move_cursor(row=grid.get_row_index(selected))
        if not self._error_shown:
            if not tables:
                self._status("No tables yet: n creates one.")
            else:
                count = f"{len(tables)} table{'s' * (len(tables) != 1)}"
                enter = "watches" if self.gapp.options.watch else "joins"
                self._status(f"{count}: Enter {enter}, w watches, n creates a new one.")

    def _selected_id(self) -> str | None:
        grid = self.query_one(DataTable)
        if grid.row_count == 0:
            return None
        return grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value

    def _selected(self) -> dict[str, Any] | None:
        table_id = self._selected_id()
        return next((t for t in self.gapp.tables if str(t.get("id")) == table_id), None)

    def _status(self, text: str, error: bool = False) -> None:
        self._error_shown = error
        self.query_one("#lobby-status", Static).update(
            Text.assemble((text, "bold red" if error else ""))
        )

    def _auto_refresh(self) -> None:
        if self.gapp.link == "online" and self.app.screen is self:
            self.gapp.request("list")

    def _show_error(self, text: str) -> None:
        if text:
            self._status(text, error=True)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_join()

    # -- actions -------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self._status("Refreshing…")
        self.gapp.request("list")

    def action_join(self) -> None:
        self._enter(watch=self.gapp.options.watch)

    def action_watch(self) -> None:
        self._enter(watch=True)

    def _enter(self, watch: bool) -> None:
        self.gapp.lobby_error = ""  # an old error is answered by trying again
        table = self._selected()
        if table is None:
            self._status("No table chosen: press n to create one.", error=True)
            return
        table_id = str(table["id"])
        if table.get("password") and not watch:

            def with_password(password: str | None) -> None:
                if password:
                    self.gapp.join_table(table_id, password)

            self.app.push_screen(PasswordScreen(str(table.get("name", table_id))), with_password)
            return
        self._status(f"{'Watching' if watch else 'Joining'} {table.get('name', table_id)}…")
        self.gapp.join_table(table_id, watch=watch)

    def action_create(self) -> None:
        def created(request: dict[str, Any] | None) -> None:
            if request is not None:
                self._status(f"Creating {request['name']}…")
                self.gapp.create_table(request)

        self.app.push_screen(CreateTableScreen(self.gapp.options.name), created)
