"""The replay app: the client's app and table screen, fed from a game record instead of a
server. It reuses GotherApp for themes, styles, help and the size check, and never opens a
connection."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events

from gother_tui.app import GotherApp
from gother_tui.catalogue import Catalogue
from gother_tui.options import ClientOptions
from gother_tui.record import GameRecord
from gother_tui.screens.replay import ReplayScreen
from gother_tui.theme import THEMES


class ReplayApp(GotherApp):
    MODES: ClassVar = {"replay": ReplayScreen}

    def __init__(self, record: GameRecord, options: ClientOptions) -> None:
        super().__init__(options)
        self.record = record
        self.catalogue = Catalogue.from_wire(record.cards)
        self.position = 0
        self.sub_title = f"replay of {record.name}"

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not GotherApp's: no connecting screen, no network
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.options.theme
        self.set_class(self.options.ascii, "-ascii")
        self.link = "replay"
        self.view = self.record.views[0]
        self.switch_mode("replay")
        self.call_after_refresh(self._check_size)

    def show_position(self, index: int) -> None:
        index = max(0, min(index, len(self.record.views) - 1))
        if index != self.position:
            self.position = index
            self.view = self.record.views[index]

    def request(self, t: str, **fields: Any) -> int | None:
        return None  # a replay asks nobody anything
