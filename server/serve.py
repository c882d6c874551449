"""`gother serve`: the game server and, in processes of their own, the doors in front of it.

The game server (server/edge/) knows nothing of the doors: a door is a client of it like any
other, with its players' signed addresses. This module starts both, in that order, keeps the
doors running (server/doors/supervisor.py), and stops them before the server goes down.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Sequence

from server.doors.door import own_url, supervised
from server.doors.spec import DoorOptions, DoorSpec
from server.edge.announce import announce
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.pauses import tune_collector
from server.edge.tls import certificate_fingerprint

log = logging.getLogger("gother.server")


async def run(
    config: ServerConfig,
    doors: Sequence[DoorOptions] = (),
    ready: Callable[[GotherServer], None] | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, with a door for each of `doors`' options; then stop
    the doors, close connections (1012) and flush the database."""
    server = GotherServer(config)
    await server.start()
    tune_collector()  # its full collections rarer, what it holds now out of their way
    server.searches.spawn_all()  # a host's first hint need not wait for a worker to start
    # each door in a process of its own, kept running: whatever befalls it stays there
    kept = [supervised(spec) for spec in door_specs(config, server, doors)]
    for door in kept:
        door.run()
    try:
        announcer = await announce(config.host, server.port, bool(config.certfile), config.announce)
    except OSError as exc:  # no multicast on this interface…: serve anyway
        log.warning("cannot announce on the LAN: %s", exc)
        announcer = None
    if ready is not None:
        ready(server)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        if announcer is not None:
            await announcer.close()
        await asyncio.gather(*(door.stop() for door in kept))
        await server.close()


def door_specs(
    config: ServerConfig,
    server: GotherServer,
    doors: Sequence[DoorOptions],
) -> list[DoorSpec]:
    """The doors asked for, in front of `server`: they dial it where it listens, and trust
    exactly its own certificate."""
    pin = certificate_fingerprint(config.certfile) if config.certfile else None
    url = own_url(config.host, server.port, config.certfile is not None)
    return [
        DoorSpec(
            options,
            config.host,
            url,
            server.door_key.text,
            config.password,
            pin,
            config.certfile,
            config.keyfile,
        )
        for options in doors
    ]
