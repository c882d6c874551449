"""`gother replay FILE`: the table screen, read-only, over the views of a game record.

←/→ step one move, Home/End jump to the deal / the end, o shows the results at the end.
Every hand is revealed (the record holds the referee's views): they are listed where the
chat would be. Nothing is ever sent anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input, Static

from gother_tui.history import GothHistory
from gother_tui.prompts import player_names
from gother_tui.screens.table import TableScreen
from gother_tui.widgets.talk import ChatLog

DISABLED = {"chat", "hint", "start", "rematch", "leave"}


def position_text(index: int, total: int, moves: list[list[Any]], view: Mapping[str, Any]) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"move {index}/{total}", "bold reverse")
    if index == 0:
        text.append("  the deal")
    elif index - 1 < len(moves):
        seat, move = moves[index - 1][0], moves[index - 1][1]
        kind = str(move.get("kind", "?")) if isinstance(move, dict) else "?"
        name = player_names(view).get(seat, f"Seat {seat}") if isinstance(seat, int) else "?"
        text.append(f"  {name}: {kind.replace('_', ' ')}")
    text.append("   <-/->: step  Home/End", "dim")
    return text


def hands_text(view: Mapping[str, Any], catalogue: Any) -> Text:
    names = player_names(view)
    lines = []
    for p in view.get("players", ()):
        cards = ", ".join(catalogue.name(c) for c in p.get("hand", ()))
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{p['seat'] + 1} {names.get(p['seat'], '?')}: ", "bold")
        line.append(cards or "(no cards)")
        lines.append(line)
    joined = Text("\n").join(lines)
    joined.no_wrap, joined.overflow = True, "ellipsis"  # one line a player: f shows more
    return joined


class ReplayScreen(TableScreen):
    READ_ONLY = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Back", key_display="←", id="replay.back"),
        Binding("right", "step(1)", "Forward", key_display="→", id="replay.forward"),
        Binding("home", "jump(0)", "Deal", show=False, id="replay.first"),
        Binding("end", "jump(-1)", "End", show=False, id="replay.last"),
        Binding("q", "app.quit", "Quit", show=False, id="replay.quit"),
    ]

    def on_mount(self) -> None:
        # The chat has no place in a replay: its corner lists every (revealed) hand.
        for widget in (self.query_one(ChatLog), self.query_one("#chat-input", Input)):
            widget.display = False
        self.query(".section").last(Static).update(Text("Hands (all revealed)"))
        self.query_one("#side").mount(Static(id="hands"))
        self.mount(Static(id="replay-pos"), before=self.query_one(Footer))
        # TableScreen.on_mount runs next (Textual calls every class's handler)

    @property
    def views(self) -> list[dict[str, Any]]:
        return self.app.record.views  # type: ignore[attr-defined]

    def _follow_game(self, view: dict[str, Any] | None) -> None:
        if not self.history.rounds:  # the whole game is known: chart all of it, once
            self.history = GothHistory()
            for v in self.views:
                self.history.record(v)

    def _on_link(self, link: str) -> None:
        self._redraw()  # never "offline": there is no connection

    def _redraw(self) -> None:
        super()._redraw()
        view = self.gapp.view
        app: Any = self.app
        if view is None:
            return
        total = len(self.views) - 1
        pos = position_text(app.position, total, app.record.moves, view)
        self.query_one("#replay-pos", Static).update(pos)
        self.query_one("#hands", Static).update(hands_text(view, self.gapp.catalogue))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in DISABLED:
            return False
        return super().check_action(action, parameters)

    def action_step(self, delta: int) -> None:
        app: Any = self.app
        app.show_position(app.position + delta)

    def action_jump(self, index: int) -> None:
        app: Any = self.app
        app.show_position(index if index >= 0 else len(self.views) - 1)
