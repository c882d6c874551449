"""`gother replay FILE`: the table screen, read-only, over the views of a game record.

←/→ step one move, Home/End jump to the deal / the end, o shows the results at the end.
Every hand is revealed (the record holds the referee's views): they are listed where the
chat would be. Nothing is ever sent anywhere.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static

from gother_tui.catalogue import Catalogue
from gother_tui.history import GothHistory
from gother_tui.prompts import player_names
from gother_tui.record import GameRecord, RecordMove
from gother_tui.screens.table import MOVE_ACTIONS, TableScreen
from gother_tui.session import Session
from gother_tui.widgets.footer import KeyBar
from protocol.view import View

DISABLED = {"chat", "hint", "start", "rematch", "leave"}


class Replay(Protocol):
    """The record being shown, and where in it."""

    @property
    def record(self) -> GameRecord: ...

    @property
    def position(self) -> int: ...

    def show_position(self, index: int) -> None: ...


def position_text(
    index: int, total: int, moves: tuple[tuple[int, RecordMove], ...], view: View
) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"move {index}/{total}", "bold reverse")
    if index == 0:
        text.append("  the deal")
    elif index - 1 < len(moves):
        seat, move = moves[index - 1]
        name = player_names(view).get(seat, f"Seat {seat}")
        text.append(f"  {name}: {move.kind.replace('_', ' ')}")
    text.append("   <-/->: step  Home/End", "dim")
    return text


def hands_text(view: View, catalogue: Catalogue) -> Text:
    names = player_names(view)
    lines = []
    for p in view.players:
        cards = ", ".join(catalogue.name(c) for c in p.hand or ())
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{p.seat + 1} {names.get(p.seat, '?')}: ", "bold")
        line.append(cards or "(no cards)")
        lines.append(line)
    joined = Text("\n").join(lines)
    joined.no_wrap, joined.overflow = True, "ellipsis"  # one line a player: f shows more
    return joined


class ReplayScreen(TableScreen):
    READ_ONLY = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "left", "step(-1)", "Back", key_display="←", id="replay.back", tooltip="one move back"
        ),
        Binding(
            "right",
            "step(1)",
            "Forward",
            key_display="→",
            id="replay.forward",
            tooltip="one move on",
        ),
        Binding("home", "jump(0)", "Deal", show=False, id="replay.first", tooltip="the deal"),
        Binding("end", "jump(-1)", "End", show=False, id="replay.last", tooltip="the end"),
        Binding("q", "app.quit", "Quit", show=False, id="replay.quit", tooltip="quit"),
    ]

    def __init__(self, session: Session, replay: Replay) -> None:
        super().__init__(session)
        self.replay = replay

    @classmethod
    def help_bindings(cls) -> list[BindingType]:
        """The replay's own keys, then the table's that still mean something here."""
        shown = [
            b
            for b in TableScreen.BINDINGS
            if isinstance(b, Binding)
            and b.action.partition("(")[0] not in DISABLED | MOVE_ACTIONS | {"clear"}
        ]
        return [*cls.BINDINGS, *shown]

    def on_mount(self) -> None:
        # Nothing is typed in a replay; the record's chat shows where the chat was, and the
        # left column lists every (revealed) hand.
        self.query_one("#chat-input", Input).display = False
        self.query(".section").last(Static).update(Text("Chat (as recorded)"))
        self.query_one("#action").mount(Static(id="hands"), before="#spectating")
        self.mount(Static(id="replay-pos"), before=self.query_one(KeyBar))
        # TableScreen.on_mount runs next (Textual calls every class's handler)

    def _follow_game(self, view: View | None) -> None:
        if not self.history.rounds:  # the whole game is known: chart all of it, once
            self.history = GothHistory()
            for v in self.replay.record.views:
                self.history.record(v)

    def _on_link(self, link: str) -> None:
        self._redraw()  # never "offline": there is no connection

    def _redraw(self) -> None:
        super()._redraw()
        view = self.session.view
        if view is None:
            return
        record = self.replay.record
        pos = position_text(self.replay.position, len(record.views) - 1, record.moves, view)
        self.query_one("#replay-pos", Static).update(pos)
        self.query_one("#hands", Static).update(hands_text(view, self.session.catalogue))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in DISABLED:
            return False
        return super().check_action(action, parameters)

    def action_step(self, delta: int) -> None:
        self.replay.show_position(self.replay.position + delta)

    def action_jump(self, index: int) -> None:
        self.replay.show_position(index if index >= 0 else len(self.replay.record.views) - 1)
