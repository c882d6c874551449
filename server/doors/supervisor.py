"""A door kept running in a process of its own: started, restarted when it dies, stopped.

The game server starts each of its doors (`gother serve --ssh/--web`) as a child process,
so nothing a door suffers (its descriptors, its memory, its slow clients) reaches the game
port, and a door that dies takes nothing else with it. A door that ends is started again
after a wait that doubles from FIRST_WAIT up to LAST_WAIT, and is back to FIRST_WAIT once
it has run STEADY seconds: a door that cannot start (its port taken) is tried again
without spinning. Every start and end is logged. The child's stdin is a pipe from this
process: when the server goes, however it goes, the door reads its end and stops too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from asyncio.subprocess import PIPE, Process
from collections.abc import Awaitable, Callable

log = logging.getLogger("gother.server")
FIRST_WAIT = 0.5  # seconds before the first restart
LAST_WAIT = 30.0  # the longest wait between two starts: a broken door is tried twice a minute
STEADY = 60.0  # seconds a door must run for its next restart to wait FIRST_WAIT again
STOP_TIMEOUT = 10.0  # seconds a door has to close its sessions when the server stops

# What a start needs: the command line, and the descriptors to hand it (each closed here
# once the child has it). Made afresh for each start: a pipe is read once.
Start = Callable[[], tuple[list[str], list[int]]]


async def keep_starting(
    once: Callable[[], Awaitable[int | None]],
    stopping: Callable[[], bool],
    what: str,
    meanwhile: str,
) -> None:
    """Run `once` (a process's life, its exit code) again each time it ends, until
    `stopping()`: after FIRST_WAIT, doubling up to LAST_WAIT, back to FIRST_WAIT once a run
    lasted STEADY seconds. Each end is logged: "`what` ended (code): `meanwhile` N s"."""
    wait = FIRST_WAIT
    loop = asyncio.get_running_loop()
    while not stopping():
        began = loop.time()
        try:
            code = await once()
        except OSError as exc:  # no such program, no more processes…: try again later
            log.error("%s: cannot start: %s", what, exc)
            code = None
        if stopping():
            return
        if loop.time() - began >= STEADY:
            wait = FIRST_WAIT
        log.error("%s ended (%s): %s %g s", what, code, meanwhile, wait)
        await asyncio.sleep(wait)
        wait = min(wait * 2, LAST_WAIT)


class Supervised:
    def __init__(self, name: str, start: Start) -> None:
        self.name = name
        self._start = start
        self.process: Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def run(self) -> None:
        """Keep the door running until `stop`."""
        self._task = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        await keep_starting(
            self._once, lambda: self._stopping, f"{self.name} door", "starting it again in"
        )

    async def _once(self) -> int | None:
        argv, handed = self._start()
        try:
            self.process = process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=PIPE,  # its end is the server's end: the door stops with the server
                pass_fds=handed,
                start_new_session=True,  # a Ctrl-C at the host's terminal is the server's
            )
        finally:
            for fd in handed:
                os.close(fd)
        log.info("%s door started (pid %d)", self.name, process.pid)
        return await process.wait()

    async def stop(self) -> None:
        """Ask the door to close its sessions (SIGTERM); kill it after STOP_TIMEOUT."""
        self._stopping = True
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                log.warning("%s door did not stop; killing it", self.name)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        log.info("%s door stopped", self.name)
