"""Real `gother` processes for tests: the installed console script, run as a subprocess.

`ServerProcess` starts `gother serve --port 0` and learns its port from the log line
"listening on ws://127.0.0.1:PORT" on stderr; a task keeps draining stderr so the server
never blocks on a full pipe. `run_cli` runs a short command and returns its output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

GOTHER = str(Path(sys.executable).with_name("gother"))  # the venv's console script
STARTUP = 60.0  # seconds: a cold Python start on two busy cores can be slow
EXIT = 30.0
LISTENING = re.compile(r"listening on (wss?://127\.0\.0\.1:(\d+))")


class ServerProcess:
    def __init__(
        self, proc: asyncio.subprocess.Process, ready: re.Pattern[str] = LISTENING
    ) -> None:
        self.proc = proc
        self.ready = ready  # the line that says it serves; its first group is `url`
        self.lines: list[str] = []  # stderr, line by line
        self.url = ""
        self._ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._more = asyncio.Event()  # set at each new line of stderr
        self._drain = asyncio.create_task(self._read_stderr())

    @classmethod
    async def start(
        cls, *args: str, env: dict[str, str] | None = None, nofile: int | None = None
    ) -> ServerProcess:
        """`gother serve … ARGS`, with `env` added to this process's environment (and held
        to `nofile` file descriptors, soft and hard, when given)."""
        argv = ("serve", "--host", "127.0.0.1", "--port", "0", *args)
        return await cls.run(*argv, env=env, nofile=nofile)

    @classmethod
    async def run(
        cls,
        *argv: str,
        ready: re.Pattern[str] = LISTENING,
        env: dict[str, str] | None = None,
        nofile: int | None = None,
    ) -> ServerProcess:
        """`gother ARGV…`, once its log has a line `ready` finds."""

        def held() -> None:  # in the child, before it runs gother (only when `nofile`)
            assert nofile is not None
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        proc = await asyncio.create_subprocess_exec(
            GOTHER,
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=None if env is None else {**os.environ, **env},
            preexec_fn=None if nofile is None else held,
        )
        server = cls(proc, ready)
        try:
            server.url = await asyncio.wait_for(asyncio.shield(server._ready), STARTUP)
        except BaseException:
            await server.stop()
            raise
        return server

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line)
            self._more.set()
            match = self.ready.search(line)
            if match and not self._ready.done():
                self._ready.set_result(match.group(1))
        self._more.set()  # the end: a waiter looks once more, then gives up
        if not self._ready.done():
            self._ready.set_exception(
                RuntimeError("gother exited before listening:\n" + self.stderr)
            )

    async def log_line(
        self, pattern: re.Pattern[str], timeout: float = STARTUP, nth: int = 1
    ) -> re.Match[str]:
        """The `nth` line of stderr that `pattern` finds, waiting for it while the server
        runs."""
        async with asyncio.timeout(timeout):
            while True:
                found = [m for line in self.lines if (m := pattern.search(line))]
                if len(found) >= nth:
                    return found[nth - 1]
                if self._drain.done():
                    raise AssertionError(f"no {pattern.pattern!r} in the log:\n{self.stderr}")
                self._more.clear()
                await self._more.wait()

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)

    async def kill(self) -> int:
        """SIGKILL: no clean-up at all, as in a power cut."""
        self.proc.kill()
        return await self.wait()

    async def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return await self.wait()

    async def wait(self) -> int:
        code = await asyncio.wait_for(self.proc.wait(), EXIT)
        await asyncio.wait_for(self._drain, EXIT)  # every line of stderr is in self.lines
        return code

    async def stop(self) -> None:
        """Clean-up for finally blocks: kill the process if it still runs, reap it."""
        if self.proc.returncode is None:
            self.proc.kill()
        await asyncio.wait_for(self.proc.wait(), EXIT)
        self._drain.cancel()
        if self._ready.done() and not self._ready.cancelled():
            self._ready.exception()  # retrieved: no "exception never retrieved" warning


async def run_cli(*args: str, timeout: float = 120.0) -> tuple[int, str, str]:
    """Run `gother ARGS…` to the end; returns (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        GOTHER,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


@contextlib.asynccontextmanager
async def host_of(
    count: int, pg_url: str, folder: Path, *args: str
) -> AsyncIterator[list[ServerProcess]]:
    """`count` game processes of one host sharing the PostgreSQL at `pg_url`, each started
    in turn with ARGS and its own table log in `folder` (log-0.db, log-1.db, …); every one
    stopped after."""
    processes: list[ServerProcess] = []
    try:
        for k in range(count):
            table_log = str(folder / f"log-{k}.db")
            processes.append(
                await ServerProcess.start("--db", pg_url, "--table-log", table_log, *args)
            )
        yield processes
    finally:
        for process in processes:
            await process.stop()
