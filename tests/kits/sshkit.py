"""An SSH player for tests: an asyncssh client on 127.0.0.1 that logs in to a door by key
or password, asks for an 80x24 xterm-256color pty and reads the screen it is sent."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import asyncssh

SCREEN_TIMEOUT = 60.0  # a cold client start (Python + Textual) on a busy CI core
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


async def log_in(
    port: int,
    key: asyncssh.SSHKey | None,
    user: str = "Raven",
    password: str | None = None,
):
    return await asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        client_keys=[key] if key is not None else None,
        password=password,
        known_hosts=None,
        agent_path=None,
        config=[],
        preferred_auth=("publickey", "password"),
    )


async def open_session(
    port: int,
    key: asyncssh.SSHKey | None,
    user: str = "Raven",
    password: str | None = None,
    **process: Any,
):
    """Logged in and in a session; `process` adds to create_process's arguments (`env`)."""
    conn = await log_in(port, key, user, password)
    session = await conn.create_process(
        term_type="xterm-256color", term_size=(80, 24), encoding=None, **process
    )
    return conn, session


async def read_until(process, pattern: re.Pattern[str], *, raw: bool = False) -> str:
    """Channel output, escape sequences removed (all of it with `raw`), until `pattern`
    shows up in it."""
    seen = b""
    deadline = time.monotonic() + SCREEN_TIMEOUT

    def text() -> str:
        return (seen if raw else ANSI.sub(b"", seen)).decode(errors="replace")

    while not pattern.search(text()):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {pattern.pattern!r} on screen; saw:\n{seen[-2000:]!r}")
        try:
            chunk = await asyncio.wait_for(process.stdout.read(65536), left)
        except TimeoutError:
            continue
        if not chunk:
            raise AssertionError(f"session ended before {pattern.pattern!r}:\n{seen[-2000:]!r}")
        seen += chunk
    return text()


async def read_to_end(process) -> str:
    """Everything the channel sends until the session ends, escape sequences removed."""
    seen = b""
    while chunk := await asyncio.wait_for(process.stdout.read(65536), SCREEN_TIMEOUT):
        seen += chunk
    return ANSI.sub(b"", seen).decode(errors="replace")


async def close(conn, process) -> None:
    process.close()
    conn.close()
    await conn.wait_closed()
