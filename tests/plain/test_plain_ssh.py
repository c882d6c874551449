"""The SSH door's `plain` exec request (`ssh -p PORT Raven@HOST plain`): no terminal asked
for, and the same plain client answers on the channel, connected to this server as the SSH
user: the lobby, a table made there, a move played from its numbered options, quit."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from server.app import GotherServer
from server.ssh import SshFrontDoor, SshOptions

TIMEOUT = 60.0  # a cold client start on a busy core


@pytest.fixture
async def front_door(server: GotherServer, tmp_path: Path) -> AsyncIterator[SshFrontDoor]:
    options = SshOptions(
        port=0, host_key=tmp_path / "ssh_host_key", data_dir=tmp_path / "data", open_access=True
    )
    door = SshFrontDoor(options, "127.0.0.1", server.port, server.door_key)
    await door.start()
    yield door
    await door.close()


class Channel:
    def __init__(self, process: asyncssh.SSHClientProcess[bytes]) -> None:
        self.process = process
        self.seen = ""
        self.read_to = 0

    async def until(self, pattern: str) -> re.Match[str]:
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + TIMEOUT
        while not (found := regex.search(self.seen, self.read_to)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.seen[-2000:]}"
            try:
                chunk = await asyncio.wait_for(self.process.stdout.read(65536), left)
            except TimeoutError:
                continue
            assert chunk, f"the channel closed before {pattern!r}:\n{self.seen[-2000:]}"
            self.seen += chunk.decode("utf-8", "replace")
        self.read_to = found.end()
        return found

    def type(self, line: str) -> None:
        self.process.stdin.write(line.encode() + b"\n")


async def test_the_plain_exec_request_reaches_the_plain_client(front_door, server):
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn = await asyncssh.connect(
        "127.0.0.1", front_door.port, username="Raven", client_keys=[key],
        known_hosts=None, agent_path=None, config=[], preferred_auth="publickey",
    )  # fmt: skip
    try:
        process = await conn.create_process("plain", encoding=None)  # no pty asked for
        channel = Channel(process)
        url = f"ws://127.0.0.1:{server.port}"
        await channel.until(rf"^Connected to {re.escape(url)} \(gother [^)]+\) as Raven\.$")
        await channel.until(r"^You are in the lobby of ")
        await channel.until(r"^No tables on this server yet: type create to make one\.$")
        channel.type("create 3")
        await channel.until(r"^You sit at Raven's table \(table \w+\), seat 1 of 3\.$")
        await channel.until(r"^Round 1: your turn\.$")  # seat 1 deals: it plays first
        await channel.until(r"^Choose 1")
        channel.type("1")
        await channel.until(r"^(Draw \d+|Over your hand limit)")  # the placement's next step
        channel.type("quit")
        await channel.until(r"^Goodbye\.$")
        completed = await asyncio.wait_for(process.wait(), TIMEOUT)
        assert completed.exit_status == 0
        assert "\x1b" not in channel.seen and "Traceback" not in channel.seen
    finally:
        conn.close()
        await conn.wait_closed()


async def test_the_server_counts_an_ssh_player_at_the_players_own_address(front_door, server):
    """The door dials the server from 127.0.0.1, and its claim says where the player is: a
    player connecting from 127.0.0.9 is at 127.0.0.9 for the server, tables and all."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn = await asyncssh.connect(
        "127.0.0.1", front_door.port, username="Raven", client_keys=[key], known_hosts=None,
        agent_path=None, config=[], preferred_auth="publickey", local_addr=("127.0.0.9", 0),
    )  # fmt: skip
    try:
        process = await conn.create_process("plain", encoding=None)
        channel = Channel(process)
        await channel.until(r"^No tables on this server yet: type create to make one\.$")
        (player,) = [c for c in server.connections if c.name == "Raven"]
        assert player.claimed == "127.0.0.9" and player.socket_address == "127.0.0.1"
        channel.type("create 3")
        await channel.until(r"^You sit at Raven's table \(table \w+\), seat 1 of 3\.$")
        assert [a for _, a in server.lobby.creators.values()] == ["127.0.0.9"]
        channel.type("quit")
        await channel.until(r"^Goodbye\.$")
    finally:
        conn.close()
        await conn.wait_closed()
