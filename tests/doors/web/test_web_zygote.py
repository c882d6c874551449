"""The web door's zygote (server/doors/zygote.py): a tab's client forked by it, through pipes,
with the web driver (its TEXTUAL_* environment read again after the fork), reaching the
lobby; two tabs, two children holding none of each other's descriptors; a door without
a zygote starting fresh processes."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.doors.web.doorkit import (
    TIMEOUT,
    alive,
    browser,
    children,
    clients_of_this_test,
    open_tab,
    read_screen,
    web_door,
)
from tests.doors.web.test_web_door import NAME_SCREEN
from tests.kits.poll import until

pytestmark = pytest.mark.slow


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def open_files(pid: int) -> set[str]:
    """What the process's descriptors are, but epolls (an epoll's name is no one's)."""
    links = {str(fd.readlink()) for fd in Path(f"/proc/{pid}/fd").iterdir()}
    return {link for link in links if not link.startswith("anon_inode:")}


async def test_a_tab_s_client_is_forked_by_the_zygote_and_reaches_the_lobby(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab, browser(door) as other:
        assert door.zygote is not None
        await asyncio.wait_for(door.zygote.ready.wait(), TIMEOUT)
        zygote = door.zygote.pid
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        pid = session.process.pid
        assert pid is not None and parent(pid) == zygote and pid in clients_of_this_test()
        await ws.send_str(json.dumps(["stdin", "Vlad\r"]))
        await read_screen(ws, r"Vlad \(join\)")  # the lobby, drawn by the web driver
        second = await open_tab(other, door)
        await read_screen(second, NAME_SCREEN)
        (more,) = [s.process.pid for s in door.live if s.process.pid != pid]
        assert more is not None and parent(more) == zygote
        pipes = {t for t in open_files(pid) if t.startswith("pipe:")}
        assert not pipes & open_files(more)  # the other tab's stdin, stdout, stderr, claim
        await ws.close()
        await until("the client to end", lambda: not alive(pid))
        await second.close()
        await until("the other to end", lambda: not children(zygote))


async def test_a_door_without_a_zygote_starts_fresh_clients(tmp_path):
    async with web_door(tmp_path, zygote=False) as door, browser(door) as tab:
        assert door.zygote is None
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        assert parent(session.process.pid) == os.getpid()
        await ws.close()
