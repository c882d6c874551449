"""What the network client and the replay viewer share: the look (themes, styles, ASCII
mode), help and the user's keymap, the size check, and the session's reactive state.

Each subclass is a `Session` (gother_tui.tui.session): it adds where the views come from (a
server, through the client's core; a record), with the card catalogue and the chronicle
that go with them, and what `request` does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter, Monochrome, NoColor
from textual.geometry import Size
from textual.reactive import reactive

from gother_tui.core.comeback import how_to_come_back
from gother_tui.core.glyphs import Glyphs, glyphs_for
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import GameRecord, Reference
from gother_tui.tui.keys import KeymapError, binding_ids, key_rows, load_keymap
from gother_tui.tui.palette import Palette
from gother_tui.tui.screens.help import HelpScreen, KeyRows
from gother_tui.tui.screens.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from gother_tui.tui.session import Link
from gother_tui.tui.stylesheet import SharedStylesheet
from gother_tui.tui.theme import THEMES
from protocol import server_messages as sm
from protocol.view import View

log = logging.getLogger("gother.client")

STYLES = Path(__file__).parent / "styles"
NO_COLOR = NoColor()  # the terminal's own colours for every cell
# In a browser (the web door) Ctrl+Q, Ctrl+W and F1 are the browser's own: these keys
# quit and help instead, and the help says so. A user's keymap still has the last word.
WEB_KEYS = {"app.quit": "ctrl+x", "app.help": "question_mark"}
BROWSER_KEYS = ("^q ^w F1", "the browser's own: ^w closes this tab (your seat is kept)")


# Ends with a game to replay (its record), or a place to play on from.
class ClientApp(App[GameRecord | Reference | None]):
    TITLE = "Gother Than Thou"
    CSS_PATH: ClassVar = [
        STYLES / "app.tcss",
        STYLES / "lobby.tcss",
        STYLES / "table.tcss",
        STYLES / "tournament.tcss",
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f1,question_mark",
            "help",
            "Help",
            key_display="?",
            id="app.help",
            tooltip="this help (Esc closes)",
        ),
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            key_display="^q",
            # anywhere, as help says: before a modal panel's own keys, and from a text field
            # (whose ^x, the web quit key, is "cut")
            priority=True,
            id="app.quit",
            tooltip="quit (your seat is kept: run the same command to come back)",
        ),
    ]
    ENABLE_COMMAND_PALETTE = False
    NOTIFICATION_TIMEOUT = 4  # toasts cover part of the table at 80x24: keep them brief
    # The help's sections, (title, bindings) in order; and every binding a keymap may change.
    HELP_SECTIONS: ClassVar[tuple[tuple[str, Sequence[BindingType]], ...]] = ()
    KEYMAPPED: ClassVar[tuple[Sequence[BindingType], ...]] = ()

    # The session's state, as screens see it (gother_tui.tui.session.Session).
    view: reactive[View | None] = reactive(None, always_update=True)
    link: reactive[Link] = reactive[Link]("connecting")
    link_detail: reactive[str] = reactive("")
    chat: reactive[tuple[sm.Chat, ...]] = reactive(tuple)
    tournament: reactive[sm.Tournament | None] = reactive(None)  # the one registered in or followed

    def __init__(self, options: ClientOptions) -> None:
        super().__init__()
        self.options = options
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = options.theme
        # the theme's colours before the first parse, which then is the only one (set at
        # mount, it parsed everything twice), and the rules shared by the process
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())
        self.glyphs: Glyphs = glyphs_for(options.ascii)
        self.keymap: dict[str, str] = {}  # binding id -> keys, from the user's keymap file
        self._started_blurred = False  # the web driver's own blur at start-up has come
        self._terminal_title = ""

    @property
    def terminal_title(self) -> str:
        return self._terminal_title

    @terminal_title.setter
    def terminal_title(self, title: str) -> None:
        """The terminal window's title (OSC 2), written only when it changes."""
        if title == self._terminal_title:
            return
        self._terminal_title = title
        if not self.is_headless and self._driver is not None:
            self._driver.write(f"\x1b]2;{title}\x07")  # names hold no control characters

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, but NO_COLOR draws in the terminal's own colours: Textual
        turns every colour grey instead, and on a 256-colour terminal the theme's dark
        text and its dark background both become black (no-color.org asks for no colour,
        not grey). What colour marked, `-no-color` marks by bold, underline or reverse."""
        filters = super().get_line_filters()
        if not self.no_color:
            return filters
        return [NO_COLOR if isinstance(f, Monochrome) else f for f in filters]

    @property
    def palette(self) -> Palette:
        return Palette.of_theme(self.theme_variables)

    def on_mount(self) -> None:
        self.set_class(self.options.ascii, "-ascii")
        self.set_class(self.no_color, "-no-color")
        self._apply_keymap()
        self.open_session()
        self.call_after_refresh(self._check_size)

    def on_app_blur(self, event: events.AppBlur) -> None:
        """Textual's web driver blurs the app once as it starts, and that may come after
        the tab said it has focus (its page focuses the terminal on load): a blurred app
        never fills its footer. So that first blur is undone; every later focus or blur
        is the tab's own, passed on by the door as it happens."""
        if self.is_web and not self._started_blurred:
            self._started_blurred = True
            self.post_message(events.AppFocus())  # after Textual's own handler has blurred

    def open_session(self) -> None:
        """The subclass's first screen, and whatever feeds it."""
        raise NotImplementedError

    def _apply_keymap(self) -> None:
        self.keymap = {**WEB_KEYS} if self.is_web else {}
        if self.options.keymap is not None:
            known = set().union(*(binding_ids(b) for b in (self.BINDINGS, *self.KEYMAPPED)))
            try:
                self.keymap |= load_keymap(self.options.keymap, known)
            except KeymapError as exc:
                log.warning("keymap not used: %s", exc)
                self.notify(
                    f"{exc}. The default keys are used.",
                    title="Keymap not used",
                    severity="error",
                    timeout=30,
                    markup=False,
                )
        if self.keymap:
            self.set_keymap(self.keymap)

    # -- screens -----------------------------------------------------------------------------

    def _switch(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)
            self.call_after_refresh(self._check_size)

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size)  # self.size may not have caught up yet

    def _check_size(self, size: Size | None = None) -> None:
        width, height = size or self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        on_top = isinstance(self.screen, TooSmallScreen)
        if small and not on_top:
            self.push_screen(TooSmallScreen())
        elif not small and on_top:
            self.pop_screen()

    def get_key_display(self, binding: Binding) -> str:
        view = self.view
        if binding.id == "give.1" and binding.key_display and view is not None and view.players:
            return f"1-{len(view.players)}"  # one footer entry stands for this table's seat keys
        display = super().get_key_display(binding)
        if self.glyphs.ascii_only and not display.isascii():
            return "Enter" if "enter" in binding.key else binding.key
        return display

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen | TooSmallScreen):
            self.push_screen(HelpScreen(self.glyphs, self.help_rows()))

    def help_rows(self) -> list[tuple[str, KeyRows]]:
        """The help's key table, section by section, with the keys the keymap gives."""
        sections = (*self.HELP_SECTIONS, ("Anywhere", self.BINDINGS))
        rows: list[tuple[str, KeyRows]] = [
            (heading, key_rows(bindings, self.keymap, self.get_key_display))
            for heading, bindings in sections
        ]
        if self.is_web:
            rows.append(("In a browser", [BROWSER_KEYS]))
        token = self.options.door_token
        if token is not None:  # first: what the player must keep to come back
            rows.insert(0, ("Coming back", [("your token", how_to_come_back(token))]))
        return rows
