"""A zygote's rehearsal: one client run headless before any fork, to the first screens its
children draw (the web door's name screen, then the lobby of a server with no table), so
that what a client builds the first time it draws (Textual's and rich's caches, widgets'
classes set up, the interpreter's specialised bytecode and its types' and functions'
versions) is built once, in the pages the children share, and not again in each of them.

It plays under an identity, as a door's session does: the key is made in its state folder,
then read back by its client, which signs the server's challenge (a fresh child doing this
first ran OpenSSL's lazy start-up on its own: 1.4 MiB more of each session's pages).

Nothing else of it stays: its server is a script in this process (no socket), its state
folder (its key with it) is a temporary one, and it starts no thread.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.screen import Screen

from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import Frame
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.name import NameScreen
from protocol import PROTOCOL_VERSION, ProtocolError, Request
from protocol import requests as rq
from protocol.constants import CHALLENGE_BYTES

URL = "ws://rehearsal.invalid"  # never dialled: the transport below is the server
TIMEOUT = 30.0  # seconds for each screen (a busy machine starting a door)
STEP = 0.005  # seconds between two looks at the client (a draw takes a few milliseconds)


class EmptyLobby:
    """A server, as the client's transport sees it, that welcomes, takes the client's
    identity (holding no seat), and lists no table and no standings."""

    close_code: int | None = None
    close_reason = ""

    def __init__(self, url: str) -> None:
        self._inbox: asyncio.Queue[Frame | None] = asyncio.Queue()

    async def connect(self) -> None:
        return None

    async def send(self, request: Request) -> None:
        match request:
            case rq.Hello():
                answer: Frame = {"t": "welcome", "v": PROTOCOL_VERSION, "server": "rehearsal"}
                if request.key is not None:
                    answer["challenge"] = bytes(CHALLENGE_BYTES)
            case rq.Prove():
                answer = {"t": "proven", "identity": "rehearsal", "seats": []}
            case rq.List():
                answer = {"t": "tables", "tables": [], "total": 0}
            case rq.Standings():
                answer = {
                    "t": "standings",
                    "rows": [],
                    "offset": 0,
                    "total": 0,
                    "provisional_games": 10,  # a host's usual (server/ratings/skill.py)
                }
            case _:
                return
        self._inbox.put_nowait({**answer, "rid": request.rid})

    async def messages(self) -> AsyncIterator[Frame | ProtocolError]:
        while (frame := await self._inbox.get()) is not None:
            yield frame

    async def close(self) -> None:
        self._inbox.put_nowait(None)


def rehearse() -> None:
    """The client to its name screen and to the lobby, headless, at 80x24, under a key
    made before it starts (a returning player's session reads its key; a new one makes
    it: both are rehearsed)."""
    with tempfile.TemporaryDirectory() as folder:
        options = ClientOptions(url=URL, name="Rehearsal", ask_name=True)
        seats = SeatStore(Path(folder, "seats.json"))
        seats.key(options.name)
        app = GotherApp(options, EmptyLobby, seats)
        asyncio.run(_to_the_lobby(app))


async def _to_the_lobby(app: GotherApp) -> None:
    """Run `app` as a player's would, headless (Textual's public `run_async`), with keys
    posted as its driver posts them: a name typed, then the lobby drawn once."""
    run = asyncio.create_task(app.run_async(headless=True, size=(80, 24)))
    await _until(run, lambda: _on(app, NameScreen))
    for key in (*"Rehearsal", "enter"):
        app.post_message(events.Key(key, key if len(key) == 1 else None))
    await _until(run, lambda: app.current_mode == "lobby")
    drawn = asyncio.get_running_loop().create_future()
    app.call_after_refresh(drawn.set_result, None)
    await _until(run, drawn.done)
    app.exit()
    await run


def _on(app: GotherApp, screen: type[Screen[Any]]) -> bool:
    return bool(app.screen_stack) and isinstance(app.screen, screen)


async def _until(run: asyncio.Task[Any], done: Callable[[], bool]) -> None:
    """Until `done`, looking every STEP seconds; TimeoutError past TIMEOUT, or if the
    client stopped before."""
    deadline = time.monotonic() + TIMEOUT
    while not done():
        if run.done() or time.monotonic() > deadline:
            run.cancel()
            raise TimeoutError("the rehearsal's client did not reach its screen")
        await asyncio.sleep(STEP)
