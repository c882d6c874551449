"""The host's standings under the lobby's tables: the best players that fit, each with
their rating ("?" while provisional, "=" for a reference bot), games, wins, places and last
game, and a caption saying how many there are. Hidden for a server that has none to give
(an older server, which does not know the request)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from gother_tui.core.standings import COLUMNS, rows_of
from protocol import server_messages as sm

SHOWN = 5  # rows: the lobby's tables keep the most of an 80x24 screen


class StandingsPanel(Vertical):
    def compose(self) -> ComposeResult:
        yield Static(id="standings-caption")
        # not focusable: the lobby's keys are for its tables; all of it is `gother standings`
        rows: DataTable[Text] = DataTable(
            id="standings-rows", cursor_type="none", show_cursor=False
        )
        rows.can_focus = False
        yield rows

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.display = False  # until the server answers

    def show(self, reply: sm.Standings) -> None:
        rows = self.query_one(DataTable)
        rows.clear()
        for cells in rows_of([reply])[:SHOWN]:
            rows.add_row(*(Text(cell) for cell in cells))
        shown = min(SHOWN, len(reply.rows))
        if not reply.total:
            caption = "Standings: no finished games yet."
        elif shown < reply.total:
            caption = f"Standings: the top {shown} of {reply.total} (all: gother standings URL)."
        else:
            caption = "Standings:"
        caption += f"  ? provisional (under {reply.provisional_games} games)  = reference bot"
        self.query_one("#standings-caption", Static).update(Text(caption))
        rows.display = bool(reply.total)
        self.display = True
