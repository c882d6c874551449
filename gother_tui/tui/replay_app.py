"""The replay viewer: a `Session` fed from a game record instead of a server. It shares the
client's look, help and size check (ClientApp) and has no connection at all: `request`
asks nobody anything.

Where it is: `position`, an index into the record's views (0 the deal, then one a move), and
`seat`, whose own views it shows (None: the referee's, every card face up). `reveal` turns a
seat's replay into the referee's at the same position and back; a seat's replay is revealed
anyway at the end, where its view shows every card. A panel hung on the replay reads these
three and the record, and calls `show_position` to move."""

from __future__ import annotations

from typing import ClassVar

from textual.message_pump import MessagePump

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.chronicle import Chronicle
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import GameRecord, Reference
from gother_tui.tui.client_app import ClientApp
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.help import HelpScreen
from gother_tui.tui.screens.replay import ReplayScreen
from gother_tui.tui.screens.story import StoryScreen
from gother_tui.tui.screens.table import TableScreen
from gother_tui.tui.screens.viewer import TextViewer
from protocol import Request
from protocol import server_messages as sm
from protocol.view import View


class ReplayApp(ClientApp):
    HELP_SECTIONS: ClassVar = (("In a replay", ReplayScreen.help_bindings()),)
    KEYMAPPED: ClassVar = (
        ReplayScreen.BINDINGS,
        TableScreen.BINDINGS,
        GameOverScreen.BINDINGS,
        TextViewer.BINDINGS,
        StoryScreen.BINDINGS,
        HelpScreen.BINDINGS,
    )

    def __init__(self, record: GameRecord, options: ClientOptions, start: int = 0) -> None:
        super().__init__(options)
        self.record = record
        self.catalogue = Catalogue(record.cards)
        self.chronicle = Chronicle()  # the game's story up to the position shown
        self.seat = record.seat
        self.revealed = record.seen is None  # only a seat's replay hides anything
        self.position = 0
        self.start = start  # where the replay opens (a reference's turn)
        whose = "" if record.seat is None else f", as seat {record.seat + 1} saw it"
        self.sub_title = f"replay of {record.name}{whose}"
        self.add_mode("replay", lambda: ReplayScreen(self, self))

    @property
    def views(self) -> tuple[View, ...]:
        """The views shown: the seat's own, or the referee's once revealed."""
        if self.revealed or self.record.seen is None:
            return self.record.views
        return self.record.seen

    def reference(self) -> Reference | None:
        """Where the replay is, for a player to paste to a friend (None: a record file)."""
        url = self.options.url
        if not url.startswith(("ws://", "wss://")):
            return None
        turn = self.record.turn_of(self.position)
        return Reference(url, self.record.table.id, self.record.game, self.seat, turn)

    def open_session(self) -> None:
        self.link = "replay"
        self.chat = tuple(sm.Chat(sender=name, text=text) for name, text in self.record.chat)
        self._show(self.views[0])
        self.switch_mode("replay")
        self.show_position(self.start)

    def reveal(self, on: bool) -> None:
        """Show every card (on) or only what the seat saw (off), at the same position."""
        if self.record.seen is None or on == self.revealed:
            return
        self.revealed = on
        self._retell(self.position)
        self._show(self.views[self.position])

    def play_on(self) -> None:
        """End the replay with the place to play on from (this turn, as the replay's seat
        knew it): the command line then asks the server for that game."""
        place = self.reference()
        if place is not None and self.seat is not None:
            self.exit(place)

    def show_position(self, index: int) -> None:
        index = max(0, min(index, len(self.views) - 1))
        if index == self.position:
            return
        if index != self.position + 1:  # a jump: the story is retold up to the new place
            self._retell(index)
        self.position = index
        self._show(self.views[index])

    def _show(self, view: View) -> None:
        # the story first: the screens find the view's lines told
        self.chronicle.follow(view, self.catalogue, self.glyphs)
        self.view = view

    def _retell(self, index: int) -> None:
        self.chronicle = Chronicle()
        for view in self.views[:index]:
            self.chronicle.follow(view, self.catalogue, self.glyphs)

    def request(self, asker: MessagePump, request: Request) -> int | None:
        return None  # a replay asks nobody anything (its screen offers no such key)
