"""The SSH door's `plain` exec request (`ssh -p PORT Raven@HOST plain`): no terminal asked
for, and the same plain client answers on the channel, connected to this server as the SSH
user: the lobby, a table made there, a move played from its numbered options, quit."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from gother_tui.core.identity import file_for
from protocol.constants import SSH_TOKEN_ENV
from server.doors.ssh import SshFrontDoor, SshOptions, state_dir
from server.edge.app import GotherServer

pytestmark = pytest.mark.slow

TIMEOUT = 60.0  # a cold client start on a busy core


@pytest.fixture
async def front_door(server: GotherServer, tmp_path: Path) -> AsyncIterator[SshFrontDoor]:
    options = SshOptions(
        port=0, host_key=tmp_path / "ssh_host_key", data_dir=tmp_path / "data", open_access=True
    )
    door = SshFrontDoor(options, "127.0.0.1", f"ws://127.0.0.1:{server.port}", server.door_key)
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


async def plain_session(
    port: int, key: asyncssh.SSHKey | None, password: str | None = None, **process: Any
) -> tuple[asyncssh.SSHClientConnection, Channel]:
    """A `plain` session logged in with `key`, or else with `password`; `process` adds to
    create_process's arguments (`env`, `stderr`)."""
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="Raven", client_keys=[key] if key else None,
        password=password, known_hosts=None, agent_path=None, config=[],
        preferred_auth="publickey" if key else "password",
    )  # fmt: skip
    return conn, Channel(await conn.create_process("plain", encoding=None, **process))


async def test_the_same_ssh_key_comes_back_to_its_seat_without_its_tokens(front_door):
    """The door's folder for a key keeps that person's identity key: a later login with the
    same SSH key proves the same identity, so the seat comes back even with no token kept."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn, channel = await plain_session(front_door.port, key)
    try:
        channel.type("create 3")
        seated = await channel.until(r"^You sit at Raven's table \(table (\w+)\), seat 1 of 3\.$")
        await channel.until(r"^Round 1: your turn\.$")
        channel.type("quit")
        await channel.until(r"^Goodbye\.$")
    finally:
        conn.close()
        await conn.wait_closed()
    folder = state_dir(front_door.options.data_dir, key.get_fingerprint()) / "gother"
    (folder / "seats.json").unlink()  # no token left: only the identity key
    assert (folder / file_for("Raven")).stat().st_mode & 0o077 == 0

    conn, channel = await plain_session(front_door.port, key)
    try:
        back = await channel.until(r"^You sit at Raven's table \(table (\w+)\), seat 1 of 3\.$")
        assert back[1] == seated[1]
        await channel.until(r"^Game 1 is under way\.")
        channel.type("quit")
        await channel.until(r"^Goodbye\.$")
        assert "token" not in channel.seen and "Traceback" not in channel.seen
    finally:
        conn.close()
        await conn.wait_closed()


async def test_a_password_login_with_no_key_comes_back_as_itself_by_its_token(server, tmp_path):
    """A password login whose client has no key is given a token once, said once by the
    client: sent back, it is the same person, back in its seat under its name; a login
    without it is someone else, with a seat of its own (sitting owns no name: a game played
    to its end does)."""
    options = SshOptions(
        port=0, host_key=tmp_path / "ssh_host_key", data_dir=tmp_path / "data", password="pw"
    )
    door = SshFrontDoor(options, "127.0.0.1", f"ws://127.0.0.1:{server.port}", server.door_key)
    await door.start()
    given = r"^Your ssh client offered no key, so this door knows you by a token: ([\w-]{24})\. "
    try:
        conn, channel = await plain_session(door.port, None, password="pw", stderr=asyncssh.STDOUT)
        try:
            token = (await channel.until(given))[1]
            assert f"SetEnv={SSH_TOKEN_ENV}={token} " in channel.seen  # with how to send it back
            channel.type("create 3")
            seated = await channel.until(
                r"^You sit at Raven's table \(table (\w+)\), seat 1 of 3\.$"
            )
            channel.type("quit")
            await channel.until(r"^Goodbye\.$")
        finally:
            conn.close()
            await conn.wait_closed()

        conn, channel = await plain_session(door.port, None, password="pw", stderr=asyncssh.STDOUT)
        try:
            assert (await channel.until(given))[1] != token  # someone new
            channel.type("create 3")
            other = await channel.until(
                r"^You sit at Raven's table \(table (\w+)\), seat 1 of 3\.$"
            )
            assert other[1] != seated[1]  # not the first one's seat: a table of its own
            assert channel.seen.count("knows you by a token") == 1  # said once
            channel.type("quit")
            await channel.until(r"^Goodbye\.$")
        finally:
            conn.close()
            await conn.wait_closed()

        conn, channel = await plain_session(
            door.port, None, password="pw", stderr=asyncssh.STDOUT, env={SSH_TOKEN_ENV: token}
        )
        try:
            back = await channel.until(r"^You sit at Raven's table \(table (\w+)\), seat 1 of 3\.$")
            assert back[1] == seated[1]
            channel.type("quit")
            await channel.until(r"^Goodbye\.$")
            assert SSH_TOKEN_ENV not in channel.seen  # given once, and this player kept it
        finally:
            conn.close()
            await conn.wait_closed()
    finally:
        await door.close()
