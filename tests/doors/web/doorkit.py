"""What the web door's tests share: a door in the test's loop in front of a real server
(both on 127.0.0.1, port 0), an HTTP client that keeps the door's cookie, the screen as
text from the bytes a tab receives, and the client processes a door has running.

Everything listens on 127.0.0.1 only; every process started here is ended here."""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from server.doors.web.door import WebDoor, WebOptions
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.tls import certificate_fingerprint, self_signed

TIMEOUT = 60.0  # a cold client start (Python + Textual) on two busy cores
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie has ended: it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(parent: int) -> set[int]:
    """The live processes whose parent is `parent`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] != "Z" and int(fields[1]) == parent:
            found.add(int(entry.name))
    return found


def clients_of(door: int) -> set[int]:
    """The client processes the door `door` runs: its own fresh ones, and those its
    zygote forked (server/doors/zygote.py)."""
    mine = children(door)
    zygotes = {pid for pid in mine if b"server.doors.zygote" in _cmdline(pid)}
    forked = {pid for zygote in zygotes for pid in children(zygote)}
    return {pid for pid in mine if b"gother_tui" in _cmdline(pid)} | forked


def clients_behind(serve: int) -> set[int]:
    """The client processes of the doors `gother serve` (pid `serve`) runs as its
    children."""
    return {pid for door in children(serve) for pid in clients_of(door)}


def clients_of_this_test() -> set[int]:
    """The client processes this test process started (a door in this loop starts them)."""
    return clients_of(os.getpid())


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


@asynccontextmanager
async def web_door(
    tmp_path: Path, server_password: str | None = None, tls: bool = False, **options: Any
) -> AsyncIterator[WebDoor]:
    """A game server and its web door, both in this loop; every client process gone
    when it ends. `tls`: both speak it, with a self-signed certificate for a name that is
    not 127.0.0.1, so the door's clients get in only by its pin, as `gother serve --tls`."""
    async with door_and_server(tmp_path, server_password, tls, **options) as (door, _):
        yield door


@asynccontextmanager
async def door_and_server(
    tmp_path: Path, server_password: str | None = None, tls: bool = False, **options: Any
) -> AsyncIterator[tuple[WebDoor, GotherServer]]:
    """`web_door`, with the game server behind it."""
    cert = key = pin = None
    if tls:
        made = self_signed(tmp_path / "tls", "gother.lan")
        cert, key, pin = str(made[0]), str(made[1]), certificate_fingerprint(str(made[0]))
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        db=":memory:",
        bot_delay=0.0,
        password=server_password,
        certfile=cert,
        keyfile=key,
    )
    server = GotherServer(config)
    await server.start()
    door = WebDoor(
        WebOptions(port=0, data_dir=tmp_path / "data", **options),
        "127.0.0.1",
        f"{'wss' if tls else 'ws'}://127.0.0.1:{server.port}",
        server.door_key,
        server._ssl(),
        pin,
    )
    door.ws_password = server_password
    try:
        await door.start()
        yield door, server
    finally:
        await door.close()
        await server.close()
    assert clients_of_this_test() == set(), "a client process outlived its door"
    assert door.zygote is None or door.zygote.pid is None, "its zygote outlived it"


def browser(door: WebDoor) -> aiohttp.ClientSession:
    """A client that keeps cookies, as a browser does (unsafe=True: cookies for an IP)."""
    return aiohttp.ClientSession(
        base_url=own_origin(door),
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        connector=aiohttp.TCPConnector(ssl=False),  # a self-signed door, taken as it is
    )


def own_origin(door: WebDoor) -> str:
    return f"{'https' if door.tls else 'http'}://127.0.0.1:{door.port}"


async def open_tab(
    session: aiohttp.ClientSession, door: WebDoor
) -> aiohttp.ClientWebSocketResponse:
    """The page (for its cookie), then the terminal's websocket from the door's own origin."""
    async with session.get("/") as page:
        assert page.status == 200, await page.text()
    return await session.ws_connect("/ws?width=80&height=24", origin=own_origin(door))


async def read_screen(ws: aiohttp.ClientWebSocketResponse, pattern: str) -> str:
    """The text a tab has received (escape sequences removed) once `pattern` is in it."""
    seen = ""
    deadline = time.monotonic() + TIMEOUT
    while not re.search(pattern, ANSI.sub("", seen)):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {pattern!r} on screen; saw:\n{ANSI.sub('', seen)[-1500:]}")
        message = await ws.receive(timeout=left)
        if message.type == aiohttp.WSMsgType.BINARY:
            seen += message.data.decode("utf-8", "replace")
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise AssertionError(f"closed ({message.data} {message.extra}) before {pattern!r}")
    return ANSI.sub("", seen)


async def closed(ws: aiohttp.ClientWebSocketResponse) -> tuple[int | None, str]:
    """Read until the door closes the websocket: (code, reason)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        message = await ws.receive(timeout=max(deadline - time.monotonic(), 0.01))
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return ws.close_code, str(message.extra or "")
