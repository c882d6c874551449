"""Nothing lost when a process dies (issue 34 §3), the real thing: three `gother serve`
processes of one host sharing a log folder and one PostgreSQL, a table at each, played by
our client's core (every door's) that came in at the host's address, and bots. One process
is killed -9 mid-game: within 10 s its table is held by a live process; every move a client
was told of is in the game there; its player's client comes back by itself, seated, and
moves on; its bots play on. And with `--processes`, which starts a dead process again, the
taker and the process started again never both hold the table."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from protocol import requests as rq
from protocol import server_messages as sm
from server.store.database import SqliteDatabase
from tests.core.test_client_core import Face, answer_to
from tests.kits.netkit import Client, close_all, first_legal_move, told
from tests.kits.poll import until
from tests.kits.prockit import LISTENING, ServerProcess, host_of
from tests.store.test_lobby_across import Lobby
from tests.store.test_postgres import psql
from tests.store.test_serve_processes import pid_listening_at

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

TAKEN_WITHIN = 10.0  # seconds from the kill to the table held by a live process (§3)
BOT_DELAY = "0.4"  # the bots' pace: the games are still being played when one dies


class Player:
    """Our client's core, come in at the host's address and sent on to its table."""

    def __init__(self, home: str, name: str, table: str, folder: Path) -> None:
        self.face = Face()
        options = ClientOptions(url=home, name=name, table=table, anonymous=True)
        self.core = ClientCore(
            options, self.face, SeatStore(folder / f"{name}.json"), WebSocketTransport
        )
        self.running = asyncio.create_task(self.core.run())

    async def seated(self) -> None:
        """Seated (again), and shown the table as it is now."""
        assert await self.face.told("go") == ("table", None)
        await self.face.told("shown")
        assert self.core.flow.seat is not None

    async def move(self) -> sm.State:
        """Once it is this seat's decision: a legal move, answered (acknowledged)."""
        view = await until(
            "this seat's decision",
            lambda: self.core.online and self.core.view and self.core.view.legal and self.core.view,
        )
        assert view and view.legal is not None
        move = first_legal_move(msgspec.to_builtins(view.legal))
        reply = await asyncio.wait_for(answer_to(self.core, rq.Play(move=move)), 30)
        assert isinstance(reply, sm.State), reply
        return reply

    async def close(self) -> None:
        await self.core.close()
        self.running.cancel()


def holder(pg_url: str, table: str) -> str | None:
    """The log holding `table`, as PostgreSQL names it: its file's stem."""
    rows = psql(pg_url, f"SELECT log FROM tables WHERE id = '{table}'")
    return Path(rows[0][0]).stem if rows and rows[0][0] else None


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Three processes of one host: each its own log, in one folder they share."""
    async with host_of(3, pg_url, tmp_path, "--bot-delay", BOT_DELAY) as processes:
        yield processes


async def test_a_process_killed_mid_game_loses_no_move_and_its_players_come_back(
    host, pg_url, tmp_path
):
    home = host[0].url  # the host's address: where every player comes in
    makers = [await Client.connect(process.url, f"Maker{k}") for k, process in enumerate(host)]
    tables = [
        (await maker.request("create", name=f"Crypt {k}", seats=3, bots=2))["table"]
        for k, maker in enumerate(makers)
    ]
    watchers = []
    for maker, table in zip(makers, tables, strict=True):
        assert (await maker.request("watch", table=table))["t"] == "watching"
        watchers.append(maker)
    await Lobby(makers[0]).until(
        "every table listed at home", lambda rows: set(tables) <= set(rows)
    )
    players = [Player(home, f"P{k}", table, tmp_path) for k, table in enumerate(tables)]
    try:
        for k, player in enumerate(players):
            await player.seated()
            assert player.core.flow.at == host[k].url  # sent on to the process holding it
        dying = players[1]
        table = tables[1]
        acknowledged = (await dying.move()).view  # a move of its own, acknowledged
        told_then = acknowledged.log_start + len(acknowledged.log)
        await until(
            f"moves told (of {told_then})",
            lambda: len(told(watchers[1], table)) >= told_then,
            timeout=5,
        )
        before = told(watchers[1], table)

        killed_at = time.monotonic()
        assert await host[1].kill() == -9
        taker = await until(
            "the dead process's table held by a live one",
            lambda: holder(pg_url, table) in ("log-0", "log-2") and holder(pg_url, table),
        )
        took = time.monotonic() - killed_at
        assert took < TAKEN_WITHIN, took
        at = host[int(taker[-1])].url

        # the player's client came back by itself, seated there, and moves on
        await until("the player back at the taker", lambda: dying.core.flow.at == at)
        await dying.seated()
        await dying.move()

        # every event a client was told of is in the game at the taker, in its place
        fresh = await Client.connect(at, "Fresh")
        assert (await fresh.request("watch", table=table))["t"] == "watching"
        await fresh.state(lambda v: v["table"]["id"] == table)
        after = told(fresh, table)
        assert {place: after.get(place) for place in before} == before  # 0 lost
        # and its bots play on (the player moving whenever asked)
        await a_bot_moves(fresh, dying)
        await close_all(fresh)
        # the two live processes both tried: one holds it, in its log only
        holding = [k for k in range(3) if in_log(tmp_path / f"log-{k}.db", table)]
        assert holding == [int(taker[-1])]
        # the others' tables never moved
        assert [holder(pg_url, t) for t in (tables[0], tables[2])] == ["log-0", "log-2"]
    finally:
        for player in players:
            await player.close()
        await close_all(*makers)


async def a_bot_moves(watcher: Client, player: Player) -> None:
    """A bot's decision comes, and passes: it moved."""
    seat = player.core.flow.seat

    async def play() -> None:
        while True:
            await player.move()

    playing = asyncio.create_task(play())
    try:
        view = await watcher.state(lambda v: v["to_act"] not in (None, seat))
        bot = view["to_act"]
        await watcher.state(lambda v: v["to_act"] != bot)
    finally:
        playing.cancel()


STARTED = re.compile(r"process (\d) started \(pid (\d+)\)")


async def test_with_processes_the_taker_and_the_process_started_again_hold_a_table_once(
    pg_url, tmp_path
):
    """`--processes 2`: one killed -9 is started again within a second or two, and the
    other process may take its table meanwhile: whichever gets the dead log's lock first
    holds it, and the other never does; the player comes back to it either way."""
    log = tmp_path / "log.db"
    host = await ServerProcess.start(
        "--processes", "2", "--db", pg_url, "--table-log", str(log), "--bot-delay", BOT_DELAY
    )
    try:
        urls = sorted({(await host.log_line(LISTENING, nth=n)).group(1) for n in (1, 2)})
        maker = await Client.connect(urls[1], "Maker")
        table = (await maker.request("create", name="Crypt", seats=3, bots=2))["table"]
        await close_all(maker)
        looker = await Client.connect(urls[0], "Looker")
        await Lobby(looker).until("the table listed at home", lambda rows: table in rows)
        await close_all(looker)
        player = Player(urls[0], "P", table, tmp_path)
        try:
            await player.seated()
            assert player.core.flow.at == urls[1]
            await player.move()
            first = holder(pg_url, table)
            pids = {m.group(2) for line in host.lines if (m := STARTED.search(line))}
            killed = await asyncio.create_subprocess_exec(
                "kill", "-9", await pid_listening_at(urls[1], pids)
            )
            assert await killed.wait() == 0
            await host.log_line(LISTENING, nth=3)  # started again
            await until("the player seated again", lambda: player.core.flow.at != urls[1])
            await player.seated()
            await player.move()
            held = holder(pg_url, table)
            assert held in ("log-0", "log-1") and first in ("log-0", "log-1")
            # exactly one log holds it: the one PostgreSQL names
            in_logs = [
                stem for stem in ("log-0", "log-1") if in_log(tmp_path / f"{stem}.db", table)
            ]
            assert in_logs == [held]
        finally:
            await player.close()
    finally:
        if host.proc.returncode is None:
            assert await host.terminate() == 0
        await host.stop()


def in_log(path: Path, table: str) -> bool:
    """Whether the table log at `path` holds `table`."""
    database = SqliteDatabase(str(path))
    try:
        return database.row("SELECT 1 FROM tables WHERE id = :t", {"t": table}) is not None
    finally:
        database.close()
