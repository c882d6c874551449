"""A scrollable page of text over the table: every Fate pile in full, the whole discard
pile, the whole log. Esc (or the key that opened it) closes it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gother_tui.core.catalogue import Catalogue, values
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import names_of, plural
from gother_tui.core.preview import fate_sums, sickness_text
from gother_tui.tui.widgets.footer import KeyBar
from protocol.constants import NAME_MAX
from protocol.view import View


def fates_text(view: View, catalogue: Catalogue, glyphs: Glyphs) -> Text:
    names = names_of(view.players)
    text = Text()
    for p in view.players:
        fate = p.fate
        text.append(f"{p.seat + 1} {names[p.seat]}", "bold")
        sick = sickness_text(fate_sums(fate, catalogue))
        text.append(
            f"  {glyphs.goth}{p.goth} {glyphs.sickness}{sick} {glyphs.money}{p.money}"
            f"  {plural(len(fate), 'card')}, top first\n"
        )
        if not fate:
            text.append("    (empty)\n", "dim")
        for i, card in enumerate(reversed(fate)):
            c = catalogue[card]
            text.append(
                f"  {'top ' if i == 0 else '    '}{c.name:<{NAME_MAX}} {values(c, glyphs)}\n"
            )
        text.append("\n")
    return text


def discard_text(view: View, catalogue: Catalogue, glyphs: Glyphs) -> Text:
    pile = list(reversed(view.discard))
    if not pile:
        return Text("The discard pile is empty.", style="dim")
    text = Text(f"{plural(len(pile), 'card')}, top first\n\n")
    for i, card in enumerate(pile):
        c = catalogue[card]
        text.append(f"{i + 1:>3}  {c.name:<{NAME_MAX}} {values(c, glyphs)}\n")
    return text


class TextViewer(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f,x,l", "close", "Close", key_display="Esc", id="viewer.close"),
    ]

    def __init__(self, title: str, text: Text) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(Text(self.title_text, style="bold"), classes="section")
            with VerticalScroll(id="viewer-body"):
                yield Static(self.text)
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
