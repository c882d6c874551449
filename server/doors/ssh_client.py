"""One SSH session's client: a `gother join` process on its own pseudo-terminal, joined to
the session's channel (screen out, keys in, window changes), until either side ends; or,
for the plain line mode without a terminal, on the channel's own streams (`run_plain`).

Two things never reach the player. A burst of window changes: the client's terminal
library handles SIGWINCH in a Python signal handler, and one signal arriving while the
last is handled nests a call, so thousands a second ended in a RecursionError; the pty
takes at most one size per `RESIZE_GAP`, the latest. And what the client would print on
its way out (a traceback, with the host's paths in it): its stderr stream goes to a pipe
(`GOTHER_ERRORS_FD`, read by gother_tui/core/logs.py), and the door logs it on the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import struct
import termios
from collections.abc import Callable, Sequence
from typing import Any

from server.doors.forks import Forked, Zygote
from server.doors.orphans import end_with_door
from server.doors.sshlib import asyncssh

log = logging.getLogger("gother.ssh")

RESIZE_GAP = 0.05  # seconds between two sizes given to the pty: at most 20 SIGWINCH a second
ERRORS_KEPT = 64 * 1024  # bytes of a failing client's last words kept for the log
ERRORS_FD = "GOTHER_ERRORS_FD"  # where the client writes what it would print on stderr
Child = asyncio.subprocess.Process | Forked  # a fresh client process, or a zygote's child


async def run_client(
    process: asyncssh.SSHServerProcess[bytes],
    argv: Sequence[str],
    env: dict[str, str],
    handed: Sequence[int] = (),
    who: str = "?",
    zygote: Zygote | None = None,
) -> int:
    """Run `argv` on a new pty the size of `process`'s terminal, handing it the fds
    `handed` (closed here once it has them); the exit code. `who` names the session in
    the host's log. Forked by `zygote` when it can, else a fresh process."""
    width, height = process.get_terminal_size()[:2]
    master, slave = os.openpty()
    set_size(master, width or 80, height or 24)
    child, errors_read = await _spawn(
        argv,
        env,
        handed,
        also_close=(slave,),
        zygote=zygote,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        preexec_fn=_take_terminal,
    )
    os.set_blocking(master, False)
    window = WindowSize(lambda w, h: set_size(master, w, h))
    output = asyncio.create_task(_pump_out(master, process))
    typing = asyncio.create_task(_pump_in(process, master, window))
    errors = asyncio.create_task(_collect(errors_read))
    try:
        ended = asyncio.create_task(child.wait())
        await asyncio.wait({output, typing, ended}, return_when=asyncio.FIRST_COMPLETED)
        ended.cancel()
        if child.returncode is None:  # the player hung up: the client goes too
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGHUP)
        try:
            await asyncio.wait_for(child.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            await child.wait()
        await asyncio.wait_for(asyncio.shield(output), 2)  # the last frame drawn
        await _tell_host(errors, f"the client of {who}")
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        raise
    finally:
        window.close()
        for task in (typing, output, errors):
            task.cancel()
        await asyncio.gather(typing, output, errors, return_exceptions=True)
        os.close(master)
        os.close(errors_read)
    return child.returncode or 0


async def run_plain(
    process: asyncssh.SSHServerProcess[bytes],
    argv: Sequence[str],
    env: dict[str, str],
    handed: Sequence[int] = (),
    who: str = "?",
) -> int:
    """Run `argv` (the plain line mode) with the channel's own streams as its stdin and
    stdout: no terminal, for screen readers and scripts; the exit code. Its stderr goes to
    the channel too, but what it would print on the way out goes to the host's log, as for
    `run_client`."""
    pipe = asyncio.subprocess.PIPE
    child, errors_read = await _spawn(
        argv, env, handed, stdin=pipe, stdout=pipe, stderr=pipe, preexec_fn=end_with_door
    )
    assert isinstance(child, asyncio.subprocess.Process)  # no zygote for the bare channel
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    pumps = [
        asyncio.create_task(_copy_in(process, child.stdin)),
        asyncio.create_task(_copy_out(child.stdout, process.stdout)),
        asyncio.create_task(_copy_out(child.stderr, process.stderr)),
    ]
    errors = asyncio.create_task(_collect(errors_read))
    try:
        code = await child.wait()  # it quits at the end of its input: the player hung up
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*pumps[1:]), 2)  # its last lines
        await _tell_host(errors, f"the plain client of {who}")
    except (TimeoutError, asyncio.CancelledError):  # the server is closing
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        raise
    finally:
        for task in (*pumps, errors):
            task.cancel()
        await asyncio.gather(*pumps, errors, return_exceptions=True)
        os.close(errors_read)
    return code


async def _spawn(
    argv: Sequence[str],
    env: dict[str, str],
    handed: Sequence[int],
    also_close: Sequence[int] = (),
    zygote: Zygote | None = None,
    **streams: Any,
) -> tuple[Child, int]:
    """Start `argv` in a session of its own with `streams`, the fds `handed` and the
    errors pipe (`ERRORS_FD`); every fd given to it is closed here once it has them, with
    `also_close`. Forked by `zygote` if it can (`streams` then name one terminal's fd).
    The child, and the read end of its errors pipe (non-blocking)."""
    errors_read, errors_write = os.pipe()
    env = {**env, ERRORS_FD: str(errors_write)}
    try:
        child: Child | None = None
        if zygote is not None:
            stdio = [(streams[name], n) for n, name in enumerate(("stdin", "stdout", "stderr"))]
            given = [*stdio, *((fd, fd) for fd in (*handed, errors_write))]
            child = await zygote.fork(argv, env, given, tty=True)
        if child is None:
            child = await asyncio.create_subprocess_exec(
                *argv, env=env, start_new_session=True, pass_fds=(*handed, errors_write), **streams
            )
    except BaseException:
        os.close(errors_read)
        raise
    finally:
        for fd in (*also_close, errors_write, *handed):
            os.close(fd)
    os.set_blocking(errors_read, False)
    return child, errors_read


async def _tell_host(errors: asyncio.Task[str], whose: str) -> None:
    """What the client said on its errors pipe, if anything, into the host's log."""
    said = await asyncio.wait_for(asyncio.shield(errors), 2)
    if said:
        log.error("ssh: %s stopped on an error:\n%s", whose, said.rstrip())


async def _copy_in(process: asyncssh.SSHServerProcess[bytes], sink: asyncio.StreamWriter) -> None:
    """Typed lines: SSH channel → the plain client's stdin, then its end."""
    with contextlib.suppress(OSError, asyncssh.Error):
        while data := await process.stdin.read(4096):
            sink.write(data)
            await sink.drain()
    with contextlib.suppress(OSError):
        sink.close()


async def _copy_out(source: asyncio.StreamReader, sink: asyncssh.SSHWriter[bytes]) -> None:
    """The plain client's lines → SSH channel, until it closes its end."""
    with contextlib.suppress(OSError, asyncssh.Error):
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()


class WindowSize:
    """The sizes a player's window goes through, given to the pty at most one per `gap`:
    the first at once, then the latest once the gap is over (so the last one always
    lands)."""

    def __init__(self, apply: Callable[[int, int], None], gap: float = RESIZE_GAP) -> None:
        self.apply, self.gap = apply, gap
        self.loop = asyncio.get_running_loop()
        self.last = -gap  # when a size was last applied (loop time)
        self.wanted: tuple[int, int] | None = None
        self.pending: asyncio.TimerHandle | None = None

    def change(self, width: int, height: int) -> None:
        self.wanted = (width, height)
        if self.pending is None:
            delay = self.last + self.gap - self.loop.time()
            self.pending = self.loop.call_later(max(0.0, delay), self._apply)

    def _apply(self) -> None:
        self.pending = None
        if self.wanted is not None:
            self.apply(*self.wanted)
            self.wanted, self.last = None, self.loop.time()

    def close(self) -> None:
        if self.pending is not None:
            self.pending.cancel()


def set_size(fd: int, width: int, height: int) -> None:
    """The kernel then sends SIGWINCH to the terminal's foreground process group."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


def _take_terminal() -> None:  # in the child, after setsid: the pty becomes its terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    end_with_door()


async def _readable(fd: int) -> None:
    """Until `fd` has something to read (or its other end is gone)."""
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    try:
        await ready.wait()
    finally:
        loop.remove_reader(fd)


async def _pump_out(master: int, process: asyncssh.SSHServerProcess[bytes]) -> None:
    """Screen: pty → SSH channel, until the client's side of the pty closes."""
    while True:
        await _readable(master)
        try:
            data = os.read(master, 65536)
        except BlockingIOError:
            continue
        except OSError:  # EIO: every holder of the pty's other side is gone
            return
        if not data:
            return
        process.stdout.write(data)
        await process.stdout.drain()


async def _pump_in(
    process: asyncssh.SSHServerProcess[bytes], master: int, window: WindowSize
) -> None:
    """Keys: SSH channel → pty; window changes resize the pty."""
    while True:
        try:
            data = await process.stdin.read(4096)
        except asyncssh.TerminalSizeChanged as change:
            window.change(change.width, change.height)
            continue
        except (asyncssh.BreakReceived, asyncssh.SignalReceived):
            continue
        if not data:
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(master, view) :]
            except BlockingIOError:
                await asyncio.sleep(0.01)


async def _collect(fd: int) -> str:
    """What the client wrote to its errors pipe, its last ERRORS_KEPT bytes, until it closed."""
    kept = b""
    while True:
        await _readable(fd)
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not data:
            return kept.decode(errors="replace")
        kept = (kept + data)[-ERRORS_KEPT:]
