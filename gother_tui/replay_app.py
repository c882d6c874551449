"""The replay viewer: a `Session` fed from a game record instead of a server. It shares the
client's look, help and size check (ClientApp) and has no connection at all: `request`
asks nobody anything."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.message_pump import MessagePump

from gother_tui.catalogue import Catalogue
from gother_tui.chronicle import Chronicle
from gother_tui.client_app import ClientApp
from gother_tui.options import ClientOptions
from gother_tui.record import GameRecord
from gother_tui.screens.game_over import GameOverScreen
from gother_tui.screens.help import HelpScreen
from gother_tui.screens.replay import ReplayScreen
from gother_tui.screens.story import StoryScreen
from gother_tui.screens.table import TableScreen
from gother_tui.screens.viewer import TextViewer
from protocol import server_messages as sm


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

    def __init__(self, record: GameRecord, options: ClientOptions) -> None:
        super().__init__(options)
        self.record = record
        self.catalogue = Catalogue(record.cards)
        self.position = 0
        self.sub_title = f"replay of {record.name}"
        self.add_mode("replay", lambda: ReplayScreen(self, self))

    def open_session(self) -> None:
        self.link = "replay"
        self.chat = tuple(sm.Chat(sender=name, text=text) for name, text in self.record.chat)
        self.view = self.record.views[0]
        self.switch_mode("replay")

    def show_position(self, index: int) -> None:
        index = max(0, min(index, len(self.record.views) - 1))
        if index == self.position:
            return
        if index != self.position + 1:  # a jump: the story is retold up to the new place
            self.chronicle = Chronicle()
            for view in self.record.views[:index]:
                self.chronicle.follow(view, self.catalogue, self.glyphs)
        self.position = index
        self.view = self.record.views[index]

    def request(self, asker: MessagePump, t: str, **fields: Any) -> int | None:
        return None  # a replay asks nobody anything (its screen offers no such key)
