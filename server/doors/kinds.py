"""The doors, by kind: what `gother serve` and `gother door` know of each. An entry says
how the command line's fields become the door's options, and how a door process makes
the door from its `DoorSpec`; each door's own module (its options, its door, loaded only
by the process that runs it) does the rest. A third door is its module and one entry
here, and one on the command line's side (gother_tui/cli/doors.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.doors.spec import DoorOptions, DoorSpec
from server.edge.doorkey import DoorKey


class Door(Protocol):
    """A door as its process runs it: started, then closed with its sessions."""

    ws_password: str | None  # the game server's own, handed to each client

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    @property
    def port(self) -> int: ...


@dataclass(frozen=True)
class Kind:
    options: Callable[[dict[str, Any]], DoorOptions]  # from the command line's fields
    door: Callable[[DoorSpec, DoorKey], Door]  # in the door's own process


def _ssh_options(fields: dict[str, Any]) -> DoorOptions:
    from server.doors.ssh import SshLimits, SshOptions

    return SshOptions(**{**fields, "limits": SshLimits(**fields["limits"])})


def _ssh_door(spec: DoorSpec, key: DoorKey) -> Door:
    from server.doors.ssh import SshFrontDoor, SshOptions

    assert isinstance(spec.options, SshOptions)
    return SshFrontDoor(spec.options, spec.host, spec.server, key, spec.tls_pin)


def _web_options(fields: dict[str, Any]) -> DoorOptions:
    from server.doors.web.door import WebOptions  # the [web] extra's

    return WebOptions(**fields)


def _web_door(spec: DoorSpec, key: DoorKey) -> Door:
    from server.doors.web.door import WebDoor, WebOptions
    from server.edge.tls import server_context

    assert isinstance(spec.options, WebOptions)
    tls = server_context(spec.certfile, spec.keyfile) if spec.certfile else None
    return WebDoor(spec.options, spec.host, spec.server, key, tls, spec.tls_pin)


KINDS: dict[str, Kind] = {
    "ssh": Kind(_ssh_options, _ssh_door),
    "web": Kind(_web_options, _web_door),
}
