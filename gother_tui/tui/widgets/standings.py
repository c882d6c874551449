"""The host's standings under the lobby's tables: the best players that fit, each with
their rating (± how far off it may be, "=" for a reference bot), games, wins, places and
last game, a caption saying how many there are, and what the marks mean. Hidden for a
server that has none to give (an older server, which does not know the request)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from gother_tui.core.glyphs import Glyphs
from gother_tui.core.standings import COLUMNS, legend, rows_of
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
        yield Static(id="standings-legend")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.display = False  # until the server answers

    def show(self, reply: sm.Standings, glyphs: Glyphs) -> None:
        rows = self.query_one(DataTable)
        rows.clear()
        for cells in rows_of(glyphs, [reply])[:SHOWN]:
            rows.add_row(*(Text(cell) for cell in cells))
        shown = min(SHOWN, len(reply.rows))
        if not reply.total:
            caption = "Standings: no finished games yet."
        elif shown < reply.total:
            caption = f"Standings: the top {shown} of {reply.total} (all: gother standings URL)."
        else:
            caption = "Standings:"
        self.query_one("#standings-caption", Static).update(Text(caption))
        marks = self.query_one("#standings-legend", Static)
        marks.update(Text("\n".join(legend(glyphs))))
        rows.display = marks.display = bool(reply.total)
        self.display = True
