"""`proven` across a host's processes (issue 34 §2): real `gother serve --db postgresql://…`
processes; a key proved at any process is told every seat it holds at every one, and the
other processes' `list` shows none of whose they are."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import requests as rq
from tests.edge.test_identity import proven, started_table
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until
from tests.store.test_lobby_across import Lobby, host

pytestmark = pytest.mark.usefixtures("postgres")
__all__ = ["host"]  # the fixture: real processes on one PostgreSQL


async def test_proven_says_the_seats_held_at_every_process(host):
    one, two = await host("one"), await host("two")
    key = Ed25519PrivateKey.generate()
    at_one, ann = await started_table(one.url, key)
    at_two, ann_two = await started_table(two.url, key)
    await close_all(ann, ann_two)
    looker = Lobby(await Client.connect(two.url, "Looker"))
    await looker.until("one's table at two", lambda rows: at_one in rows)
    listed = await looker.client.request("list")
    assert b"held" not in msgspec.msgpack.encode(listed)  # whose seats: never listed

    seats: list[dict[str, object]] = []

    async def prove_again() -> None:
        client, reply = await proven(two.url, "Ann", key)
        seats[:] = reply["seats"]
        await client.close()

    await prove_again()
    await until(
        "both seats said at two",
        lambda: (
            sorted((s["table"], s["seat"]) for s in seats) == sorted([(at_one, 0), (at_two, 0)])
        ),
        pause=prove_again,
    )
    assert seats[0] == {"table": at_two, "seat": 0}  # the asked process's own first

    ann, _ = await proven(two.url, "Ann", key)  # and the seat elsewhere is taken back there
    reply = await ann.ask(rq.Resume(table=at_one))
    assert reply["t"] == "error" and reply["code"] == "elsewhere" and reply["url"] == one.url
    await close_all(ann, looker.client)
