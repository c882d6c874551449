"""`gother serve --ssh`: the SSH front door (server/doors/ssh.py), on 127.0.0.1 free ports.

An asyncssh client asks for an 80x24 xterm-256color pty and reads the channel until the
client's screen appears; a key not in authorized_keys is refused; a set password is
required of every key the file does not list; open access is only ever asked for; a key's
fingerprint names the state folder whose saved seat token puts the player back in their
seat.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

import asyncssh
import pytest

from gother_tui.cli import build_parser
from gother_tui.core.seat_store import SeatStore
from server.doors.ssh import SshFrontDoor, SshOptions, player_name, state_dir
from tests.kits.netkit import Client
from tests.kits.sshkit import close, log_in, open_session, read_until

PASSWORD = "crypt-door"


@pytest.fixture
async def front_door(make_door, tmp_path: Path, keys) -> SshFrontDoor:
    door: SshFrontDoor = await make_door(authorized_keys=tmp_path / "authorized_keys")
    return door


@pytest.mark.slow
async def test_an_authorized_key_lands_in_the_client_lobby(front_door, keys):
    conn, process = await open_session(front_door.port, keys["good"])
    try:
        text = await read_until(process, re.compile(r"(?i)lobby|tables"))
        assert "Traceback" not in text
    finally:
        await close(conn, process)


async def test_a_key_not_in_authorized_keys_is_refused(front_door, keys):
    with pytest.raises(asyncssh.PermissionDenied):
        await open_session(front_door.port, keys["bad"])


@pytest.mark.slow
async def test_with_a_password_a_new_key_without_it_is_refused(make_door, keys):
    """Once a password is set it is required: a key no file lists proves nothing (a random
    new key was once let in with no password at all)."""
    door = await make_door(password=PASSWORD)
    with pytest.raises(asyncssh.PermissionDenied):
        await log_in(door.port, keys["bad"])
    with pytest.raises(asyncssh.PermissionDenied):
        await log_in(door.port, keys["bad"], password="not-it")
    conn, process = await open_session(door.port, keys["bad"], password=PASSWORD)
    try:
        await read_until(process, re.compile(r"(?i)tables yet"))
    finally:
        await close(conn, process)


async def test_with_a_password_only_listed_keys_skip_it(make_door, keys, tmp_path):
    door = await make_door(password=PASSWORD, authorized_keys=tmp_path / "authorized_keys")
    listed = await log_in(door.port, keys["good"])  # no password asked
    listed.close()
    await listed.wait_closed()
    with pytest.raises(asyncssh.PermissionDenied):
        await log_in(door.port, keys["bad"])
    unlisted = await log_in(door.port, keys["bad"], password=PASSWORD)
    unlisted.close()
    await unlisted.wait_closed()


async def test_open_access_lets_any_key_in_only_when_asked_for(make_door, keys, tmp_path):
    door = await make_door(open_access=True)
    conn = await log_in(door.port, keys["bad"])
    conn.close()
    await conn.wait_closed()
    with pytest.raises(ValueError, match="needs keys, a password or open access"):
        SshOptions(port=0, host_key=tmp_path / "k", data_dir=tmp_path)
    with pytest.raises(ValueError, match="lets anyone in"):
        SshOptions(port=0, host_key=tmp_path / "k", data_dir=tmp_path, open_access=True,
                   password=PASSWORD)  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "stated"),
    [
        ({"password": PASSWORD}, ["the password only (no key is let in without it)"]),
        ({"keys": True}, ["only keys in ", "authorized_keys"]),
        ({"keys": True, "password": PASSWORD}, ["keys in ", "authorized_keys, or the password"]),
        ({"open_access": True}, ["OPEN (--ssh-open): any SSH key is let in"]),
    ],
)
async def test_the_start_up_log_states_who_gets_in(make_door, tmp_path, caplog, fields, stated):
    if fields.pop("keys", False):
        fields["authorized_keys"] = tmp_path / "authorized_keys"
    with caplog.at_level(logging.INFO, logger="gother.ssh"):
        await make_door(**fields)
    assert re.search("access: " + ".*".join(map(re.escape, stated)), caplog.text), caplog.text
    assert PASSWORD not in caplog.text


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--ssh", "2222"], "--ssh needs an access rule"),
        (["--ssh", "2222", "--ssh-open", "--ssh-password", "x"], "--ssh-open lets in any key"),
        (["--ssh-open"], "need --ssh PORT"),
    ],
)
def test_serve_refuses_a_door_without_one_access_rule(argv, error, capsys):
    args = build_parser().parse_args(["serve", *argv])
    with pytest.raises(SystemExit):
        args.run(args, build_parser())
    assert error in capsys.readouterr().err


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
            await log_in(front_door.port, keys["good"])
        return
    conn = await log_in(front_door.port, keys["good"])
    conn.close()
    await conn.wait_closed()


async def test_the_host_key_is_made_once_and_kept(front_door, server, tmp_path, keys):
    key_file = tmp_path / "data" / "ssh_host_key"
    first = key_file.read_bytes()
    assert key_file.stat().st_mode & 0o077 == 0  # private to the server's user
    again = SshFrontDoor(
        front_door.options, "127.0.0.1", f"ws://127.0.0.1:{server.port}", server.door_key
    )
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


@pytest.mark.slow
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

    conn, process = await open_session(front_door.port, keys["good"])
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


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.slow
async def test_the_host_key_and_the_players_folders_are_private(make_door, keys, tmp_path):
    """Seat tokens are secrets: the players' folder and each key's folder are 0700 (an
    older server's 0755 folder is tightened), the host key 0600, whatever the umask."""
    players = tmp_path / "data" / "ssh-players"
    players.mkdir(parents=True)
    players.chmod(0o755)
    old = os.umask(0o022)
    try:
        door = await make_door(authorized_keys=tmp_path / "authorized_keys")
        conn, process = await open_session(door.port, keys["good"])
        try:
            await read_until(process, re.compile(r"(?i)tables yet"))
            folder = state_dir(door.options.data_dir, keys["good"].get_fingerprint())
            assert (mode(players), mode(folder)) == (0o700, 0o700)
            assert mode(door.options.host_key) == 0o600
        finally:
            await close(conn, process)
    finally:
        os.umask(old)
