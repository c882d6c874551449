"""Record builds are bounded (issue 18, item 6), on a real server: a record once made is
served from the cache for free; a build is charged to the asker and to the server's share
of time for builds, so a flood of requests for records nobody else wants is refused with
`rate_limited` (saying when to try again) while everyone else is answered."""

from __future__ import annotations

from pathlib import Path

import msgpack
import msgspec

from protocol.constants import RECORD_PART
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.tables.export import game_record
from tests.kits.netkit import Client, close_all
from tests.kits.tablekit import finished_games


async def serving(db: Path, **fields: object) -> GotherServer:
    config = ServerConfig(host="127.0.0.1", port=0, db=str(db), bot_delay=0.0)
    for key, value in fields.items():
        setattr(config, key, value)
    server = GotherServer(config)
    await server.start()
    return server


async def test_a_flood_of_builds_is_refused_once_the_servers_share_is_spent(tmp_path):
    ids = finished_games(tmp_path / "games.db", 6)
    # a share so small that one build uses it up for a long while
    server = await serving(tmp_path / "games.db", record_share=1e-6, record_burst=0.0)
    try:
        url = f"ws://127.0.0.1:{server.port}"
        flooder = await Client.connect(url, "Flood")
        first = await flooder.request("record", table=ids[0])
        assert first["t"] == "record" and first["part"] == 0, first
        for table in ids[1:]:
            refused = await flooder.request("record", table=table)
            assert refused["t"] == "error" and refused["code"] == "rate_limited", refused
            assert "busy making other records: try again in" in refused["message"]
        again = await flooder.request("record", table=ids[0], part=1)  # made: from the cache
        assert again["t"] == "record" and again["part"] == 1, again
        honest = await Client.connect(url, "Honest")  # everyone else is answered
        assert (await honest.request("list"))["t"] == "tables"
        cached = await honest.request("record", table=ids[0])
        assert cached["data"] == first["data"]
        await close_all(flooder, honest)
    finally:
        await server.close()


async def test_a_build_is_charged_to_the_asker(tmp_path):
    ids = finished_games(tmp_path / "games.db", 8)
    server = await serving(tmp_path / "games.db", record_share=100.0, record_burst=100.0)
    try:
        url = f"ws://127.0.0.1:{server.port}"
        asker = await Client.connect(url, "Asker")
        answers = [await asker.request("record", table=table) for table in ids]
        # a budget of 100, 2 a part: 8 parts would pass; with 20 more a build, about 4
        served = [a for a in answers if a["t"] == "record"]
        assert 4 <= len(served) <= 5, answers
        assert answers[: len(served)] == served  # then the asker must wait
        assert all(a["code"] == "rate_limited" for a in answers[len(served) :]), answers
        other = await Client.connect(url, "Other")  # its own budget: a record for it too
        assert (await other.request("record", table=ids[-1]))["t"] == "record"
        await close_all(asker, other)
    finally:
        await server.close()


async def test_every_seat_s_record_of_a_game_is_made_in_one_build(tmp_path):
    """A player fetching each seat's replay of a game pays one build: the first seat's
    record is made with every seat's. Each seat's was a build of its own (charged 20 of the
    asker's budget, and a share of the server's), so 32 seats' records took ~100 s."""
    (table,) = finished_games(tmp_path / "games.db", 1)
    server = await serving(
        tmp_path / "games.db", record_share=100.0, record_burst=100.0, costly_rate=1e-6
    )
    sizes = [
        len(msgspec.msgpack.encode(game_record(server.store.tables, table, seat=s)))
        for s in range(3)
    ]
    parts = sum(-(-size // RECORD_PART) for size in sizes)
    # a budget that does not refill: one build (20) and every part (2 each), and less than
    # three builds would need
    server.config.costly_burst = 20 + 2 * parts + 39
    try:
        url = f"ws://127.0.0.1:{server.port}"
        asker = await Client.connect(url, "Asker")
        seen = []
        for seat in range(3):
            first = await asker.request("record", table=table, seat=seat)
            assert first["t"] == "record", (seat, first)
            parts = [first["data"]]
            for part in range(1, first["parts"]):
                reply = await asker.request("record", table=table, seat=seat, part=part)
                assert reply["t"] == "record", (seat, part, reply)
                parts.append(reply["data"])
            seen.append(msgpack.unpackb(b"".join(parts))["seen"])
        assert seen[0] != seen[1] != seen[2]  # each seat's own views
        await asker.close()
    finally:
        await server.close()
