"""Names one address can own (issue 31 §2): figures, never asserted.

    .venv/bin/python bench/names.py [--minutes 2] [--parallel 10] [--sit-only]

A squatter on 127.0.0.1 makes a new Ed25519 key (a new identity) for each name, `--parallel`
at a time, proves it, and sits at a table of three where two bots wait, with the shortest
round cap (1 round): the tables are other hosts' (127.0.0.2, .3, …: the whole of 127/8 is
this host's), so no quota of its own address stops it. It plays every decision of its seat
at once until the game is over, and leaves; with `--sit-only` it leaves at once (what owned
a name before). Printed: the names owned (by the server's own record of owners) at the end
of each minute. Run it on an older checkout (PYTHONPATH) for the figures before.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from websockets.asyncio.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from protocol.constants import PROVE_CONTEXT
from server.edge.app import GotherServer
from server.edge.config import ServerConfig

HOST = "127.0.0.1"


class Squatter:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws, self.rids = ws, itertools.count(1)

    async def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.rids)
        await self.ws.send(encode({**request, "rid": rid}))
        while True:
            reply = decode(await self.ws.recv())  # type: ignore[arg-type]
            if reply.get("rid") == rid:
                return reply

    async def until_asked(self) -> dict[str, Any]:
        """The next view that asks this seat to act, or the final one."""
        while True:
            message = decode(await self.ws.recv())  # type: ignore[arg-type]
            if message["t"] == "state":
                view = message["view"]
                if view["phase"] == "over" or view["legal"] is not None:
                    return view  # type: ignore[no-any-return]


def first_legal(legal: dict[str, Any]) -> dict[str, Any]:
    kind = legal["kind"]
    if kind == "distribute":
        pairs = zip(legal["recipients"], legal["hand"][: legal["count"]], strict=False)
        return {"kind": kind, "give": [list(p) for p in pairs]}
    if kind == "draw":
        if legal["deck"]:
            return {"kind": kind, "source": "deck"}
        return {"kind": kind, "source": "discard", "card": legal["discard"][0]}
    return {"kind": kind, "card": legal["cards"][0]}


async def squat(url: str, name: str, table: str, sit_only: bool) -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    async with connect(url, max_size=MAX_FRAME) as ws:
        me = Squatter(ws)
        welcome = await me.ask({"t": "hello", "v": PROTOCOL_VERSION, "name": name, "key": public})
        await me.ask({"t": "prove", "signature": key.sign(PROVE_CONTEXT + welcome["challenge"])})
        joined = await me.ask({"t": "join", "table": table, "seat": 0})
        if joined["t"] == "joined" and not sit_only:
            view = await me.until_asked()
            while view["phase"] != "over":
                await ws.send(encode({"t": "move", "move": first_legal(view["legal"])}))
                view = await me.until_asked()
        await me.ask({"t": "leave", "table": table})


async def tables_of_others(url: str) -> AsyncIterator[str]:
    """Tables other hosts opened, two bots waiting at each: ten from each address."""
    for n in itertools.count():
        source = f"127.0.{2 + n // 2500}.{2 + n // 10 % 250}"
        async with connect(url, max_size=MAX_FRAME, local_addr=(source, 0)) as ws:
            host = Squatter(ws)
            await host.ask({"t": "hello", "v": PROTOCOL_VERSION, "name": "Host"})
            made = await host.ask({"t": "create", "name": "Open", "seats": 3, "bots": 2,
                                   "variants": {"round_cap": 1}})  # fmt: skip
        yield str(made["table"])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=int, default=2)
    parser.add_argument("--parallel", type=int, default=10)
    parser.add_argument("--sit-only", action="store_true")
    args = parser.parse_args()
    server = GotherServer(ServerConfig(host=HOST, port=0, max_tables=10_000))  # a big host
    await server.start()
    url = f"ws://{HOST}:{server.port}"
    names = (f"Squat{n}" for n in itertools.count())
    tried: list[str] = []

    tables = tables_of_others(url)
    making = asyncio.Lock()

    async def squatter() -> None:
        while True:
            async with making:
                table = await anext(tables)
            name = next(names)
            tried.append(name)
            await squat(url, name, table, args.sit_only)

    tasks = [asyncio.create_task(squatter()) for _ in range(args.parallel)]
    owned = []
    for _ in range(args.minutes):
        await asyncio.sleep(60)
        owned.append(sum(server.names.owner(name) is not None for name in list(tried)))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await server.close()
    way = "sitting only" if args.sit_only else "a game of one round each"
    print(f"one address, {args.parallel} at a time, {way}: {len(tried)} names tried, owned at "
          f"the end of each minute: {', '.join(map(str, owned))}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
