"""Every player's panel, one line each: turn mark, seat number (the key that gives them a
card), name with bot/away marks, hand, the three scores with debt and near-swoon warnings,
and the Fate pile's top card. Names are untrusted: they only ever enter a Text as plain
strings, never as markup."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.preview import NEAR_SWOON
from gother_tui.widgets.cells import fit

NAME_W, HAND_W, GOTH_W, SICK_W, MONEY_W = 20, 5, 6, 7, 10


def header(glyphs: Glyphs) -> Text:
    parts = [
        fit("", 2),
        fit("#", 2),
        fit("Player", NAME_W),
        fit("Hand", HAND_W),
        fit("Goth", GOTH_W),
        fit("Sick", SICK_W),
        fit("Money", MONEY_W),
        "Fate pile: cards, top",
    ]
    return Text("".join(parts), style="bold")


def name_with_marks(p: Mapping[str, Any], you: int | None, glyphs: Glyphs, width: int) -> str:
    """The name cut to fit, never the marks: "(you)", bot and away must stay visible."""
    name = p.get("name")
    if not name:
        return fit("(free seat)", width)
    marks = []
    if p.get("seat") == you:
        marks.append("(you)")
    if p.get("bot"):
        marks.append(glyphs.bot)
    elif p.get("covered"):
        marks.append(glyphs.covered)
    elif not p.get("connected", True):
        marks.append(glyphs.away)
    if p.get("rematch"):
        marks.append("(rematch)")
    if isinstance(p.get("clock"), int | float):  # seconds left, on tables with a clock
        seconds = int(p["clock"])
        marks.append(f"{seconds // 60}:{seconds % 60:02d}")
    tail = " ".join(marks)
    room = width - cell_len(tail) - (1 if tail else 0)
    return fit(f"{fit(str(name), room, glyphs.ellipsis).rstrip()} {tail}".rstrip(), width)


def player_line(
    p: Mapping[str, Any],
    view: Mapping[str, Any],
    catalogue: Catalogue,
    glyphs: Glyphs,
    width: int,
) -> Text:
    seat = int(p.get("seat", 0))
    you = (view.get("you") or {}).get("seat")
    acting = view.get("to_act") if view.get("to_act") is not None else view.get("turn")
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(fit(glyphs.turn if seat == acting else "", 2), style="bold")
    line.append(fit(str(seat + 1), 2), style="bold")
    name_style = "bold" if seat == acting else ("dim" if not p.get("connected", True) else "")
    line.append(name_with_marks(p, you, glyphs, NAME_W - 1) + " ", name_style)
    if "scores" not in p:  # the lobby: seats only
        return line
    scores = p["scores"]
    line.append(fit(f"{p.get('hand_count', 0)}/{p.get('hand_limit', 0)}", HAND_W))
    line.append(fit(f"{glyphs.goth}{scores['goth']:>3}", GOTH_W), "bold")
    sick = int(scores["sickness"])
    warn = sick >= NEAR_SWOON
    sick_text = f"{glyphs.sickness}{sick:>2}" + (f" {glyphs.warning}" if warn else "")
    line.append(fit(sick_text, SICK_W), "bold yellow" if warn else "")
    debt = bool(p.get("in_debt"))
    money_text = f"{glyphs.money}{scores['money']:>3}" + (f" {glyphs.debt}" if debt else "")
    line.append(fit(money_text, MONEY_W), "bold red" if debt else "")
    fate = list(p.get("fate", ()))
    used = 2 + 2 + NAME_W + HAND_W + GOTH_W + SICK_W + MONEY_W
    if fate:
        top = catalogue[fate[-1]]
        fate_text = f"{len(fate)}: {top.name} {top.values(glyphs, all_three=False)}"
    else:
        fate_text = "0: empty"
    line.append(fit(fate_text, max(0, width - used), glyphs.ellipsis), "italic" if fate else "dim")
    return line


class PlayersPanel(Static):
    """Watches the app's view; re-rendered whole on every state (a few lines)."""

    DEFAULT_CSS = "PlayersPanel { height: auto; }"

    def on_mount(self) -> None:
        self.watch(self.app, "view", self._show)

    def _show(self, view: dict[str, Any] | None) -> None:
        self.update(self.render_view(view))

    def on_resize(self) -> None:
        self._show(getattr(self.app, "view", None))

    def render_view(self, view: Mapping[str, Any] | None) -> Text:
        app: Any = self.app
        glyphs: Glyphs = app.glyphs
        if not view:
            return Text("")
        width = self.size.width or 80
        lines = [header(glyphs)]
        lines += [
            player_line(p, view, app.catalogue, glyphs, width) for p in view.get("players", ())
        ]
        return Text("\n").join(lines)
