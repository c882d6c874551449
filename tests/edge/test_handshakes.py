"""Connections still in their opening handshake are bounded (server/edge/handshakes.py):
1,100 half-sent handshakes took every descriptor of a server held to 1,024, which then
failed to accept anyone (an honest client got in 1 time in 4). A real `gother serve`
process held to 1,024 descriptors, real sockets on 127.0.0.x."""

from __future__ import annotations

import asyncio
import os

from server.edge.config import ServerConfig
from server.edge.limits import FD_RESERVE
from tests.edge.test_address_caps import client_from
from tests.kits.netkit import close_all
from tests.kits.prockit import ServerProcess

HALF_SENT = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"  # no end


async def half_sent(port: int, source: str) -> asyncio.StreamWriter:
    """A connection that sends part of its handshake (kept open while its writer is)."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(HALF_SENT)
    await writer.drain()
    return writer


async def test_half_sent_handshakes_take_no_descriptor_past_their_share():
    server = await ServerProcess.start("--no-announce", nofile=1024)
    slow: list[asyncio.StreamWriter] = []
    try:
        port = int(server.url.rsplit(":", 1)[1])
        held: list[int] = []
        for _ in range(11):  # 1,100, a hundred at a time, the server's descriptors counted
            slow += await asyncio.gather(*(half_sent(port, "127.0.0.1") for _ in range(100)))
            held.append(len(os.listdir(f"/proc/{server.proc.pid}/fd")))
        # one address's share, and the batch just accepted being closed; before, all 1,024
        share = ServerConfig().max_per_address
        assert max(held) < FD_RESERVE + share + 100 + 100, held
        honest = await client_from(server.url, "127.0.0.2", "Honest")  # another address
        assert (await honest.request("list"))["t"] == "tables"
        await close_all(honest)
        assert not [line for line in server.lines if "cannot accept" in line]
    finally:
        for writer in slow:
            writer.close()
        await server.stop()
