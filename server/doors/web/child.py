"""One browser tab's client: `python -m gother_tui join URL --ask-name` under Textual's web
driver, spoken to through textual-serve's AppService (its packets, resizes, focus).

What we own rather than take from AppService: the process is started from an argument
list (no shell, nothing typed by anyone in it) with no secret on it, in a session of its
own so that it can always be ended; its environment is the browser's own state folder
and a UTF-8 locale (Unicode follows the browser and the door's font, not the host's
locale); and stopping it never waits for ever. Links and file deliveries the client
might ask the browser to open are dropped: the page talks to this door only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
from asyncio.subprocess import PIPE, Process
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from server.doors.forks import CLIENT, Zygote
from server.doors.orphans import end_with_door
from server.doors.ssh import pipe_holding

log = logging.getLogger("gother.web")
QUIT_TIMEOUT = 5.0  # seconds for the client to say goodbye to the server and exit
NO_DOWNLOADS = DownloadManager()  # AppService wants one; our client delivers no files


def client_argv(url: str, tls_pin: str | None) -> list[str]:
    """The client asks the player's name on its first screen: nothing typed in a browser
    ever becomes an argument. `tls_pin`: the server's certificate, dialled by address."""
    argv = [*CLIENT, "join", url, "--ask-name"]
    return argv if tls_pin is None else [*argv, "--fingerprint", tls_pin]


def client_env(base: dict[str, str], state: Path, width: int, height: int) -> dict[str, str]:
    """`base` (AppService's: the web driver, the size) with this browser's own folders."""
    env = {k: v for k, v in base.items() if not k.startswith("GOTHER_")}  # no door secrets
    for key in ("LC_ALL", "LC_CTYPE"):  # they would win over LANG
        env.pop(key, None)
    env |= {
        "LANG": "C.UTF-8",
        "XDG_STATE_HOME": str(state),  # seat tokens and the client's log: this browser's
        "XDG_CONFIG_HOME": str(state / "config"),  # no keymap of the host's
        "XDG_CACHE_HOME": str(state / "cache"),
        "XDG_DATA_HOME": str(state / "data"),
        "COLUMNS": str(width),
        "ROWS": str(height),
        # Textual's web driver, saying its prelude once a process: a replay runs in the
        # client's process between two runs of the client (gother_tui/tui/web_driver.py)
        "TEXTUAL_DRIVER": "gother_tui.tui.web_driver:ClientWebDriver",
    }
    return env


class ClientProcess(AppService):
    def __init__(
        self,
        url: str,
        state: Path,
        password: str | None,
        claim: str,
        tls_pin: str | None = None,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        zygote: Zygote | None = None,
    ) -> None:
        """`zygote`: the door's, which forks this client when it can."""
        self.argv = client_argv(url, tls_pin)
        self.zygote = zygote
        super().__init__(
            shlex.join(self.argv),  # for AppService's own records; never run by a shell
            write_bytes=write_bytes,
            write_str=self._drop_text,
            close=close,
            download_manager=NO_DOWNLOADS,
        )
        self.state = state
        self.password = password
        self.claim = claim  # the door's word of where this tab's browser is
        self._closing: asyncio.Future[None] | None = None

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        base = super()._build_environment(width, height)
        return client_env(base, self.state, width, height)

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        # through pipes, as at the SSH door: argv is public
        handed = [pipe_holding(self.claim)]
        argv = [*self.argv, "--door-file", f"/dev/fd/{handed[0]}"]
        if self.password is not None:
            handed.append(pipe_holding(self.password))
            argv += ["--password-file", f"/dev/fd/{handed[1]}"]
        env = self._build_environment(width, height)
        try:
            forked = None
            if self.zygote is not None:
                forked = await self.zygote.piped(argv, env, handed)
            # a Forked has all of a Process that AppService and this class use
            self._process = process = cast(Process, forked) or (
                await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=PIPE,
                    stdout=PIPE,
                    stderr=PIPE,  # AppService's: what the client says there goes to the host
                    env=env,
                    start_new_session=True,  # its own process group: killpg ends all of it
                    preexec_fn=end_with_door,  # …and it ends with the door, however it ends
                    pass_fds=handed,
                )
            )
        finally:
            for fd in handed:
                os.close(fd)
        assert process.stdin is not None
        self._stdin = process.stdin
        how = "" if forked is None else " by the zygote"
        log.info("web: client started%s (pid %d)", how, process.pid)
        return process

    async def start(self, width: int, height: int) -> None:
        await super().start(width, height)
        assert self._task is not None
        self._task.add_done_callback(self._ended)

    def _ended(self, _: asyncio.Task[None]) -> None:
        # however the client ended (the player quit, a crash, a kill), its tab hears of it
        self._closing = asyncio.ensure_future(self.remote_close())

    async def on_meta(self, data: bytes) -> None:
        """The client's "exit" is followed by the end of its output, which closes the tab
        (`_ended`); links and file deliveries are not for the browser to fetch."""

    async def _drop_text(self, text: str) -> None:
        return None

    async def stop(self) -> None:
        """Ask the client to quit; kill it if it has not within QUIT_TIMEOUT."""
        process = self._process
        if process is None:
            return
        try:
            if process.returncode is None:
                await self.send_meta({"type": "quit"})
                try:
                    await asyncio.wait_for(process.wait(), QUIT_TIMEOUT)
                except TimeoutError:
                    log.warning("web: client %d did not quit; killing it", process.pid)
                    self._kill()
                    await process.wait()
            if self._task is not None:  # the last output; it ends at the pipe's end…
                with contextlib.suppress(TimeoutError):  # …unless the tab stopped reading
                    await asyncio.wait_for(self._task, QUIT_TIMEOUT)
                self._task = None
        except asyncio.CancelledError:
            self._kill()
            raise
        log.info("web: client %d ended (%s)", process.pid, process.returncode)

    def _kill(self) -> None:
        assert self._process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
