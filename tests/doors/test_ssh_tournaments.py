"""A tournament night through the SSH door (issue 29 §5): a player who comes in by ssh hears
which tournaments are open, in the full-screen client and in the plain line mode, so the
host reads no id out loud. On 127.0.0.1 free ports, a real server and its door."""

from __future__ import annotations

import re

import pytest

from tests.kits.netkit import Client
from tests.kits.sshkit import close, open_session, read_until
from tests.kits.tournamentkit import LEAVE, NIGHT

OPEN = re.compile(r"Tournament open: Crypt Cup \(registering, 1 player\)")


@pytest.fixture
async def night(url: str):
    """A tournament its creator plays in, registering."""
    host = await Client.connect(url, "Host")
    made = await host.request(
        "tournament_create", name="Crypt Cup", rounds=2, seats=4, password=LEAVE, play=True
    )
    assert made["t"] == "tournament" and made["players"] == ["Host"], made
    yield made
    await host.close()


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_the_ssh_doors_lobby_says_which_tournament_is_open(make_door, keys, tmp_path, night):
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    conn, process = await open_session(door.port, keys["good"])
    try:
        text = await read_until(process, OPEN)
        assert "t shows it" in text
    finally:
        await close(conn, process)


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_the_ssh_doors_plain_mode_lists_them_with_their_ids(make_door, keys, tmp_path, night):
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    conn, process = await open_session(door.port, keys["good"], command="plain")
    try:
        await read_until(process, OPEN)
        process.stdin.write(b"tournament\n")
        await read_until(process, re.compile(rf"Crypt Cup \({night['id']}\): registering"))
    finally:
        await close(conn, process)
