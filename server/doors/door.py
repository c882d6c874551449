"""The SSH and web doors as processes of their own, in front of any game server.

`gother serve --ssh/--web` starts each door as a child process (`python -m server.doors.door`)
and keeps it running (server/doors/supervisor.py); `gother door ssh|web --server URL` runs one
in the foreground, on this machine or another. Either way a door is told what it is by a
`DoorSpec` (server/doors/spec.py): which door, where it listens, the game server's URL, the
door key its players' claims are signed with, and its options. A child gets its spec, key
and passwords with it, through a pipe: nothing secret is on a command line (`ps`) or on disk.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import logging
import pickle
import signal
import ssl
import stat
import sys
from pathlib import Path
from urllib.parse import urlsplit

from protocol.fingerprint import fingerprint, parse_fingerprint
from server.doors.kinds import KINDS
from server.doors.spec import DoorSpec
from server.doors.supervisor import Supervised
from server.edge.doorkey import DoorKey
from server.edge.limits import AcceptLog, raise_descriptor_limit

log = logging.getLogger("gother.server")
LOOPBACK_FOR = {"", "0.0.0.0", "::", "localhost"}  # listen-everywhere hosts: dial 127.0.0.1


def own_url(host: str, port: int, tls: bool) -> str:
    """The URL a door on the server's machine dials (127.0.0.1 for a listen-everywhere host)."""
    dial = "127.0.0.1" if host in LOOPBACK_FOR else host
    return f"{'wss' if tls else 'ws'}://{dial}:{port}"


def supervised(spec: DoorSpec) -> Supervised:
    """The door of `spec` as a child process of this one, started anew when it ends."""
    from server.doors.ssh import pipe_holding

    def start() -> tuple[list[str], list[int]]:
        # A pickle from this process to its own child: nobody else writes this pipe.
        fd = pipe_holding(base64.b64encode(pickle.dumps(spec)).decode())
        argv = [sys.executable, "-m", "server.doors.door", "--spec-file", f"/dev/fd/{fd}"]
        return argv, [fd]

    return Supervised(spec.kind, start)


async def run_door(spec: DoorSpec, stop: asyncio.Event) -> None:
    """Serve the door of `spec` until `stop` is set; then close its sessions."""
    raise_descriptor_limit()  # a door alone (a child has the server's, raised already)
    # out of descriptors, one line a minute says so, not a traceback a failed accept
    asyncio.get_running_loop().set_exception_handler(AcceptLog())
    door = KINDS[spec.kind].door(spec, DoorKey.of_text(spec.key))
    door.ws_password = spec.server_password
    await door.start()
    try:
        await stop.wait()
    finally:
        await door.close()


class DoorUnreachable(Exception):
    """The game server a door stands in front of does not answer, or refuses the door."""


REACH_TIMEOUT = 10.0  # seconds a door alone waits for its game server's welcome at start
CHECK_ADDRESS = "127.0.0.1"  # where the door's own hello says it comes from: itself


def read_door_key(path: Path) -> str:
    """The door key in the file at `path`, as DoorKey.text; OSError or ValueError with the
    reason (no such file, readable by others, not a key)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ValueError(f"{path} is readable by others ({mode:o}): chmod 600 {path}")
    try:
        return DoorKey.of_text(path.read_text()).text
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


async def run_alone(spec: DoorSpec) -> None:
    """`gother door ssh|web`: the door of `spec` until SIGINT or SIGTERM, once its game
    server has welcomed it (DoorUnreachable otherwise: players would meet a door to
    nowhere, or to a server that refuses every one of them)."""
    await _welcomed(spec)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run_door(spec, stop)


async def _welcomed(spec: DoorSpec) -> None:
    """Say hello to the game server as the door's clients will, with a claim signed by its
    key and the server's password: DoorUnreachable with the reason unless welcomed."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
    from protocol.constants import DOOR_HEADER

    where = f"the game server at {spec.server}"
    context = _tls(spec)
    hello = {"t": "hello", "v": PROTOCOL_VERSION, "name": "Door", "rid": 1}
    if spec.server_password is not None:
        hello["password"] = spec.server_password
    try:
        async with asyncio.timeout(REACH_TIMEOUT):
            await _pinned(spec, context, where)  # before any claim is sent there
            claim = DoorKey.of_text(spec.key).claim(CHECK_ADDRESS)
            headers = {DOOR_HEADER: claim}
            async with connect(
                spec.server, ssl=context, max_size=MAX_FRAME, additional_headers=headers
            ) as ws:
                await ws.send(encode(hello))
                frame = await ws.recv()
    except (OSError, TimeoutError, WebSocketException) as exc:
        why = str(exc) or f"no answer in {REACH_TIMEOUT:g} s"
        raise DoorUnreachable(f"cannot reach {where}: {why}") from None
    reply = decode(frame) if isinstance(frame, bytes) else {}
    if reply.get("code") == "bad_door":
        raise DoorUnreachable(f"{where} does not know this door key: copy its --door-key-file")
    if reply.get("t") != "welcome":
        raise DoorUnreachable(f"{where} refused the door: {reply.get('message')}")


def _tls(spec: DoorSpec) -> ssl.SSLContext | None:
    """How the door's check dials a wss:// server: by CA, or taking any certificate whose
    fingerprint `_pinned` then compares with the pin (the clients dial it so)."""
    if urlsplit(spec.server).scheme != "wss":
        return None
    context = ssl.create_default_context()
    if spec.tls_pin is not None:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return context


async def _pinned(spec: DoorSpec, context: ssl.SSLContext | None, where: str) -> None:
    """The server answers at all, and shows the pinned certificate if there is a pin."""
    parts = urlsplit(spec.server)
    port = parts.port or (443 if context else 80)
    _, writer = await asyncio.open_connection(parts.hostname, port, ssl=context)
    try:
        tls = writer.get_extra_info("ssl_object")
        if spec.tls_pin is not None and tls is not None:
            seen = fingerprint(tls.getpeercert(binary_form=True))
            if seen != parse_fingerprint(spec.tls_pin):
                raise DoorUnreachable(f"{where} shows another certificate: {seen}")
    finally:
        writer.close()


async def _child(spec: DoorSpec) -> None:
    """A door started by the server: until SIGTERM, or until the server's end of stdin
    closes (the server is gone, even killed)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def orphaned() -> None:
        await reader.read()
        log.info("%s door: the game server is gone; stopping", spec.kind)
        stop.set()

    watch = asyncio.create_task(orphaned())
    try:
        await run_door(spec, stop)
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m server.doors.door")
    parser.add_argument("--spec-file", required=True, help="a pipe from `gother serve`")
    args = parser.parse_args()
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    with open(args.spec_file, "rb") as pipe:
        spec = pickle.loads(base64.b64decode(pipe.read()))
    try:
        asyncio.run(_child(spec))
    except OSError as exc:  # its port taken, its certificate unreadable…: the server retries
        log.error("%s door: %s", spec.kind, exc)
        sys.exit(1)


if __name__ == "__main__":
    main()
