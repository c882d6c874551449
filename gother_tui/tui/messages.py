"""Textual messages of the full-screen client: what the connection hears, handed to the
client's core on the app's own loop, and how the answer to a request reaches the screen
that asked.

The core (gother_tui.core.client) is the only place session state changes; a screen that
asked something gets `Answered` or `Refused`, the one way both outcomes of a request
arrive.
"""

from __future__ import annotations

from textual.message import Message

from gother_tui.core.client import Reply
from gother_tui.core.connection import Event
from gother_tui.core.record import Reference
from protocol import Request
from protocol import server_messages as sm


class Heard(Message):
    """An event of the connection (a frame as its typed message, an unreadable one, the
    link opened or lost), for the core to hear in turn with the keys."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class ReplayAsked(Message):
    """A screen's `y`: the game at `place` is to be replayed (the app fetches its record
    over its own connection, then ends with it)."""

    def __init__(self, place: Reference) -> None:
        super().__init__()
        self.place = place


# -- the answer to a request, posted to whoever asked --------------------------------------


class Answered(Message, bubble=False):  # for the asker alone
    """The server's reply to `asked`: the `state` after a move, a `hint`, `tables`…"""

    def __init__(self, asked: Request, reply: Reply) -> None:
        super().__init__()
        self.asked = asked
        self.reply = reply


class Refused(Message, bubble=False):
    """The server refused `asked`; nothing changed."""

    def __init__(self, asked: Request, error: sm.Error) -> None:
        super().__init__()
        self.asked = asked
        self.error = error
