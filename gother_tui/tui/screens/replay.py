"""`gother replay FILE`: the table screen, read-only, over the views of a game record.

←/→ step one move, [/] one turn, {/} one round, Home/End jump to the deal / the end, o
shows the results at the end. A record of the referee's views reveals every hand: they are
listed where the chat would be. A seat's replay shows only what that seat saw (its own hand,
the public piles), until v reveals every hand or the end does. Nothing is ever sent anywhere:
p (play on from here) ends the replay with its place, and the command line then asks the
server for a new game from the start of that turn, as the seat knew it.

The screen reads where it is from its `Replay` (the record, `position`, `seat`, `revealed`)
and moves only through `show_position` and `reveal`, so other panels can share them.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.history import GothHistory
from gother_tui.core.narrator import names_of
from gother_tui.core.record import GameRecord, Reference
from gother_tui.tui.screens.table import MOVE_ACTIONS, TableScreen
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar
from protocol.moves import Move
from protocol.view import View

DISABLED = {"chat", "hint", "start", "rematch", "leave"}


class Replay(Protocol):
    """The record being shown, and where in it."""

    @property
    def record(self) -> GameRecord: ...

    @property
    def position(self) -> int: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def revealed(self) -> bool: ...

    @property
    def views(self) -> tuple[View, ...]: ...

    def reference(self) -> Reference | None: ...

    def show_position(self, index: int) -> None: ...

    def reveal(self, on: bool) -> None: ...

    def play_on(self) -> None: ...


def position_text(
    index: int, total: int, moves: tuple[tuple[int, Move], ...], view: View, turn: int
) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"move {index}/{total}", "bold reverse")
    if index == 0:
        text.append("  the deal")
    elif index - 1 < len(moves):
        seat, move = moves[index - 1]
        name = names_of(view.players).get(seat, f"Seat {seat}")
        text.append(f"  {name}: {move.kind.replace('_', ' ')}")
    text.append(f"  (round {view.round}, turn {turn})")
    text.append("   <-/->: step  [/]: turn  {/}: round  Home/End", "dim")
    return text


def seat_text(replay: Replay) -> Text:
    """Whose replay this is, whether it still hides anything, and where it is for a friend."""
    if replay.seat is None:
        text = Text("every hand shown", "dim")
    else:
        text = Text(f"as seat {replay.seat + 1} saw it", "bold")
        text.append("  every hand shown (v: hide)" if replay.revealed else "  (v: reveal)", "dim")
    place = replay.reference()
    if place is not None:
        text.append(f"  share: {place}")
    text.no_wrap, text.overflow = True, "ellipsis"
    return text


def hands_text(view: View, catalogue: Catalogue) -> Text:
    names = names_of(view.players)
    lines = []
    for p in view.players:
        hand = view.hand if p.seat == view.seat else p.hand
        cards = ", ".join(catalogue.name(c) for c in hand or ())
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{p.seat + 1} {names.get(p.seat, '?')}: ", "bold")
        if hand is None:  # a seat's replay: another hand is not shown
            line.append(f"{p.hand_count} cards, hidden", "dim")
        else:
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
        Binding(
            "left_square_bracket",
            "turn(-1)",
            "Turn back",
            key_display="[",
            show=False,
            id="replay.turn_back",
            tooltip="to the start of this turn, or of the one before",
        ),
        Binding(
            "right_square_bracket",
            "turn(1)",
            "Next turn",
            key_display="]",
            show=False,
            id="replay.turn_on",
            tooltip="to the start of the next turn",
        ),
        Binding(
            "left_curly_bracket",
            "round(-1)",
            "Round back",
            key_display="{",
            show=False,
            id="replay.round_back",
            tooltip="to the start of this round, or of the one before",
        ),
        Binding(
            "right_curly_bracket",
            "round(1)",
            "Next round",
            key_display="}",
            show=False,
            id="replay.round_on",
            tooltip="to the start of the next round",
        ),
        Binding(
            "v",
            "reveal",
            "Reveal",
            id="replay.reveal",
            tooltip="a seat's replay: show every hand, or only what the seat saw",
        ),
        Binding(
            "p",
            "play_on",
            "Play on",
            id="replay.play_on",
            tooltip="a new game against bots from the start of this turn, as this seat knew "
            "it (the cards it did not see dealt afresh)",
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
        self.mount(Static(id="replay-seat"), before=self.query_one(KeyBar))
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
        record, index = self.replay.record, self.replay.position
        turn = record.turn_of(index)
        pos = position_text(index, len(record.views) - 1, record.moves, view, turn)
        self.query_one("#replay-pos", Static).update(pos)
        self.query_one("#replay-seat", Static).update(seat_text(self.replay))
        self.query_one("#hands", Static).update(hands_text(view, self.session.catalogue))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in DISABLED | MOVE_ACTIONS:  # a seat's views offer moves: none is made
            return False
        if action == "reveal":
            return self.replay.seat is not None
        if action == "play_on":  # a seat's replay from a server, before the game's end
            view = self.session.view
            playable = view is not None and not view.over and self.replay.seat is not None
            return playable and self.replay.reference() is not None
        return super().check_action(action, parameters)

    def action_step(self, delta: int) -> None:
        self.replay.show_position(self.replay.position + delta)

    def action_jump(self, index: int) -> None:
        self.replay.show_position(index if index >= 0 else len(self.replay.record.views) - 1)

    def action_turn(self, delta: int) -> None:
        self.replay.show_position(
            step_to(self.replay.record.turn_starts(), self.replay.position, delta)
        )

    def action_round(self, delta: int) -> None:
        starts = self.replay.record.round_starts()
        self.replay.show_position(step_to(starts, self.replay.position, delta))

    def action_play_on(self) -> None:
        self.replay.play_on()

    def action_reveal(self) -> None:
        self.replay.reveal(not self.replay.revealed)
        self._redraw()


def step_to(starts: tuple[int, ...], index: int, delta: int) -> int:
    """The start of the next (delta 1) or of the current-or-previous (delta -1) span, of the
    spans beginning at `starts`; stays put past either end."""
    if delta > 0:
        return next((s for s in starts if s > index), index)
    return next((s for s in reversed(starts) if s < index), index)
