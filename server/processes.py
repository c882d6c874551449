"""`gother serve --processes N`: N game processes of one host on this machine, sharing its
PostgreSQL (docs/architecture.md, "Several processes of one host"). Each is a `gother serve`
of its own with the host's options, but its own port (PORT + K, or each its own with port 0)
and its own table log (FILE-K beside --table-log's FILE, by default table-log-K.db in the
data folder): the lobby, names and records are shared through PostgreSQL, and a client
asking one process for a table another holds is sent there (`elsewhere`). With `--public
URL` (the host's name, as its certificate names it, and the first process's port), each
process says it is at that name and its own port: the URL's port + K (0: its own).

A process that ends is started again (its tables come back from its log, which its death
unlocked), after a pause that doubles while it keeps ending at once. SIGTERM or SIGINT is
passed to every process, and waited for.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from server.store.kinds import default_table_log, is_postgres

log = logging.getLogger("gother.server")

OWN = ("--processes", "--port", "--table-log", "--public")  # each process is given its own
FIRST_PAUSE, LONGEST_PAUSE = 1.0, 30.0  # seconds before a process that ended starts again
STEADY = 60.0  # seconds a process runs before its pause is the first again
STOP_WAIT = 30.0  # seconds each process has to stop before it is killed


def table_logs(table_log: str, count: int) -> list[str]:
    """Each process's table log: FILE-K beside FILE (its suffix kept)."""
    path = Path(table_log)
    return [str(path.with_name(f"{path.stem}-{k}{path.suffix}")) for k in range(count)]


def process_argv(
    argv: list[str], port: int, table_log: str, public: str | None = None
) -> list[str]:
    """`gother ARGV` (serve and its options) as one process of them runs it."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in OWN:
            skip = "=" not in arg
            continue
        kept.append(arg)
    return [
        sys.executable,
        "-m",
        "gother_tui",
        *kept,
        "--port",
        str(port),
        "--table-log",
        table_log,
        *(() if public is None else ("--public", public)),
    ]


class ProcessesRefused(ValueError):
    """Several processes cannot serve this host: why, in a sentence."""


def publics(public: str, count: int) -> list[str]:
    """Each process's --public: the host's `public` URL, its port + K (0 stays 0: each
    process its own). ProcessesRefused: a URL without a port."""
    parts = urlsplit(public)  # a ws:// or wss:// address (the command line's check)
    port, name = parts.port, parts.hostname or ""
    if port is None:
        raise ProcessesRefused(
            f"--public {public}: with --processes, give the first process's port"
            " (the K-th is at PORT + K; 0: each at its own)"
        )
    name = f"[{name}]" if ":" in name else name
    return [
        parts._replace(netloc=f"{name}:{port + k if port else 0}").geturl() for k in range(count)
    ]


def many(
    argv: list[str],
    processes: int,
    port: int,
    db: str,
    table_log: str | None,
    public: str | None = None,
) -> None:
    """`gother ARGV` served by `processes` processes until SIGTERM or SIGINT, each stopped
    then (ProcessesRefused: not with this `db`, or this `public`)."""
    if not is_postgres(db):
        raise ProcessesRefused("--processes goes with a PostgreSQL --db, which they share")
    logs = table_logs(table_log or default_table_log(), processes)
    urls: list[str | None] = [None] * processes if public is None else [*publics(public, processes)]
    commands = [
        process_argv(argv, port + k if port else 0, logs[k], urls[k]) for k in range(processes)
    ]
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    running = [_start(k, command) for k, command in enumerate(commands)]
    started = [time.monotonic()] * processes
    pauses = [FIRST_PAUSE] * processes
    due: list[float | None] = [None] * processes  # when an ended process starts again
    while not stop.wait(0.2):
        for k, process in enumerate(running):
            now = time.monotonic()
            if due[k] is None and process.poll() is not None:
                if now - started[k] > STEADY:
                    pauses[k] = FIRST_PAUSE
                log.warning(
                    "process %d ended (%s): starting it again in %g s",
                    k,
                    process.returncode,
                    pauses[k],
                )
                due[k] = now + pauses[k]
                pauses[k] = min(pauses[k] * 2, LONGEST_PAUSE)
            if due[k] is not None and now >= (due[k] or 0):
                running[k], started[k], due[k] = _start(k, commands[k]), now, None
    for process in running:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in running:
        try:
            process.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    log.info("every process stopped")


def _start(k: int, command: list[str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    log.info("process %d started (pid %d)", k, process.pid)
    return process
