"""A real server on 127.0.0.1, port 0, in the test's own event loop; SSH doors on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.doors.ssh import SshFrontDoor, SshOptions
from server.edge.app import GotherServer
from server.edge.config import ServerConfig


@pytest.fixture
def config(tmp_path: Path, request: pytest.FixtureRequest) -> ServerConfig:
    """A server on a database file; a test overrides fields with `indirect`
    parametrization: @pytest.mark.parametrize("config", [{"rate": 5}], indirect=True)."""
    config = ServerConfig(
        host="127.0.0.1", port=0, db=str(tmp_path / "games.db"), bot_delay=0.0, grace=60.0
    )
    for key, value in getattr(request, "param", {}).items():
        setattr(config, key, value)
    return config


@pytest.fixture
async def server(config: ServerConfig) -> AsyncIterator[GotherServer]:
    srv = GotherServer(config)
    await srv.start()
    yield srv
    await srv.close()


@pytest.fixture
def url(server: GotherServer) -> str:
    return f"ws://127.0.0.1:{server.port}"


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, asyncssh.SSHKey]:
    """Two new SSH keys: "good" is in tmp_path/authorized_keys, "bad" is not."""
    made = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("good", "bad")}
    (tmp_path / "authorized_keys").write_bytes(made["good"].export_public_key())
    return made


@pytest.fixture
async def make_door(server: GotherServer, tmp_path: Path) -> AsyncIterator[Any]:
    """Start a door on the test's server with these SshOptions fields (data under
    tmp_path/data); every door started is closed at the end."""
    doors: list[SshFrontDoor] = []

    async def make(**fields: Any) -> SshFrontDoor:
        data = tmp_path / "data"
        options = SshOptions(port=0, host_key=data / "ssh_host_key", data_dir=data, **fields)
        door = SshFrontDoor(options, "127.0.0.1", f"ws://127.0.0.1:{server.port}", server.door_key)
        await door.start()
        doors.append(door)
        return door

    yield make
    for door in doors:
        await door.close()
