"""Driving the plain client in tests: in this process (its lines in a Transcript, its
frames recorded on a real websocket) or as a real `gother … --plain` process on pipes.

Every wait is for a line that matches, with a deadline: nothing sleeps. A transcript keeps
a reading position, so `until` finds the next matching line after the last one found
(and never one the test has already moved past).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from gother_tui.core.notice import THINKING
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.core.trust import Trust
from gother_tui.plain.client import PlainClient
from gother_tui.plain.lines import LineCommands
from gother_tui.plain.terminal import Output
from protocol import ProtocolError, Request, server_messages
from tests.kits.prockit import GOTHER

TIMEOUT = 60.0  # generous: two busy cores, a cold interpreter for a process
CHOOSE = re.compile(r"^Choose 1(?:-(\d+))?")  # the last line of every decision


class Transcript:
    """The lines a client wrote, and a way to wait for the next one that matches."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.read = 0  # lines before this one have been looked at by `until`
        self._grew = asyncio.Event()

    def add(self, line: str) -> None:
        self.lines.append(line)
        self._grew.set()

    async def until(
        self, pattern: str | re.Pattern[str], timeout: float = TIMEOUT
    ) -> re.Match[str]:
        """The next line (after the last one found) that `pattern` matches."""
        regex = re.compile(pattern)

        async def scan() -> re.Match[str]:
            while True:
                while self.read < len(self.lines):
                    line = self.lines[self.read]
                    self.read += 1
                    if match := regex.search(line):
                        return match
                self._grew.clear()
                await self._grew.wait()

        try:
            return await asyncio.wait_for(scan(), timeout)
        except TimeoutError:
            tail = "\n".join(self.lines[-40:])
            raise AssertionError(
                f"no line matching {regex.pattern!r}; the last lines:\n{tail}"
            ) from None

    def since(self, mark: int) -> list[str]:
        return self.lines[mark:]


class _Stream:
    """The text stream Output writes to: whole lines into a Transcript."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.buffer = ""

    def write(self, text: str) -> int:
        self.buffer += text
        *lines, self.buffer = self.buffer.split("\n")
        for line in lines:
            self.transcript.add(line)
        return len(text)

    def flush(self) -> None:
        pass


class Recording(WebSocketTransport):
    """The real websocket transport, keeping every frame sent and every message received."""

    sent: list[dict[str, Any]]
    received: list[Any]

    def __init__(self, url: str, trust: Trust | None = None) -> None:
        super().__init__(url, trust)
        self.sent, self.received = [], []

    async def send(self, request: Request) -> None:
        self.sent.append(request.to_wire())  # the frame, as the server decodes it
        await super().send(request)

    async def messages(self) -> AsyncIterator[dict[str, Any] | ProtocolError]:
        async for frame in super().messages():
            if isinstance(frame, dict):
                self.received.append(server_messages.parse(frame))
            yield frame


class InProcess:
    """A PlainClient in the test's event loop: `type` a line, read its `transcript`."""

    def __init__(self, url: str, tmp: Path, trust: Trust | None = None, **options: Any) -> None:
        """`trust`: the wss:// certificates trusted (--fingerprint's pin, say)."""
        self.trust = trust
        self.transcript = Transcript()
        self.transports: list[Recording] = []
        settings: dict[str, Any] = {"url": url, "name": "Raven", "ascii": True, **options}
        self.options = ClientOptions(**settings)
        self._input: asyncio.Queue[str | None] = asyncio.Queue()
        self.client: PlainClient | None = None
        self.task: asyncio.Task[int] | None = None
        self.store = SeatStore(tmp / "seats.json")

    def _transport(self, url: str) -> Recording:
        transport = Recording(url, self.trust)
        self.transports.append(transport)
        return transport

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await self._input.get()) is not None:
            yield line

    async def __aenter__(self) -> InProcess:
        out = Output(_Stream(self.transcript), self.options.ascii)
        self.client = PlainClient(self.options, out, self._transport, self.store)
        self.task = asyncio.create_task(self.client.run(self._lines(), LineCommands))
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.end_input()
        assert self.task is not None
        await asyncio.wait_for(self.task, TIMEOUT)

    def type(self, *lines: str) -> None:
        for line in lines:
            self._input.put_nowait(line)

    def end_input(self) -> None:
        self._input.put_nowait(None)

    @property
    def sent(self) -> list[dict[str, Any]]:
        return [frame for t in self.transports for frame in t.sent]

    @property
    def received(self) -> list[Any]:
        return [message for t in self.transports for message in t.received]

    def moves_sent(self) -> list[dict[str, Any]]:
        return [frame["move"] for frame in self.sent if frame["t"] == "move"]

    def errors(self) -> list[server_messages.Error]:
        """What the server refused. A hint it is still thinking about (`thinking`, asked
        again by the client) is news, not a refusal: a loaded machine answers it often."""
        return [
            m for m in self.received if isinstance(m, server_messages.Error) and m.code != THINKING
        ]


def plain_env(home: Path, **extra: str) -> dict[str, str]:
    """A process environment with HOME and the XDG folders under `home`, plus `extra`."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        **extra,
    }


class PlainProcess:
    """`gother ARGS…` (a --plain command) on pipes: `type` lines into it, wait on its lines."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.transcript = Transcript()
        self.raw = b""  # every byte of its stdout
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, *args: str, env: dict[str, str]) -> PlainProcess:
        proc = await asyncio.create_subprocess_exec(
            GOTHER,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.raw += raw
            self.transcript.add(raw.decode("utf-8", "replace").rstrip("\n"))

    async def type(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
        await self.proc.stdin.drain()

    async def until(self, pattern: str | re.Pattern[str]) -> re.Match[str]:
        return await self.transcript.until(pattern)

    async def wait(self) -> int:
        code = await asyncio.wait_for(self.proc.wait(), TIMEOUT)
        await asyncio.wait_for(self._reader, TIMEOUT)
        return code

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await asyncio.wait_for(self.proc.wait(), TIMEOUT)
        self._reader.cancel()
