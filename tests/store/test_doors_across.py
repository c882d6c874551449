"""A door's client across a host's processes (issue 34 §2): `gother serve --processes 2`
with one new `--door-key-file`, as docs/hosting.md runs its doors apart. Its processes make
one key among them (the file's), so a door's client sent `elsewhere` is let in at the other
process with its door's claim, as the client sends it at every connection; a claim no door
of the host signed is refused there."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from server.edge.doorkey import DoorKey
from tests.core.test_client_core import Face
from tests.doors.test_doors_speak import opened_with
from tests.kits.netkit import Client, close_all
from tests.kits.prockit import LISTENING, ServerProcess
from tests.store.test_lobby_across import Lobby

pytestmark = pytest.mark.usefixtures("postgres")


async def test_a_door_s_client_sent_elsewhere_is_let_in_there_with_its_claim(pg_url, tmp_path):
    key_file = tmp_path / "door.key"  # new: made by the processes as they start
    host = await ServerProcess.start(
        *("--processes", "2", "--db", pg_url, "--table-log", str(tmp_path / "log.db")),
        *("--door-key-file", str(key_file), "--bot-delay", "0"),
    )
    try:
        one, two = sorted({(await host.log_line(LISTENING, nth=n)).group(1) for n in (1, 2)})
        door_key = DoorKey.of_text(key_file.read_text())
        claim = door_key.claim("198.51.100.7")
        for url in (one, two):  # both processes hold the file's key, not one each
            client = await opened_with(url, claim)
            reply = await client.ask(rq.Hello(v=PROTOCOL_VERSION, name="Door"))
            assert reply["t"] == "welcome", reply
            await client.close()
            forged = await opened_with(url, DoorKey().claim("198.51.100.7"))
            reply = await forged.ask(rq.Hello(v=PROTOCOL_VERSION, name="Door"))
            assert reply["t"] == "error" and reply["code"] == "bad_door", reply
            await forged.close()

        ann = await Client.connect(one, "Ann")
        table = (await ann.request("create", name="Ann's", seats=3, bots=1, bot="easy"))["table"]
        await ann.request("join", table=table, seat=0)
        looker = Lobby(await Client.connect(two, "Looker"))
        await looker.until("one's table at two", lambda rows: table in rows)
        face = Face()  # the door's client, as `gother join` runs in a door's session
        bo = ClientCore(
            ClientOptions(url=two, name="Bo", table=table),
            face,
            SeatStore(tmp_path / "bo.json"),
            partial(WebSocketTransport, door=claim),
        )
        running = asyncio.create_task(bo.run())
        try:
            assert await face.told("go") == ("table", None)  # let in at one, and seated
            assert bo.flow.table == table and bo.flow.at == one and bo.flow.seat is not None
            seat = bo.flow.seat
            await ann.state(lambda v: v["players"][seat]["name"] == "Bo")
        finally:
            await bo.close()
            running.cancel()
        await close_all(ann, looker.client)
    finally:
        if host.proc.returncode is None:
            assert await host.terminate() == 0
        await host.stop()
