"""The seam between the screens and whatever feeds them.

Screens and widgets are given a `Session` and use nothing else of the app: the table as
last seen (`view`), the state of the link, the chat, the card catalogue, the glyphs,
colours and options to draw with, and the one thing they may do, `request`. The network client
(`GotherApp`) and the replay viewer (`ReplayApp`) each implement it.

`view`, `link`, `link_detail`, `chat` and `tournament` are Textual reactives of the app
that is the session: a screen follows them with `self.watch(self.app, "view", …)`, a
widget through one base (widgets/following.py).
"""

from __future__ import annotations

from typing import Literal, Protocol

from textual.message_pump import MessagePump

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.chronicle import Chronicle
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.options import ClientOptions
from gother_tui.tui.palette import Palette
from protocol import Request
from protocol import server_messages as sm
from protocol.view import View

Link = Literal["connecting", "online", "offline", "closed", "replay"]


class Session(Protocol):
    @property
    def view(self) -> View | None:
        """The latest `state.view`, the one truth; None before the first and off a table."""
        ...

    @property
    def link(self) -> Link: ...

    @property
    def link_detail(self) -> str:
        """Why the link is as it is ("cannot reach …; retrying in 2 s"), or ""."""
        ...

    @property
    def chat(self) -> tuple[sm.Chat, ...]:
        """The table's chat, oldest first."""
        ...

    @property
    def tournament(self) -> sm.Tournament | None:
        """The tournament registered in or followed, as the server last sent it."""
        ...

    @property
    def catalogue(self) -> Catalogue: ...

    @property
    def chronicle(self) -> Chronicle:
        """The game's story so far as this client saw it: updated before the screens hear
        of a new `view`."""
        ...

    @property
    def glyphs(self) -> Glyphs: ...

    @property
    def palette(self) -> Palette:
        """The theme's colours for marks (warnings, debt, the link)."""
        ...

    @property
    def options(self) -> ClientOptions: ...

    def request(self, asker: MessagePump, request: Request) -> int | None:
        """Send `request`; its answer comes to `asker` as `Answered` or `Refused` (a refusal
        is a notice too). Returns its rid, or None (and a notice) when nothing can be sent
        now."""
        ...
