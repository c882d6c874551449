"""Durable before acknowledged (Principle 6) on a real full disk: the database lives on
a small tmpfs this test mounts (as root), then a file fills the rest of it.

A move whose write fails is answered `store_failed` and changes nothing; everyone at the
table is told it stopped (view.table.stopped); it takes no move until a write lands again,
which the server finds out by itself; then the game goes on, bots' tables included, and the
database holds exactly the moves that were acknowledged, with no hole.
"""

from __future__ import annotations

import errno
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.store.sqlite import SqliteStore
from server.tables.export import game_record
from tests.kits.netkit import Client, close_all, first_legal_move
from tests.kits.playkit import newest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs, mounted here for this test and unmounted after it."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)])
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no byte left; returns it (delete it to free space)."""
    filler = disk / f"filler-{uuid.uuid4().hex}"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


async def start(db: Path) -> GotherServer:
    server = GotherServer(
        ServerConfig(host="127.0.0.1", port=0, db=str(db), bot_delay=0.0, grace=60.0)
    )
    await server.start()
    return server


def stopped(message: dict[str, Any]) -> bool:
    return message["view"]["table"].get("stopped") is not None


async def test_a_move_on_a_full_disk_changes_nothing_and_the_table_waits_for_space(small_disk):
    db = small_disk / "games.db"
    server = await start(db)
    url = f"ws://127.0.0.1:{server.port}"
    host = await Client.connect(url, "Host")
    table_id = (await host.request("create", name="Full", seats=3, bots=0))["table"]
    players = []
    for seat in range(3):
        player = await Client.connect(url, f"P{seat}")
        assert (await player.request("join", table=table_id, seat=seat))["t"] == "joined"
        players.append(player)
    table = server.lobby.tables[table_id]
    await newest(players[0], lambda m: m["view"]["phase"] != "lobby")
    acked = 0
    filler = fill(small_disk)
    # the WAL may still have room in pages it already holds: play until a write needs more
    for _ in range(400):
        assert table.game is not None
        seat = table.game.to_act()
        view = (await newest(players[seat], lambda m: m["view"]["legal"] is not None))["view"]
        moves_before = len(table.game.moves)
        reply = await players[seat].request("move", move=first_legal_move(view["legal"]))
        if reply["t"] == "state":
            acked += 1
            continue
        assert reply["t"] == "error" and reply["code"] == "store_failed", reply
        assert "nothing changed" in reply["message"]
        assert len(table.game.moves) == moves_before
        break
    else:
        pytest.fail("400 moves went through on a full disk")
    # everyone at the table is told that it stopped, and why
    for player in players:
        told = await newest(player, stopped)
        assert "cannot save" in told["view"]["table"]["stopped"]
    again = await players[seat].request("move", move=first_legal_move(view["legal"]))
    assert again["t"] == "error" and again["code"] == "table_stopped", again
    # memory is what the disk holds: the same moves, in order, no hole
    reader = SqliteStore(str(db), readonly=True)
    try:
        record = game_record(reader.tables, table_id)
    finally:
        reader.close()
    assert len(record.moves) == len(table.game.moves) == acked

    filler.unlink()  # space again: the server finds out by itself, within its retry time
    for player in players:
        await newest(player, lambda m: not stopped(m) and m["seq"] > told["seq"])
    reply = await players[seat].request("move", move=first_legal_move(view["legal"]))
    assert reply["t"] == "state", reply
    await close_all(host, *players)
    await server.close()

    # and the next start restores that game, move for move
    server = await start(db)
    try:
        restored = server.lobby.tables[table_id]
        assert restored.game is not None and len(restored.game.moves) == acked + 1
        assert not server.lobby.broken
    finally:
        await server.close()


async def test_a_bot_table_on_a_full_disk_stops_says_so_and_goes_on_by_itself(small_disk):
    db = small_disk / "games.db"
    server = await start(db)
    url = f"ws://127.0.0.1:{server.port}"
    try:
        watcher = await Client.connect(url, "Watcher")
        table_id = (await watcher.request("create", name="Bots", seats=3, bots=3))["table"]
        assert (await watcher.request("watch", table=table_id))["t"] == "watching"
        await watcher.state(lambda v: v["round"] >= 2)
        filler = fill(small_disk)
        view = await watcher.state(lambda v: v["table"].get("stopped") is not None)
        table = server.lobby.tables[table_id]
        assert table.game is not None and not table.game.over
        frozen = len(table.game.moves)
        assert server.pacer.timers.get(table_id) is not None  # a retry is armed: no stall
        assert len(table.game.moves) == frozen
        filler.unlink()
        final = await watcher.state(lambda v: v["phase"] == "over")
        assert final["winner"] and "stopped" not in final["table"]
        assert view["table"]["stopped"]
        await watcher.close()
    finally:
        await server.close()
    reader = SqliteStore(str(db), readonly=True)
    try:
        record = game_record(reader.tables, table_id)
    finally:
        reader.close()
    assert record.views[-1].phase == "over"
