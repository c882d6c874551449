"""Who an SSH login is (server/doors/ssh_person.py), through a real SSH door on a real server,
by an asyncssh client: with the password, the key the client proved names the player; a
client with no key is given a token, once, and named by it when it sends it back. A player
who quits and connects the same way again is back in their seat, under their name.
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh
import pytest

from server.doors.ssh import SshFrontDoor
from server.doors.ssh_person import TOKEN_ENV, state_dir
from server.tables.table import Table
from tests.kits.netkit import Client
from tests.kits.sshkit import close, open_session, read_to_end, read_until

PASSWORD = "crypt-door"
LOBBY = re.compile(r"(?s)(?=.*Keyed)(?=.*Enter joins)")  # the table listed, Enter to join it
AT_TABLE = re.compile(r"Your hand")
TOKEN = re.compile(rf"{TOKEN_ENV}=([A-Za-z0-9_-]+)")


async def table_for_one(url: str) -> str:
    """A table with two bots and one free seat: whoever joins it starts the game."""
    host = await Client.connect(url, "Host")
    created = await host.request("create", name="Keyed", seats=3, bots=2)
    await host.close()
    return str(created["table"])


def the_person(table: Table) -> tuple[int, str, str | None]:
    """The table's one human seat: its number, name and identity."""
    people = [(i, s.name, s.identity) for i, s in enumerate(table.seats) if s and not s.bot_kind]
    assert len(people) == 1, people
    return people[0]


async def sit(door: SshFrontDoor, key: asyncssh.SSHKey | None, **login) -> str:
    """Log in, join the table from the lobby, and quit once the hand is dealt; the text seen."""
    conn, process = await open_session(door.port, key, stderr=asyncssh.STDOUT, **login)
    try:
        text = await read_until(process, LOBBY)
        process.stdin.write(b"\r")
        return text + await read_until(process, AT_TABLE)
    finally:
        await close(conn, process)


async def come_back(door: SshFrontDoor, key: asyncssh.SSHKey | None, **login) -> str:
    """Log in again: the dealt table, with no step of the player's; the text seen."""
    conn, process = await open_session(door.port, key, stderr=asyncssh.STDOUT, **login)
    try:
        return await read_until(process, AT_TABLE)
    finally:
        await close(conn, process)


@pytest.mark.slow
async def test_with_the_password_the_key_the_client_proved_names_the_player(
    make_door, server, url, keys
):
    """The password lets "bad" (a key no file lists) in; the key names the person, so a
    player who quits and logs in the same way is back in their seat, under their name."""
    door = await make_door(password=PASSWORD)
    table_id = await table_for_one(url)
    await sit(door, keys["bad"], password=PASSWORD)
    table = server.lobby.tables[table_id]
    seat, name, identity = the_person(table)
    assert identity is not None and name == "Raven"
    assert state_dir(door.options.data_dir, keys["bad"].get_fingerprint()).is_dir()

    text = await come_back(door, keys["bad"], password=PASSWORD)
    assert "names you by a token" not in text  # a key needs no token
    assert the_person(table) == (seat, "Raven", identity)


@pytest.mark.slow
async def test_password_players_with_no_key_are_each_named_by_the_token_given_them(
    make_door, server, url
):
    door = await make_door(password=PASSWORD)
    table_id = await table_for_one(url)
    first = await sit(door, None, password=PASSWORD)
    given = TOKEN.findall(first)
    assert given and len(set(given)) == 1, first  # one token, told with how to send it back
    token = given[0]
    assert f"SetEnv={TOKEN_ENV}={token}" in first
    table = server.lobby.tables[table_id]
    seated = the_person(table)

    # another player with the password and no key is someone else: a new token, the lobby
    conn, process = await open_session(
        door.port, None, user="Rook", password=PASSWORD, stderr=asyncssh.STDOUT
    )
    try:
        other = await read_until(process, LOBBY)
    finally:
        await close(conn, process)
    assert TOKEN.findall(other) and token not in other, other
    assert the_person(table) == seated  # the seat is still the first player's

    text = await come_back(door, None, password=PASSWORD, env={TOKEN_ENV: token})
    assert "names you by a token" not in text  # given once: this player kept it
    assert the_person(table) == seated


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("my-own-token", "is not a token this door gives"),
        ("A" * 24, "this door gave no such GOTHER_SSH_TOKEN"),
    ],
)
async def test_a_token_the_door_never_gave_is_refused_and_makes_nothing(
    make_door, tmp_path: Path, token, said
):
    door = await make_door(password=PASSWORD)
    players = tmp_path / "data" / "ssh-players"
    before = sorted(players.iterdir())
    conn, process = await open_session(
        door.port, None, password=PASSWORD, env={TOKEN_ENV: token}, stderr=asyncssh.STDOUT
    )
    try:
        text = await read_to_end(process)
    finally:
        await close(conn, process)
    assert said in text, text
    assert sorted(players.iterdir()) == before
