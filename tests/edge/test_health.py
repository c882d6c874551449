"""What a host's monitoring sees: `GET /healthz` on the websocket port, and the stats line
the log gets every few minutes, from the same figures."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import time
from dataclasses import asdict
from typing import Any

import msgpack
import pytest

from server.edge.health import (
    ASKS_BURST,
    ASKS_OVERALL,
    ASKS_OVERALL_BURST,
    ASKS_PER_ADDRESS,
    figures,
    stats_line,
)
from server.edge.pauses import SAMPLE, YOUNG, tune_collector
from tests.kits.netkit import TIMEOUT, Client, close_all
from tests.kits.poll import until


async def get(port: int, path: str, source: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP/1.1 GET on 127.0.0.1 (from `source`, one of this host's loopback
    addresses); status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    body = await asyncio.wait_for(reader.readexactly(int(headers["Content-Length"])), 10)
    writer.close()
    return status, headers, body


async def test_healthz_answers_with_the_servers_figures(server, url):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Seen", seats=3, bots=3))["table"]
    await host.request("watch", table=table)
    await host.state(lambda v: v["phase"] != "lobby")
    status, headers, body = await get(server.port, "/healthz")
    assert status == 200 and headers["Content-Type"] == "application/json"
    answer = json.loads(body)
    assert answer["status"] == "ok" and answer["connections"] == 1 and answer["tables"] == 1
    assert answer["games"] in (0, 1) and answer["broken"] == 0 and answer["uptime"] >= 0
    assert set(answer) == set(asdict(figures(server)))
    await host.close()


async def test_healthz_moves_count_the_bots_moves_too(server, url):
    """`moves` counts every move made at any table: here a table of bots made them all (it
    counted players' moves only, so a server of bots' tables said 0)."""
    host = await Client.connect(url, "Host")
    created = await host.request("create", name="Bots", seats=3, bots=3, variants={"round_cap": 1})
    await host.request("watch", table=created["table"])
    await host.state(lambda v: v["phase"] == "over")
    record = await host.request("record", table=created["table"])
    assert record["parts"] == 1, record
    made = len(msgpack.unpackb(record["data"])["moves"])
    _, _, body = await get(server.port, "/healthz")
    assert json.loads(body)["moves"] == made > 0
    await host.close()


async def test_healthz_says_503_while_a_table_cannot_write(server, url):
    host = await Client.connect(url, "Host")
    table_id = (await host.request("create", name="Stuck", seats=3, bots=0))["table"]
    server.lobby.tables[table_id].stopped = "the disk is full"
    status, _, body = await get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["stopped"] == 1
    await host.close()


async def test_healthz_answers_a_few_a_second_from_one_address_and_in_all(server, url):
    """/healthz had no limit: 687 answers a second, each reading every table, made an
    honest table 8 times slower. Past a few from one address, or in all, it is 429."""
    began = time.monotonic()
    statuses = [(await get(server.port, "/healthz", "127.0.0.2"))[0] for _ in range(20)]
    took = time.monotonic() - began
    answered = statuses.count(200)
    assert answered <= ASKS_BURST + ASKS_PER_ADDRESS * took + 1, (statuses, took)
    assert statuses.count(429) == 20 - answered
    status, headers, _ = await get(server.port, "/healthz", "127.0.0.2")
    assert status == 429 and headers["Retry-After"] == "1"
    assert (await get(server.port, "/healthz", "127.0.0.3"))[0] == 200  # another address
    began = time.monotonic()
    many = [(await get(server.port, "/healthz", f"127.0.1.{n}"))[0] for n in range(40)]
    took = time.monotonic() - began
    assert many.count(200) <= ASKS_OVERALL_BURST + ASKS_OVERALL * took + 1, (many, took)
    assert many.count(429) >= 1


async def test_any_other_path_is_still_a_websocket_handshake(server, url):
    status, _, _ = await get(server.port, "/")
    assert status == 426  # Upgrade Required: what websockets says to plain HTTP


@pytest.mark.parametrize("config", [{"stats_every": 0.05}], indirect=True)
async def test_the_log_gets_a_stats_line_every_few_minutes(server, url, caplog):
    caplog.set_level(logging.INFO, "gother.server")
    a = await Client.connect(url, "A")
    await a.request("join", table="nosuch")  # one error
    line = stats_line(server)
    assert "1 connections (0 before hello)" in line and "0 tables" in line
    assert "1 errors" in line and "0 moves" in line
    counts = line.split(";")[0]  # the loop's pauses after it are each line's own

    await until(
        "the stats line",
        lambda: any(r.getMessage().split(";")[0] == counts for r in caplog.records),
    )
    await close_all(a)


async def test_the_loop_s_lag_and_the_collector_s_pauses_are_told(server, url):
    """A callback that holds the loop, and a full collection, show in /healthz (worst since
    the start) and in the stats line (since the line before)."""
    stats_line(server)  # a new window
    loop = asyncio.get_running_loop()
    held = loop.create_future()
    loop.call_soon(lambda: (time.sleep(0.2), held.set_result(None)))  # a stall of 0.2 s
    await held
    gc.collect()

    async def told() -> dict[str, Any]:
        while True:  # the watch looks at the loop every SAMPLE seconds
            _, _, body = await get(server.port, "/healthz")
            answer: dict[str, Any] = json.loads(body)
            if answer["loop_lag_worst_ms"] >= 150:
                return answer
            await asyncio.sleep(SAMPLE)

    answer = await asyncio.wait_for(told(), TIMEOUT)
    assert answer["gc_full"] >= 1 and answer["gc_worst_ms"] > 0, answer
    line = stats_line(server)
    worst = int(line.split("loop lag at worst ")[1].split(" ms")[0])
    assert worst >= 150 and "of them full" in line, line
    assert server.pauses.take()[0].count < 10  # the line began a new window


def test_a_server_process_keeps_what_it_holds_at_start_out_of_the_collector_s_way():
    """`gother serve` (server/serve.py) tunes its collector once started: the objects then
    alive are frozen, and the youngest generation is collected every YOUNG allocations, so
    the full collections that stop every table come far less often."""
    before = gc.get_threshold()
    try:
        tune_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG, before[1], before[2])
    finally:  # the test process's collector as it was
        gc.unfreeze()
        gc.set_threshold(*before)
