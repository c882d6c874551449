import asyncio
import re

import pytest

from tests.kits.sshkit import close, open_session, read_until

LOBBY = re.compile(r"(?i)tables yet")


@pytest.mark.parametrize("delay", [0, 0.3, 0.6, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0])
async def test_race(make_door, tmp_path, keys, delay):
    door = await make_door(authorized_keys=tmp_path / "authorized_keys")
    await asyncio.sleep(delay)
    ready = door.zygote.ready.is_set()
    conn, process = await open_session(door.port, keys["good"])
    try:
        await read_until(process, LOBBY)
    finally:
        await close(conn, process)
    print("delay", delay, "ready before", ready)
