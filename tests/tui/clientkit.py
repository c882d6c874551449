"""A scripted server for client tests: a fake Transport per connection, every request the
client sends recorded, replies fed by the test (or by default handlers), and helpers to
wait for app state without sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen

from gother_tui.core.transport import TransportError
from protocol import Request
from tests.kits import poll

Frame = dict[str, Any]
Handler = Callable[[Frame], list[Frame]]
TIMEOUT = 10.0  # generous: CI has two busy cores
URL = "ws://fake.invalid:8765"  # the fake server's address (never resolved)


def reply(request: Frame, t: str, **fields: Any) -> Frame:
    """A reply frame echoing the request's rid."""
    frame: Frame = {"t": t, **fields}
    if "rid" in request:
        frame["rid"] = request["rid"]
    return frame


class FakeConnection:
    """One connection's Transport: what the client sent, and a queue of what it receives."""

    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self.sent: list[Frame] = []
        self.close_code: int | None = None
        self.close_reason = ""
        self.closed = False
        self._inbox: asyncio.Queue[Frame | None] = asyncio.Queue()

    async def connect(self) -> None:
        if self.server.refusals > 0:
            self.server.refusals -= 1
            raise TransportError("connection refused")
        self.server.connections.append(self)

    async def send(self, request: Request) -> None:
        if self.closed:
            raise TransportError("closed")
        message = request.to_wire()  # the frame, as the server decodes it
        self.sent.append(message)
        handler = self.server.handlers.get(message["t"])
        if handler is not None:
            self.feed(*handler(message))

    async def messages(self) -> AsyncIterator[Frame]:
        while True:
            frame = await self._inbox.get()
            if frame is None:
                return
            yield frame

    async def close(self) -> None:
        self.closed = True

    # -- for tests ------------------------------------------------------------------------

    def feed(self, *frames: Frame) -> None:
        for frame in frames:
            self._inbox.put_nowait(frame)

    def drop(self, code: int = 1006, reason: str = "") -> None:
        """The connection is lost (or closed by the server with `code`)."""
        self.close_code, self.close_reason = code, reason
        self.closed = True
        self._inbox.put_nowait(None)

    def requests(self, t: str) -> list[Frame]:
        return [m for m in self.sent if m["t"] == t]

    def last(self, t: str) -> Frame:
        found = self.requests(t)
        assert found, f"the client sent no {t!r}; it sent {[m['t'] for m in self.sent]}"
        return found[-1]


class FakeServer:
    def __init__(self) -> None:
        self.connections: list[FakeConnection] = []
        self.refusals = 0  # how many connects to refuse before accepting
        self.handlers: dict[str, Handler] = {
            "hello": lambda m: [reply(m, "welcome", v=1, server="fake")],
            "list": lambda m: [reply(m, "tables", tables=self.tables)],
        }
        self.tables: list[Frame] = []

    def transport(self, url: str) -> FakeConnection:
        return FakeConnection(self)

    @property
    def conn(self) -> FakeConnection:
        assert self.connections, "no connection yet"
        return self.connections[-1]


async def until(
    pilot: Pilot, condition: Callable[[], Any], what: str = "condition", wait: float = TIMEOUT
) -> Any:
    """The one poll (tests/kits/poll.py) of an app: it runs between two looks."""
    return await poll.until(what, condition, wait, pause=pilot.pause)


def screen_text(pilot: Pilot) -> str:
    """The text on the terminal now (the top screen), line by line."""
    strips = pilot.app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


async def shown(pilot: Pilot, screen: type[Screen[Any]], *texts: str) -> str:
    """Wait until the top screen is a `screen` *and painted* with every one of `texts` on
    it; returns its text. A screen is on top as soon as it is pushed, but its text is empty
    until its first layout, which a busy machine can leave for a later turn of the loop."""
    what = f"a {screen.__name__} showing {texts}"
    await until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, screen) and all(t in screen_text(pilot) for t in texts)
        ),
        what,
    )
    return screen_text(pilot)


def widget_text(pilot: Pilot, selector: str) -> str:
    """The text one widget shows on the terminal, every run of spaces and line breaks made
    one space (so a sentence the layout wrapped, or a padded column, reads plainly)."""
    widget = pilot.app.screen.query_one(selector)
    region = widget.region
    strips = pilot.app.screen._compositor.render_strips()[region.y : region.bottom]
    return " ".join(" ".join(strip.crop(region.x, region.right).text for strip in strips).split())


def notices(pilot: Pilot) -> list[str]:
    return [n.message for n in pilot.app._notifications]


def lobby_tables(app: Any) -> tuple[Any, ...]:
    """The tables the lobby shows (its own answer to `list`), once it has been shown."""
    try:
        return tuple(app.get_screen_stack("lobby")[0].tables)
    except KeyError:  # no lobby yet
        return ()


async def at_table(pilot: Pilot) -> None:
    """Wait until the app shows the table screen with a view."""
    await until(pilot, lambda: pilot.app.view is not None, "the first state")
    await until(pilot, lambda: pilot.app.current_mode == "table", "the table screen")
    await pilot.pause()


def sent_moves(server: FakeServer) -> list[Frame]:
    return [m["move"] for c in server.connections for m in c.requests("move")]
