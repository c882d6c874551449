"""What the command line tells the client app."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gother_tui.core.record import Reference

DEFAULT_THEME = "gother"


@dataclass(frozen=True, slots=True)
class ClientOptions:
    url: str
    name: str = "Player"
    ask_name: bool = False  # ask it on the first screen (a browser has no command line)
    anonymous: bool = False  # name no key in hello: nothing of ours outlives this run
    watch: bool = False  # a spectator: no seat, no hand, no moves
    table: str | None = None  # go straight to this table instead of the lobby
    password: str | None = None
    door_token: str | None = None  # the SSH door knows this player by this new token: shown
    server_password: str | None = None  # typed by the player in an earlier run: said in hello
    ascii: bool = False
    mouse: bool = True
    theme: str = DEFAULT_THEME
    keymap: Path | None = None  # the user's keymap file (gother_tui.tui.keys), if any
    bell: bool = False  # ring the terminal's bell when your turn begins
    verbose: bool = False  # the plain mode tells every event and option, not the ear's story
    private: bool = False  # the server runs inside this client (gother play): quitting ends it
    play_on: Reference | None = None  # first ask for a game played on from this place
    first_retry: float = 0.5  # reconnect backoff: seconds before the first retry…
    max_retry: float = 5.0  # …doubling up to this
