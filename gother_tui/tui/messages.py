"""Textual messages: what the connection hears from the server, parsed once on arrival into the
protocol's typed messages, and how the answer to a request reaches whoever asked.

The app's handlers are the only place session state changes; a screen that asked something
gets `Answered` or `Refused`, the one way both outcomes of a request arrive.
"""

from __future__ import annotations

from textual.message import Message

from protocol import Request
from protocol import server_messages as sm

# -- from the server ----------------------------------------------------------------------


class Received(Message):
    """One server frame, as the protocol's typed message."""

    def __init__(self, message: sm.Message) -> None:
        super().__init__()
        self.message = message


class Unreadable(Message):
    """A frame that is no valid message (not msgpack, a field missing or of the wrong
    type): logged and shown as a notice; nothing it held is used."""

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem


# -- the connection itself ----------------------------------------------------------------


class Connected(Message):
    """A connection is open (the first, or again after a loss)."""


class ConnectionLost(Message):
    def __init__(self, reason: str, retry_in: float | None) -> None:
        super().__init__()
        self.reason = reason
        self.retry_in = retry_in  # None: the client will not try again


# -- the answer to a request, posted to whoever asked --------------------------------------

# What answers a request, carrying its rid: a reply, the `state` a change made, the
# sender's own copy of its `chat`, the `closed` of the `end` vote that decided.
Reply = sm.Reply | sm.State | sm.Chat | sm.Closed


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
