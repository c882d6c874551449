"""F1 / ?: the keys, and the rules in short (shipped as help/rules.txt).

The key table is made by the app from its live bindings (`ClientApp.help_rows`): each
binding's tooltip, with the keys the user's keymap gives it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib.resources import files
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gother_tui.core.glyphs import Glyphs
from gother_tui.core.preview import NEAR_SWOON
from gother_tui.tui.widgets.footer import KeyBar
from protocol.constants import SWOON_AT

KeyRows = Sequence[tuple[str, str]]  # (keys, what they do)


def marks(g: Glyphs) -> KeyRows:
    return (
        (f"{g.goth} {g.sickness} {g.money}", "Goth Points, Sickness, Money"),
        (f"{g.sickness}0 (-3 banked)", "a cure that soaks up the next 3 Sickness"),
        (g.turn, "whose decision the game is waiting for"),
        (
            f"{g.warning} after Sickness",
            f"{NEAR_SWOON} or {SWOON_AT - 1} Sickness: close to a swoon ({SWOON_AT})",
        ),
        (g.debt, "Money below 0: draws only from the deck"),
        (f"{g.bot}  {g.away}", "a bot's seat; a player whose connection is gone"),
    )


def rules_text(glyphs: Glyphs) -> str:
    """The rules in short, one paragraph a line (the screen wraps them to its width), in
    the glyphs the table draws with."""
    text = files("gother_tui.tui").joinpath("help/rules.txt").read_text(encoding="utf-8")
    return text.replace("☥", glyphs.goth).replace("☠", glyphs.sickness).replace("±", glyphs.spread)


def rules_view(text: str) -> Group:
    """Paragraphs that wrap to the screen's width; a numbered step keeps a hanging indent."""
    parts: list[Text | Table] = [Text("")]
    steps: Table | None = None
    for line in text.splitlines():
        step = re.match(r"\s+(\d+\.)\s+(.*)", line)
        if step:
            if steps is None:
                steps = Table(box=None, show_header=False, padding=(0, 1, 0, 0), expand=True)
                steps.add_column(width=4, justify="right", no_wrap=True)
                steps.add_column(ratio=1)
                parts.append(steps)
            steps.add_row(step[1], Text(step[2]))
            continue
        steps = None
        parts.append(Text(line, style="bold" if line.isupper() else ""))
    return Group(*parts)


def keys_table(sections: Sequence[tuple[str, KeyRows]]) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(width=18, style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for number, (heading, rows) in enumerate(sections):
        if number:
            table.add_row(Text(""), Text(""))
        table.add_row(Text(heading, style="bold underline"), Text(""))
        for keys, what in rows:
            table.add_row(Text(keys), Text(what))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "close", "Close", id="help.close"),
    ]

    def __init__(self, glyphs: Glyphs, keys: Sequence[tuple[str, KeyRows]]) -> None:
        super().__init__()
        self.sections = [*keys, ("Marks on the table", marks(glyphs))]
        self.glyphs = glyphs

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(Text("Help: keys and rules", style="bold"), classes="section")
            with VerticalScroll(id="help-body"):
                yield Static(keys_table(self.sections))
                yield Static(rules_view(rules_text(self.glyphs)))
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
