"""`gother serve --ssh`: the SSH front door (server/ssh.py), on 127.0.0.1 free ports.

An asyncssh client asks for an 80x24 xterm-256color pty and reads the channel until the
client's screen appears; a key not in authorized_keys is refused; a key's fingerprint
names the state folder whose saved seat token puts the player back in their seat.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from gother_tui.cli import build_parser
from gother_tui.seat_store import SeatStore
from server.app import GotherServer
from server.ssh import SshFrontDoor, SshOptions, player_name, state_dir
from tests.server.netkit import Client

SCREEN_TIMEOUT = 60.0  # a cold client start (Python + Textual) on a busy CI core
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, asyncssh.SSHKey]:
    made = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("good", "bad")}
    (tmp_path / "authorized_keys").write_bytes(made["good"].export_public_key())
    return made


@pytest.fixture
async def front_door(server: GotherServer, tmp_path: Path, keys) -> AsyncIterator[SshFrontDoor]:
    options = SshOptions(
        port=0,
        host_key=tmp_path / "data" / "ssh_host_key",
        data_dir=tmp_path / "data",
        authorized_keys=tmp_path / "authorized_keys",
    )
    door = SshFrontDoor(options, "127.0.0.1", server.port)
    await door.start()
    yield door
    await door.close()


async def log_in(door: SshFrontDoor, key: asyncssh.SSHKey, user: str = "Raven"):
    return await asyncssh.connect(
        "127.0.0.1",
        door.port,
        username=user,
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=[],
        preferred_auth="publickey",
    )


async def open_session(door: SshFrontDoor, key: asyncssh.SSHKey, user: str = "Raven"):
    conn = await log_in(door, key, user)
    process = await conn.create_process(
        term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    return conn, process


async def read_until(process, pattern: re.Pattern[str]) -> str:
    """Channel output, escape sequences removed, until `pattern` shows up in it."""
    seen = b""
    deadline = time.monotonic() + SCREEN_TIMEOUT
    while not pattern.search(ANSI.sub(b"", seen).decode(errors="replace")):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {pattern.pattern!r} on screen; saw:\n{seen[-2000:]!r}")
        try:
            chunk = await asyncio.wait_for(process.stdout.read(65536), left)
        except TimeoutError:
            continue
        if not chunk:
            raise AssertionError(f"session ended before {pattern.pattern!r}:\n{seen[-2000:]!r}")
        seen += chunk
    return ANSI.sub(b"", seen).decode(errors="replace")


async def close(conn, process) -> None:
    process.close()
    conn.close()
    await conn.wait_closed()


async def test_an_authorized_key_lands_in_the_client_lobby(front_door, keys):
    conn, process = await open_session(front_door, keys["good"])
    try:
        text = await read_until(process, re.compile(r"(?i)lobby|tables"))
        assert "Traceback" not in text
    finally:
        await close(conn, process)


async def test_a_key_not_in_authorized_keys_is_refused(front_door, keys):
    with pytest.raises(asyncssh.PermissionDenied):
        await open_session(front_door, keys["bad"])


@pytest.mark.parametrize(("allowed", "let_in"), [("127.0.0.1", True), ("10.0.0.0/8", False)])
async def test_a_keys_from_option_is_matched_on_the_clients_address(
    front_door, keys, tmp_path, allowed, let_in
):
    """authorized_keys `from="…"` patterns see the client's address (once they saw its port
    as the address, and every login with such a key failed)."""
    entry = f'from="{allowed}" '.encode() + keys["good"].export_public_key()
    (tmp_path / "authorized_keys").write_bytes(entry)  # read afresh for each connection
    if not let_in:
        with pytest.raises(asyncssh.PermissionDenied):
            await log_in(front_door, keys["good"])
        return
    conn = await log_in(front_door, keys["good"])
    conn.close()
    await conn.wait_closed()


async def test_the_host_key_is_made_once_and_kept(front_door, server, tmp_path, keys):
    key_file = tmp_path / "data" / "ssh_host_key"
    first = key_file.read_bytes()
    assert key_file.stat().st_mode & 0o077 == 0  # private to the server's user
    again = SshFrontDoor(front_door.options, "127.0.0.1", server.port)
    await again.start()
    try:
        assert key_file.read_bytes() == first
        conn = await asyncssh.connect(
            "127.0.0.1", again.port, username="x", client_keys=[keys["good"]],
            known_hosts=None, agent_path=None, config=[],
        )  # fmt: skip
        seen = conn.get_server_host_key()
        conn.close()
        assert seen is not None
        assert seen.public_data == asyncssh.read_private_key(key_file).public_data
    finally:
        await again.close()


async def test_the_key_s_saved_seat_is_resumed(front_door, server, url, keys):
    host = await Client.connect(url, "Host")
    created = await host.request("create", name="Keyed", seats=3, bots=2)
    table = created["table"]
    joined = await host.request("join", table=table)
    assert joined["t"] == "joined"
    await host.close()  # the seat is now away, resumable with its token
    fingerprint = keys["good"].get_fingerprint()
    folder = state_dir(front_door.options.data_dir, fingerprint)
    SeatStore(folder / "gother" / "seats.json").save(url, table, joined["token"], "Raven")

    conn, process = await open_session(front_door, keys["good"])
    try:
        text = await read_until(process, re.compile(r"Keyed.*Round|Your hand"))
        assert "Keyed" in text  # straight back at the table, not in the lobby
    finally:
        await close(conn, process)


def test_state_folders_follow_the_key_and_names_are_tidied(tmp_path):
    a = state_dir(tmp_path, "SHA256:aaaa")
    assert a == state_dir(tmp_path, "SHA256:aaaa")
    assert a != state_dir(tmp_path, "SHA256:bbbb")
    assert a.parent == tmp_path / "ssh-players"
    assert player_name("Ra\x1bven") == "Raven"
    assert player_name("") == "Player"
    assert len(player_name("x" * 40)) == 24


def test_serve_takes_the_ssh_options():
    args = build_parser().parse_args(
        ["serve", "--ssh", "2222", "--ssh-authorized-keys", "keys", "--ssh-host-key", "hk"]
    )
    assert (args.ssh, args.ssh_authorized_keys, args.ssh_host_key) == (2222, "keys", "hk")
