"""A host of several processes with a CA's certificate (issue 34 §2): `gother serve
--processes 2 --host 0.0.0.0 --certfile … --public wss://localhost:0`, the certificate a
test CA's for `localhost` (a name that is 127.0.0.1 only: nothing here reaches the
machine's other addresses, and --no-announce says nothing on the LAN). A client checking
the certificate by its CA, name and all, as a browser or `gother join --cafile` does,
comes in at the host's address and is sent on to the other process by the name the
certificate carries (not the machine's own, which it does not): it follows, checked there
too."""

from __future__ import annotations

import asyncio
import re
import ssl
from functools import partial

import pytest

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.core.trust import Trust
from tests.core.test_client_core import Face
from tests.kits.cakit import ca_signed
from tests.kits.netkit import Client, close_all
from tests.kits.prockit import ServerProcess
from tests.store.test_lobby_across import Lobby

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

LISTENING_EVERYWHERE = re.compile(r"listening on (wss://0\.0\.0\.0:(\d+))")
SENT_HERE = re.compile(r"the host's other processes send players here as (\S+)")


async def test_each_process_is_given_by_the_name_its_ca_certificate_carries(pg_url, tmp_path):
    ca, cert, key = ca_signed(tmp_path / "tls", "localhost")
    serve = await ServerProcess.run(
        *("serve", "--processes", "2", "--host", "0.0.0.0", "--port", "0", "--no-announce"),
        *("--certfile", str(cert), "--keyfile", str(key), "--public", "wss://localhost:0"),
        *("--db", pg_url, "--table-log", str(tmp_path / "log.db"), "--bot-delay", "0"),
        ready=LISTENING_EVERYWHERE,
    )
    checked = ssl.create_default_context(cafile=str(ca))  # by the CA, the name checked
    try:
        ports = {(await serve.log_line(LISTENING_EVERYWHERE, nth=n)).group(2) for n in (1, 2)}
        home, other = (f"wss://localhost:{port}" for port in sorted(ports))
        said = {(await serve.log_line(SENT_HERE, nth=n)).group(1) for n in (1, 2)}
        assert said == {home, other}, serve.stderr  # the name the certificate carries, logged
        maker = await Client.connect(other, "Ann", ssl=checked)
        table = (await maker.request("create", name="Ann's", seats=3, bots=1))["table"]
        asker = await Client.connect(home, "Asker", ssl=checked)
        await Lobby(asker).until("the other's table listed at home", lambda rows: table in rows)
        reply = await asker.request("join", table=table)
        assert (reply["code"], reply["url"]) == ("elsewhere", other), reply

        face = Face()  # our client (every door's core), trusting the CA as --cafile does
        bo = ClientCore(
            ClientOptions(url=home, name="Bo", table=table),
            face,
            SeatStore(tmp_path / "bo.json"),
            partial(WebSocketTransport, trust=Trust(cafile=str(ca))),
        )
        running = asyncio.create_task(bo.run())
        try:
            assert await face.told("go") == ("table", None)  # followed, and seated there
            assert bo.flow.at == other and bo.flow.seat is not None
            seat = bo.flow.seat
            await maker.request("watch", table=table)
            await maker.state(lambda v: v["players"][seat]["name"] == "Bo")
        finally:
            await bo.close()
            running.cancel()
        await close_all(maker, asker)
    finally:
        if serve.proc.returncode is None:
            assert await serve.terminate() == 0
        await serve.stop()
