"""Textual messages: the network worker turns every server frame into one of these, and the
app's handlers are the only place session state changes.

Fields mirror docs/protocol.md; a server field this client does not know is ignored, and a
message type it does not know arrives as UnknownFrame (logged, not shown).
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class ServerMessage(Message):
    """Any server frame; `rid` echoes the request it answers (None for broadcasts)."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__()
        self.frame = frame
        rid = frame.get("rid")
        self.rid: int | None = rid if isinstance(rid, int) else None


class Welcome(ServerMessage):
    pass


class TableList(ServerMessage):
    @property
    def tables(self) -> list[dict[str, Any]]:
        return list(self.frame.get("tables", ()))


class TableCreated(ServerMessage):
    @property
    def table(self) -> str:
        return str(self.frame["table"])


class Seated(ServerMessage):
    """`joined`: the reply to `join` or `resume`."""

    @property
    def table(self) -> str:
        return str(self.frame["table"])

    @property
    def seat(self) -> int:
        return int(self.frame["seat"])

    @property
    def token(self) -> str:
        return str(self.frame["token"])


class Watching(ServerMessage):
    @property
    def table(self) -> str:
        return str(self.frame["table"])


class StateUpdate(ServerMessage):
    @property
    def seq(self) -> int:
        return int(self.frame.get("seq", 0))

    @property
    def view(self) -> dict[str, Any]:
        return dict(self.frame["view"])


class ChatLine(ServerMessage):
    @property
    def sender(self) -> str:
        return str(self.frame.get("from", "?"))

    @property
    def text(self) -> str:
        return str(self.frame.get("text", ""))


class HintReply(ServerMessage):
    @property
    def move(self) -> dict[str, Any]:
        return dict(self.frame.get("move") or {})


class LeftTable(ServerMessage):
    pass


class ServerError(ServerMessage):
    @property
    def code(self) -> str:
        return str(self.frame.get("code", "error"))

    @property
    def message(self) -> str:
        return str(self.frame.get("message", ""))


class UnknownFrame(ServerMessage):
    pass


FRAME_TYPES: dict[str, type[ServerMessage]] = {
    "welcome": Welcome,
    "tables": TableList,
    "created": TableCreated,
    "joined": Seated,
    "watching": Watching,
    "state": StateUpdate,
    "chat": ChatLine,
    "hint": HintReply,
    "left": LeftTable,
    "error": ServerError,
}


def from_frame(frame: dict[str, Any]) -> ServerMessage:
    return FRAME_TYPES.get(str(frame.get("t")), UnknownFrame)(frame)


# -- the connection itself ----------------------------------------------------------------


class Connected(Message):
    """A connection is open (the first, or again after a loss)."""


class ConnectionLost(Message):
    def __init__(self, reason: str, retry_in: float | None) -> None:
        super().__init__()
        self.reason = reason
        self.retry_in = retry_in  # None: the client will not try again


# -- between the app and its screens --------------------------------------------------------


class HintArrived(Message):
    """The server's suggestion for the decision in front of the player."""

    def __init__(self, move: dict[str, Any]) -> None:
        super().__init__()
        self.move = move


class MoveRefused(Message):
    """The server refused a move: the table shows why, the choices stay."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__()
        self.code = code
        self.message = message
