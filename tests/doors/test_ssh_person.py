"""Who an SSH login is (server/doors/ssh_person.py), through a real SSH door on a real server,
by an asyncssh client: with the password, the key the client proved names the player; a
client with no key is given a token, once, and named by it when it sends it back. A player
who quits and connects the same way again is back in their seat, under their name. The
token is on the client's own first screen, in its help, and a player who comes back
without it is told, at the refusal, what to do.
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh
import pytest

from protocol.constants import SSH_TOKEN_ENV
from server.doors.ssh import SshFrontDoor
from server.doors.ssh_person import state_dir
from server.tables.table import Table
from tests.kits.netkit import Client
from tests.kits.sshkit import close, open_session, read_to_end, read_until

PASSWORD = "crypt-door"
LOBBY = re.compile(r"(?s)(?=.*Keyed)(?=.*Enter joins)")  # the table listed, Enter to join it
AT_TABLE = re.compile(r"Your hand")
TOKEN = re.compile(rf"{SSH_TOKEN_ENV}=([A-Za-z0-9_-]+)")


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
    assert f"SetEnv={SSH_TOKEN_ENV}={token}" in first
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

    text = await come_back(door, None, password=PASSWORD, env={SSH_TOKEN_ENV: token})
    assert "names you by a token" not in text  # given once: this player kept it
    assert "knows you by a token" not in text
    assert the_person(table) == seated


@pytest.mark.slow
async def test_the_token_is_on_the_first_screen_and_back_without_it_the_refusal_says_how(
    make_door, server, url
):
    """The full-screen client shows the token the door gave on its first screen (the door's
    own line, on stderr, is only seen once the client has ended) and in its help; back
    without it, joining the old table is refused with what to do."""
    door = await make_door(password=PASSWORD)
    table_id = await table_for_one(url)
    conn, process = await open_session(door.port, None, password=PASSWORD)  # the screen alone
    try:
        lobby = await read_until(process, LOBBY)
        token = re.search(r"knows you by a token:\s+([\w-]{24})\.", lobby)
        assert token is not None, lobby
        assert f"SetEnv={SSH_TOKEN_ENV}={token[1]}" in lobby
        process.stdin.write(b"\r")
        await read_until(process, AT_TABLE)
        process.stdin.write(b"?")
        # the help screen may come in several writes: wait for the token under its heading
        helped = await read_until(process, re.compile(r"Coming back[\s\S]*" + token[1]))
        assert token[1] in helped.split("Coming back", 1)[-1]
    finally:
        await close(conn, process)
    table = server.lobby.tables[table_id]
    seated = the_person(table)

    conn, process = await open_session(door.port, None, password=PASSWORD)
    try:
        again = await read_until(process, LOBBY)
        assert token[1] not in again  # someone new to the door: another token
        process.stdin.write(b"\r")  # the old table, started without them
        # the lobby's status line ("If it was yours: …"), whole once the toast has gone
        await read_until(
            process, re.compile(rf"(?s)(?=.*yours:)(?=.*SetEnv={SSH_TOKEN_ENV}=TOKEN,)")
        )
    finally:
        await close(conn, process)
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
        door.port, None, password=PASSWORD, env={SSH_TOKEN_ENV: token}, stderr=asyncssh.STDOUT
    )
    try:
        text = await read_to_end(process)
    finally:
        await close(conn, process)
    assert said in text, text
    assert sorted(players.iterdir()) == before
