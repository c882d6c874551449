"""What a host's monitoring sees: `GET /healthz` on the websocket port, and the stats line
the log gets every few minutes, from the same figures."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict

import pytest

from server.edge.health import figures, stats_line
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until


async def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP/1.1 GET on 127.0.0.1; status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
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


async def test_healthz_says_503_while_a_table_cannot_write(server, url):
    host = await Client.connect(url, "Host")
    table_id = (await host.request("create", name="Stuck", seats=3, bots=0))["table"]
    server.lobby.tables[table_id].stopped = "the disk is full"
    status, _, body = await get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["stopped"] == 1
    await host.close()


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

    await until("the stats line", lambda: any(r.getMessage() == line for r in caplog.records))
    await close_all(a)
