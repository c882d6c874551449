"""`gother` with no arguments: a start menu. It only chooses; the command line does the rest.

The menu app returns the argument list of the command that was chosen (`["play",
"--players", "4"]`, `["join", "ws://host:8765"]`, …), or None to quit, and `gother_tui.cli`
runs that command as if it had been typed. Keyboard first: a letter per entry, arrows and
Enter, Esc to go back.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from gother_tui.core import discovery
from gother_tui.core.address import address_problem
from gother_tui.core.record import RecordError, parse_reference
from gother_tui.tui.theme import THEMES
from gother_tui.tui.widgets.footer import KeyBar
from protocol.constants import DEFAULT_PORT, SEATS

STYLES = Path(__file__).parent / "styles"

# (id, key, label): the id is also the subcommand, except find, host and quit.
ENTRIES = (
    ("play", "p", "Play against bots, here and now"),
    ("join", "j", "Join a game on a server (ws://HOST:PORT)"),
    ("find", "f", "Find games on this network"),
    ("watch", "w", "Watch a game on a server"),
    ("host", "h", "Host a game for your network: how"),
    ("replay", "r", "Replay a finished game (a record file, or a reference pasted)"),
    ("quit", "q", "Quit"),
)


class StartMenu(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"choose('{id_}')", label, show=False) for id_, key, label in ENTRIES),
        Binding("escape", "choose('quit')", "Quit", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="start-box"):
            yield Static("Gother Than Thou", id="start-title")
            yield Static("Be the gothest. Choose with the arrows and Enter.", id="start-sub")
            yield OptionList(
                *(
                    Option(Text.assemble((f"{key}  ", "bold"), label), id_)
                    for id_, key, label in ENTRIES
                ),
                id="start-menu",
            )
            yield Static("", id="start-note")
        yield KeyBar()

    @on(OptionList.OptionSelected, "#start-menu")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option_id or "quit")

    def action_choose(self, choice: str) -> None:
        app = self.app
        if choice == "quit":
            app.exit(None)
        elif choice == "play":
            app.push_screen(PlayersScreen())
        elif choice == "host":
            app.push_screen(HostScreen())
        elif choice == "find":
            app.push_screen(FindScreen(), self._note)
        elif choice == "replay":
            app.push_screen(RecordScreen())
        else:
            app.push_screen(AddressScreen(watching=choice == "watch"))

    def _note(self, note: str | None) -> None:
        self.query_one("#start-note", Static).update(Text(note or ""))


class PlayersScreen(ModalScreen[None]):
    """How many at the table: you and the bots."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        *(Binding(str(n), f"play({n})", f"{n} players", show=False) for n in SEATS),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="start-dialog"):
            yield Static("How many players? (you and the bots)", classes="section")
            yield OptionList(
                *(Option(f"{n}  {n} players: you and {n - 1} bots", str(n)) for n in SEATS),
                id="players-menu",
            )
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = SEATS.index(4)  # the deck's sweet spot

    @on(OptionList.OptionSelected, "#players-menu")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_play(int(event.option_id or 4))

    def action_play(self, players: int) -> None:
        self.app.exit(["play", "--players", str(players)])


class AddressScreen(ModalScreen[None]):
    """The server's address, for join or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, watching: bool) -> None:
        super().__init__()
        self.watching = watching  # for `gother watch`, else `gother join`

    def compose(self) -> ComposeResult:
        verb = "watch" if self.watching else "join"
        with Vertical(classes="start-dialog"):
            yield Static(f"The server to {verb} (Enter: go, Esc: back)", classes="section")
            yield Input(placeholder=f"ws://HOST:{DEFAULT_PORT}", id="address")
            yield Static("", id="address-error")
        yield KeyBar()

    @on(Input.Submitted, "#address")
    def _submitted(self, event: Input.Submitted) -> None:
        url = event.value.strip()
        problem = address_problem(url)
        if problem is not None:
            self.query_one("#address-error", Static).update(Text(problem[0].upper() + problem[1:]))
            return
        self.app.exit(["watch" if self.watching else "join", url])


class RecordScreen(ModalScreen[None]):
    """The record file to replay (written by `gother export`), or a reference a player
    pasted (ws://HOST:PORT/TABLE/GAME#seat2-turn31)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="start-dialog"):
            yield Static("The game record to replay (Enter: go, Esc: back)", classes="section")
            yield Input(placeholder="FILE (from gother export) or a ws://… reference", id="record")
            yield Static("", id="record-error")
        yield KeyBar()

    @on(Input.Submitted, "#record")
    def _submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        if path.startswith(("ws://", "wss://")):  # not a path: `gother replay` reads it
            try:
                if parse_reference(path) is not None:
                    self.app.exit(["replay", path])
                    return
                problem = "A server address alone names no game: paste the whole reference"
            except RecordError as exc:
                problem = str(exc)
            self.query_one("#record-error", Static).update(Text(problem))
            return
        if not Path(path).expanduser().is_file():
            problem = f"No file {path}" if path else "Type the record file's path"
            self.query_one("#record-error", Static).update(Text(problem))
            return
        self.app.exit(["replay", str(Path(path).expanduser())])


class FindScreen(ModalScreen[str | None]):
    """Listen for servers announced on the LAN, off the UI thread; list them to join one.

    Dismissed with a note for the menu when none answered (or listening failed)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Back")]

    def __init__(self) -> None:
        super().__init__()
        self.found: list[discovery.Found] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="start-dialog"):
            yield Static("Games on this network (Enter: join, Esc: back)", classes="section")
            yield Static("listening…", id="find-status")
            yield OptionList(id="find-menu")
        yield KeyBar()

    def on_mount(self) -> None:
        self._listen()

    @work(exclusive=True)
    async def _listen(self) -> None:
        browse: Callable[[], list[discovery.Found]] = getattr(self.app, "browse", discovery.browse)
        try:
            found = await asyncio.to_thread(browse)  # blocking zeroconf code
        except (ImportError, OSError) as exc:
            self.dismiss(f"could not listen on this network: {exc}")
            return
        if not found:
            self.dismiss("no servers heard on this network in 2 s")
            return
        self.found = found
        self.query_one("#find-status", Static).update(
            f"heard {len(found)} server{'s' * (len(found) != 1)}:"
        )
        menu = self.query_one("#find-menu", OptionList)
        menu.add_options(
            Option(Text(f"{f.name}  {f.url}  (gother {f.version})"), str(i))
            for i, f in enumerate(found)
        )
        menu.highlighted = 0
        menu.focus()

    @on(OptionList.OptionSelected, "#find-menu")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.app.exit(["join", self.found[int(event.option_id or 0)].url])


class HostScreen(ModalScreen[None]):
    """How to host: the server is a command of its own, left running in a terminal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "app.pop_screen", "Back", key_display="Esc"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="start-dialog"):
            yield Static("Host a game for your network", classes="section")
            yield Static(Text(host_instructions()), id="host-text")
        yield KeyBar()


def host_instructions(hostname: str | None = None) -> str:
    host = hostname or socket.gethostname() or "THIS-MACHINE"
    return (
        "In a terminal that stays open, run:\n\n"
        f"  gother serve --host 0.0.0.0 --port {DEFAULT_PORT}\n\n"
        "Then everyone (you too, from another terminal) joins with:\n\n"
        f"  gother join ws://{host}:{DEFAULT_PORT}\n\n"
        "using this machine's name or LAN address. Open TCP port "
        f"{DEFAULT_PORT} in your firewall.\n"
        "For passwords, TLS and saving games across restarts: gother serve --help"
    )


class StartApp(App[list[str] | None]):
    """The start menu; `run()` returns the chosen command's arguments, or None."""

    TITLE = "Gother Than Thou"
    CSS_PATH: ClassVar = [STYLES / "start.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: from every dialog too (a modal screen hides the app's other bindings)
        Binding("ctrl+q", "quit", "Quit", key_display="^q", priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        theme: str = "gother",
        browse: Callable[[], list[discovery.Found]] = discovery.browse,
    ) -> None:
        super().__init__()
        self._theme_name = theme
        self.browse = browse  # LAN discovery; tests pass a fake that sends nothing

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self._theme_name
        self.push_screen(StartMenu())
