"""F1 / ?: the keys, and the rules in short (shipped as help/rules.txt)."""

from __future__ import annotations

from importlib.resources import files
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from gother_tui.glyphs import Glyphs

KEYS = (
    ("At the table", ""),
    ("Up/Down (or j/k)", "move the cursor over the cards listed on the left"),
    ("1-5", "distribute: give the highlighted card to that seat (again: change your mind)"),
    ("0 / Backspace", "distribute: take the highlighted card back"),
    ("d", "draw the top card of the draw pile (d again, or Enter, to confirm)"),
    ("p", "draw: open the discard pile to take a card from it (not when in debt)"),
    ("Enter", "send the move shown in the preview"),
    ("Esc", "clear your choices / leave the chat line / close the discard pile list"),
    ("h", "hint: the server suggests a move; Enter plays it"),
    ("f  x  l", "every Fate pile / the whole discard pile / the whole log"),
    ("c", "chat (Enter sends, Esc returns to the table)"),
    ("s  r  L", "start now with bots (before the deal) / rematch / leave the table"),
    ("o", "after the game: the results and Goth Points by round (Esc: the final table)"),
    ("In the lobby", ""),
    ("Up/Down, Enter", "choose a table and join it"),
    ("w  n  r", "watch the table / new table / refresh the list"),
    ("Anywhere", ""),
    ("F1 or ?", "this help (Esc closes)"),
    ("Ctrl+Q", "quit (your seat is kept: run the same command to come back)"),
)


def marks(g: Glyphs) -> tuple[tuple[str, str], ...]:
    return (
        ("Marks on the table", ""),
        (f"{g.goth} {g.sickness} {g.money}", "Goth Points, Sickness, Money"),
        (g.turn, "whose decision the game is waiting for"),
        (f"{g.warning} after Sickness", "3 or 4 Sickness: close to a swoon (5)"),
        (g.debt, "Money below 0: draws only from the deck"),
        (f"{g.bot}  {g.away}", "a bot's seat; a player whose connection is gone"),
    )


def rules_text() -> str:
    return files("gother_tui").joinpath("help/rules.txt").read_text(encoding="utf-8")


def keys_table(glyphs: Glyphs) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(width=16, style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for key, what in (*KEYS, *marks(glyphs)):
        if what:
            table.add_row(Text(key), Text(what))
        else:
            table.add_row(Text(""), Text(""))
            table.add_row(Text(key, style="bold underline"), Text(""))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "close", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(Text("Help: keys and rules", style="bold"), classes="section")
            with VerticalScroll(id="help-body"):
                yield Static(keys_table(self.app.glyphs))  # type: ignore[attr-defined]
                yield Static(Text("\n" + rules_text()))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
