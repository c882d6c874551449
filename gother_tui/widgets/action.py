"""The decision in front of you: what it is, the cards it is about (with the cursor and
who gets what), and the preview of the move being composed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.plans import Plan
from gother_tui.prompts import player, player_names, preview, prompt
from gother_tui.widgets.cards import NAME_W, CardList, CardRow, values_header
from gother_tui.widgets.cells import fit


def card_rows(
    view: Mapping[str, Any], plan: Plan | None, glyphs: Glyphs
) -> tuple[str, list[CardRow], int | None]:
    """(title, rows, cursor row) for the decision: which pile the list shows."""
    you = view.get("you") or {}
    hand = list(you.get("hand", ()))
    if plan is None:
        return "Your hand", [CardRow(c) for c in hand], None
    current = plan.current
    if plan.kind == "discard_fate":
        fate = list(reversed(player(view, you.get("seat")).get("fate", ())))
        rows = [CardRow(c, "top" if i == 0 else "", c in plan.choices) for i, c in enumerate(fate)]
        return "Your Fate pile, top first", rows, _index(fate, current)
    if plan.kind == "draw" and plan.source == "discard":
        pile = list(reversed(view.get("discard", ())))
        rows = [CardRow(c, "", c in plan.choices) for c in pile]
        return "Discard pile (Esc: back)", rows, _index(pile, current)
    if plan.kind == "distribute":
        names = player_names(view)
        rows = []
        for c in hand:
            seat = plan.assigned.get(c)
            note = "" if seat is None else f"{glyphs.arrow} {seat + 1} {names.get(seat, '?')}"
            rows.append(CardRow(c, note))
        return "Your hand", rows, _index(hand, current)
    if plan.kind == "discard_hand":
        rows = [CardRow(c, "", c in plan.choices) for c in hand]
        return "Your hand", rows, _index(hand, current)
    return "Your hand", [CardRow(c) for c in hand], None


def _headline(app: Any, view: Mapping[str, Any], plan: Plan | None) -> Text:
    g = app.glyphs
    if app.link == "offline":
        # Colours as spans, not as the Text's base style: spans keep their ANSI colour.
        return Text.assemble(
            (
                f"{g.warning} Connection lost: reconnecting{g.ellipsis} "
                "This is the last state seen.",
                "bold yellow",
            )
        )
    if app.link == "closed":
        return Text.assemble((f"{g.warning} Disconnected: {app.link_detail}.", "bold red"))
    return Text(prompt(view, plan), style="bold")


def _index(cards: list[int], card: int | None) -> int | None:
    return cards.index(card) if card is not None and card in cards else None


class ActionPanel(Vertical):
    def compose(self) -> ComposeResult:
        yield Static(id="prompt")
        yield Static(id="list-title", classes="section")
        yield CardList(id="cards")
        yield Static(Text("If you confirm (Enter):"), id="preview-title", classes="section")
        yield Static(id="preview")

    def show(self, view: Mapping[str, Any] | None, plan: Plan | None, hinted: bool = False) -> None:
        app: Any = self.app
        glyphs: Glyphs = app.glyphs
        catalogue: Catalogue = app.catalogue
        if not view:
            return
        self.query_one("#prompt", Static).update(_headline(app, view, plan))
        title, rows, cursor = card_rows(view, plan, glyphs)
        header = fit(title, 2 + NAME_W, glyphs.ellipsis) + values_header(glyphs)
        self.query_one("#list-title", Static).update(Text(header))
        self.query_one(CardList).show(rows, cursor)
        lines = preview(view, plan, catalogue, glyphs)
        title = self.query_one("#preview-title", Static)
        title.display = bool(lines) and plan is not None
        title.update(Text("The hint; Enter plays it:" if hinted else "If you confirm (Enter):"))
        text = Text("\n".join(lines))
        text.highlight_regex(r"SWOON|DEBT", "bold red")
        text.highlight_regex(r"\d from swoon", "bold yellow")
        self.query_one("#preview", Static).update(text)
