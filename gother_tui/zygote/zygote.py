"""The zygote: a client process that has imported Textual and our client once, and forks
one child per session on its door's request (as gunicorn's `--preload` does), so that a
session costs a fork, not a fresh interpreter, and the pages of that code are shared.

`python -m gother_tui.zygote --socket-fd N` is started by its door (server/doors/forks.py),
which holds the other end of a unix SOCK_SEQPACKET socket pair. A request is one packet:
JSON {"args", "env", "fds", "tty"} with the session's fds beside it (SCM_RIGHTS): the
`gother` command's arguments (a zygote runs nothing else), and in "fds" which number each
fd takes in the child. The zygote answers {"forked": pid} (or
{"failed": why}), and {"ended": pid, "code": c} once that child is reaped. Before any
fork it has no event loop, no thread and no socket but this one: a child starts clean.

A child keeps no descriptor but its session's own (nothing of the zygote's, nor of any
other session), makes its terminal its controlling tty as a fresh client's does, takes
the session's environment and runs the client's main. It ends with the zygote
(PR_SET_PDEATHSIG), and the zygote with its door: the orphan rule holds, one step at a
time. A zygote that dies takes its sessions with it, as a door does.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import ctypes
import fcntl
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import termios
import threading
import traceback
from pathlib import Path
from typing import Any, NamedTuple

MAX_FDS = 16  # descriptors one request may hand over
MAX_REQUEST = 1 << 20  # bytes of one request (the session's environment, mostly)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_MEMORY_MERGE = 67  # prctl (Linux 6.4): KSM may merge any page of this process and its forks
KSM_RUN = Path("/sys/kernel/mm/ksm/run")  # "1" while the host's ksmd merges
# What it tells its door: {"ready": pid, "pages": what KSM does with them}, {"forked": pid},
# {"failed": why}, {"ended": pid, "code": exit code}
Report = dict[str, int | str]
# Imported once, before any fork: the client's command line, its app and what the lobby
# and the table draw with; nothing here opens a file, a socket or a thread at import.
WARM = (
    "gother_tui.cli",
    "gother_tui.cli.client",
    "gother_tui.cli.certificates",
    "gother_tui.core.transport",
    "gother_tui.tui.app",
    "gother_tui.tui.replay_app",
    "gother_tui.plain",
    "textual.drivers.linux_driver",
    "textual.drivers.web_driver",
    "textual.layouts.factory",
    "textual.layouts.horizontal",
    "textual.layouts.stream",
    "textual.scrollbar",
    "textual.pilot",
    "rich._emoji_codes",
    "websockets.asyncio.client",
)


def warm() -> None:
    """Import what every client imports, load rich's table of character widths (the
    zygote's environment is the door's, where a session's UNICODE_VERSION comes from
    too), build the command line's parser (its default name is $USER's, which a
    session's environment keeps), parse the CSS a client reads in the default theme
    (its children share the rules), run a client to its first screens (rehearsal.py),
    and freeze what is there: the collector then never walks (so never writes to) the
    pages every child shares."""
    for name in WARM:
        importlib.import_module(name)
    from rich._unicode_data import load

    from gother_tui.cli import build_parser
    from gother_tui.core.options import ClientOptions
    from gother_tui.tui.client_app import ClientApp
    from gother_tui.tui.stylesheet import parse_ahead
    from gother_tui.zygote.rehearsal import rehearse

    load()
    build_parser()
    parse_ahead(ClientApp(ClientOptions(url="")))
    rehearse()
    asyncio.set_event_loop_policy(None)  # a child's asyncio as a fresh interpreter's
    gc.collect()
    gc.freeze()


def offer_pages() -> str:
    """Let the kernel's samepage merging (KSM) share the pages a child copies from the
    zygote only to leave them as they were, or to change them as every child does
    (reference counts, the interpreter's caches: most of a forked session's memory on
    CPython 3.11). The host decides whether ksmd runs; what to log about it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) != 0:
        return f"no page merging on this kernel ({os.strerror(ctypes.get_errno())})"
    try:
        running = KSM_RUN.read_text().strip() == "1"
    except OSError:
        running = False
    if running:
        return "its sessions' identical pages merged by KSM"
    return f"KSM is off ({KSM_RUN} is not 1): each session keeps its copies"


def serve(sock: socket.socket, pages: str) -> None:
    """Fork a child for each request until the door closes its end; report each end.
    `pages` is told to the door as the zygote is ready: whether KSM shares their pages."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)  # SIGCHLD wakes the select below
    signal.signal(signal.SIGCHLD, lambda *_: None)
    watch = selectors.DefaultSelector()
    watch.register(sock, selectors.EVENT_READ)
    watch.register(wake_read, selectors.EVENT_READ)
    _send(sock, {"ready": os.getpid(), "pages": pages})
    while True:
        for key, _ in watch.select():
            if key.fileobj == wake_read:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
                _reap(sock)
                continue
            packet, fds, flags, _ = socket.recv_fds(sock, MAX_REQUEST, MAX_FDS)
            if not packet:
                return  # the door is gone
            try:
                if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                    raise ValueError("a request too large")
                request = _request(json.loads(packet), fds)
                _send(sock, {"forked": _fork(request, fds)})
            except (ValueError, OSError) as exc:
                _send(sock, {"failed": str(exc)})
            finally:
                for fd in fds:
                    os.close(fd)
        _reap(sock)


class Fork(NamedTuple):
    """A request, checked: the `gother` command's arguments, the session's environment,
    the place of each fd handed with it, and whether its fd 0 is the session's terminal."""

    args: list[str]
    env: dict[str, str]
    places: list[int]
    tty: bool


def _request(request: Any, fds: list[int]) -> Fork:
    """`request` (decoded JSON) checked: ValueError unless it gives the client's arguments
    with one place per fd."""
    if not isinstance(request, dict):
        raise ValueError("a request is an object")
    args, env, places = request.get("args"), request.get("env"), request.get("fds")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("args (the gother command's) are strings")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise ValueError("env maps strings to strings")
    if not isinstance(places, list) or len(places) != len(fds):
        raise ValueError(f"{len(fds)} fds handed, {places!r} places for them")
    if not all(isinstance(p, int) and 0 <= p < 1024 for p in places):
        raise ValueError("an fd's place is a number under 1024")
    return Fork(args, env, places, bool(request.get("tty")))


def _send(sock: socket.socket, message: Report) -> None:
    sock.send(json.dumps(message).encode())


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(sock, {"ended": pid, "code": os.waitstatus_to_exitcode(status)})


def _fork(request: Fork, fds: list[int]) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 70  # EX_SOFTWARE: the child could not become a client
    try:
        code = _become_client(request, fds)
    except SystemExit as exc:  # the client's argparse, or its own exit
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()  # the client's own (its errors pipe tells the player)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


def _become_client(request: Fork, fds: list[int]) -> int:
    """In the child: the session's fds in their places and no other, its terminal, its
    environment; then the client's main, and its exit code."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    _place(dict(zip(request.places, fds, strict=True)))
    if request.tty:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    _end_with_parent()  # its door here is the zygote, which ends with the real door
    # What a session sets (TERM, COLORTERM, LANG, XDG_STATE_HOME) is read as the client
    # runs; textual.constants reads its TEXTUAL_* at import, so it reads them again (the
    # web door's driver and colours; the few names other modules took from it at import,
    # TEXTUAL_FPS among them, are the door's, as in a fresh client at that door)
    os.environ.clear()
    os.environ.update(request.env)
    import textual.constants

    importlib.reload(textual.constants)
    _fresh_stdio(request.tty)
    sys.argv = ["gother", *request.args]
    from gother_tui.cli import main

    return main(sys.argv[1:])


def _place(wanted: dict[int, int]) -> None:
    """Each fd at its place (place → fd), every other one closed: the zygote's socket,
    its wakeup pipe, anything at all of another session's."""
    above = max(wanted, default=2) + 1
    moved = {place: fcntl.fcntl(fd, fcntl.F_DUPFD, above) for place, fd in wanted.items()}
    for place, fd in moved.items():
        os.dup2(fd, place)
    start = 0
    for place in sorted(wanted):
        if start < place:  # closerange(n, n) would close from n to the very last one
            os.closerange(start, place)
        start = place + 1
    os.closerange(start, os.sysconf("SC_OPEN_MAX"))


def _fresh_stdio(tty: bool) -> None:
    """sys.std* and sys.__std*__ (Textual draws on sys.__stderr__) on fds 0-2, in UTF-8, as
    a fresh interpreter makes them: the zygote's were opened on the door's log, in its
    locale."""
    line = 1 if tty else -1
    streams = {
        "stdin": open(0, encoding="utf-8", closefd=False),  # noqa: SIM115
        "stdout": open(1, "w", buffering=line, encoding="utf-8", closefd=False),  # noqa: SIM115
        "stderr": open(  # noqa: SIM115
            2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False
        ),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # typeshed calls these final: a fork renews them


def _end_with_parent() -> None:
    """Killed when the process that started this one ends (the door's orphan rule,
    server/doors/orphans.py, said again here: the client imports nothing of a door)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m gother_tui.zygote")
    parser.add_argument("--socket-fd", type=int, required=True, help="from its door")
    args = parser.parse_args()
    _end_with_parent()  # and a door gone before that closed its end: serve returns
    sock = socket.socket(fileno=args.socket_fd)
    sock.set_inheritable(False)
    warm()
    if threading.active_count() != 1:  # a fork keeps only the thread that forks
        sys.exit(f"a zygote forks from one thread; warming started {threading.enumerate()}")
    serve(sock, offer_pages())
