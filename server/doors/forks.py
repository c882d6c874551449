"""A door's zygote (server/doors/zygote.py), from the door's side: started with the door, started
again when it dies, asked for one client per session.

A session asks `Zygote.fork`; it gets a `Forked` child, or None while no zygote is ready,
and then starts a fresh client process as before: a session is never refused for want of a
zygote, only slower. A zygote still warming up is waited for a little first (READY_WAIT):
a fresh client started beside its warm-up split the cores three ways with it, and on a
busy machine such a session (one in four) showed nothing for longer than a player waits.
A zygote that ends is started again after a wait that doubles as a door's does
(server/doors/supervisor.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence

from server.doors.orphans import end_with_door
from server.doors.supervisor import keep_starting

log = logging.getLogger("gother.server")
FORK_TIMEOUT = 10.0  # seconds the zygote has to answer a request (a fork takes milliseconds)
READY_WAIT = 10.0  # seconds a session waits for a zygote warming up (a few, on a busy host)
KILLED = -signal.SIGKILL  # the code of a child whose zygote died: the kernel killed it too
ZYGOTE = [sys.executable, "-m", "server.doors.zygote"]  # its command, given its socket's fd
CLIENT = [sys.executable, "-m", "gother_tui"]  # the only command a zygote runs
# What the zygote reports to its door: {"ready": pid, "pages": whether KSM shares its
# children's pages}, {"forked": pid}, {"failed": why} or
# {"ended": pid, "code": exit code}. The two speak only through the socket (the zygote is a
# program of its own, the client's): this module never imports it.
Report = dict[str, int | str]


class Forked:
    """A client the zygote forked, as a session waits on it (asyncio's Process, in part:
    with `piped`, its stdin, stdout and stderr too)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._ended = asyncio.Event()
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None

    async def wait(self) -> int:
        await self._ended.wait()
        assert self.returncode is not None
        return self.returncode

    def ended(self, code: int) -> None:
        self.returncode = code
        self._ended.set()


class Zygote:
    def __init__(self, name: str) -> None:
        self.name = name  # the door's, for the log
        self.pid: int | None = None  # the zygote's, while one is ready
        self.ready = asyncio.Event()
        self.starts = 0  # zygotes started: one more after each death
        self._sock: socket.socket | None = None
        self._children: dict[int, Forked] = {}
        self._answer: asyncio.Future[Forked | str] | None = None
        self._asking = asyncio.Lock()  # one request at a time: answers come in order
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def run(self) -> None:
        """Keep a zygote running until `close`."""
        self._task = asyncio.create_task(self._keep())

    async def close(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def fork(
        self, argv: Sequence[str], env: dict[str, str], fds: Sequence[tuple[int, int]], tty: bool
    ) -> Forked | None:
        """A child running `argv` with `env`, each (fd, place) of `fds` at its place, and
        `tty` (its fd 0) as its controlling terminal; None (said in the log) if no zygote
        could fork it: then the caller starts a fresh process."""
        if self._sock is not None and not self.ready.is_set():  # started, warming up
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ready.wait(), READY_WAIT)
        async with self._asking:
            sock = self._sock
            if sock is None or not self.ready.is_set():
                log.warning("%s zygote not ready: a fresh client process", self.name)
                return None
            request = {"argv": list(argv), "env": env, "fds": [p for _, p in fds], "tty": tty}
            self._answer = answer = asyncio.get_running_loop().create_future()
            forked: Forked | str
            try:
                socket.send_fds(sock, [json.dumps(request).encode()], [fd for fd, _ in fds])
                forked = await asyncio.wait_for(answer, FORK_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                forked = str(exc) or "no answer"
            finally:
                self._answer = None
        if isinstance(forked, str):
            log.error("%s zygote could not fork (%s): a fresh client process", self.name, forked)
            return None
        return forked

    async def piped(
        self, argv: Sequence[str], env: dict[str, str], handed: Sequence[int]
    ) -> Forked | None:
        """As `fork`, with pipes for the child's stdin, stdout and stderr (the web door's
        client speaks through them) and the fds `handed` at their own numbers."""
        ends = [os.pipe() for _ in range(3)]
        theirs = [ends[0][0], ends[1][1], ends[2][1]]
        ours = [ends[0][1], ends[1][0], ends[2][0]]
        try:
            given = [*zip(theirs, range(3), strict=True), *((fd, fd) for fd in handed)]
            child = await self.fork(argv, env, given, tty=False)
        finally:
            for fd in theirs:
                os.close(fd)
        if child is None:
            for fd in ours:
                os.close(fd)
            return None
        loop = asyncio.get_running_loop()
        child.stdin = await _writer(loop, ours[0])
        child.stdout, child.stderr = [await _reader(loop, fd) for fd in ours[1:]]
        return child

    async def _keep(self) -> None:
        await keep_starting(
            self._once,
            lambda: self._stopping,
            f"{self.name} zygote",
            "fresh client processes until it is back, in",
        )

    async def _once(self) -> int | None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = await asyncio.create_subprocess_exec(
                *ZYGOTE,
                *("--socket-fd", str(theirs.fileno())),
                stdin=asyncio.subprocess.DEVNULL,
                env={k: v for k, v in os.environ.items() if not k.startswith("GOTHER_")},
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # its children are ended by their sessions, not ^C
                preexec_fn=end_with_door,
            )
        finally:
            theirs.close()
        self.starts += 1
        mine.setblocking(False)
        self._sock = mine
        try:
            await self._listen(mine)
        finally:
            self._sock, self.pid = None, None
            self.ready.clear()
            mine.close()  # a zygote still running reads its end: it returns
            for child in self._children.values():  # its death killed them (PDEATHSIG)
                child.ended(KILLED)
            self._children.clear()
            if self._answer is not None and not self._answer.done():
                self._answer.set_result("the zygote ended")
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.shield(process.wait())
        return process.returncode

    async def _listen(self, sock: socket.socket) -> None:
        """The zygote's messages, until it closes its end."""
        loop = asyncio.get_running_loop()
        while packet := await loop.sock_recv(sock, 65536):
            message: Report = json.loads(packet)  # the zygote's own JSON
            if "ready" in message:
                self.pid = int(message["ready"])
                self.ready.set()
                log.info("%s zygote ready (pid %d): %s", self.name, self.pid, message["pages"])
            elif "ended" in message:
                child = self._children.pop(int(message["ended"]), None)
                if child is not None:
                    child.ended(int(message["code"]))
            elif self._answer is not None and not self._answer.done():
                if "forked" in message:  # known before its end can be heard
                    pid = int(message["forked"])
                    child = self._children[pid] = Forked(pid)
                    self._answer.set_result(child)
                else:
                    self._answer.set_result(str(message.get("failed")))


async def _reader(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    pipe = open(fd, "rb", 0)  # noqa: SIM115 (the transport closes it)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    return reader


async def _writer(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamWriter:
    pipe = open(fd, "wb", 0)  # noqa: SIM115 (the transport closes it)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), pipe
    )
    return asyncio.StreamWriter(transport, protocol, None, loop)
