"""A scrollable page of text over the table: every Fate pile in full, the whole discard
pile, the whole log. Esc (or the key that opened it) closes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.prompts import player_names


def fates_text(view: Mapping[str, Any], catalogue: Catalogue, glyphs: Glyphs) -> Text:
    names = player_names(view)
    text = Text()
    for p in view.get("players", ()):
        fate = list(p.get("fate", ()))
        seat = p["seat"]
        scores = p.get("scores", {})
        text.append(f"{seat + 1} {names[seat]}", "bold")
        text.append(
            f"  {glyphs.goth}{scores.get('goth', 0)} {glyphs.sickness}{scores.get('sickness', 0)}"
            f" {glyphs.money}{scores.get('money', 0)}  {len(fate)} card{'s' * (len(fate) != 1)}"
            ", top first\n"
        )
        if not fate:
            text.append("    (empty)\n", "dim")
        for i, card in enumerate(reversed(fate)):
            c = catalogue[card]
            text.append(f"  {'top ' if i == 0 else '    '}{c.name:<24} {c.values(glyphs)}\n")
        text.append("\n")
    return text


def discard_text(view: Mapping[str, Any], catalogue: Catalogue, glyphs: Glyphs) -> Text:
    pile = list(reversed(view.get("discard", ())))
    if not pile:
        return Text("The discard pile is empty.", style="dim")
    text = Text(f"{len(pile)} cards, top first\n\n")
    for i, card in enumerate(pile):
        c = catalogue[card]
        text.append(f"{i + 1:>3}  {c.name:<24} {c.values(glyphs)}\n")
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
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
