"""`gother bot`: bots that play over the protocol like any client, as subprocesses of the
installed console script and as NetBot in-process."""

from __future__ import annotations

import asyncio
import socket

import pytest

from server.bots.netbot import BotRefused, NetBot
from server.edge.app import GotherServer
from tests.kits.netkit import Client
from tests.kits.playkit import newest
from tests.kits.prockit import run_cli


def assert_one_clean_error(stderr: str, *expected: str) -> None:
    assert "Traceback" not in stderr, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("gother bot: "), stderr
    for text in expected:
        assert text in last, stderr


async def test_network_bots_fill_a_table_and_play_it_to_the_end(url):
    watcher = await Client.connect(url, "Watcher")
    table = (await watcher.request("create", name="Bots", seats=4, bots=0))["table"]
    assert (await watcher.request("watch", table=table))["t"] == "watching"

    processes = [
        run_cli("bot", url, "--table", table, "--name", f"Net{i}", "--kind", kind)
        for i, kind in enumerate(("heuristic", "random", "heuristic"))
    ]
    in_process = NetBot(url, table, bot="random", name="Local", seed=7).run()
    *results, local_final = await asyncio.gather(*processes, in_process)

    final = (await newest(watcher, lambda m: m["view"]["phase"] == "over"))["view"]
    assert final["winner"]
    assert sorted(p["name"] for p in final["players"]) == ["Local", "Net0", "Net1", "Net2"]
    assert not any(p["bot"] for p in final["players"])  # four network players, no server bot
    assert len(final["log"]) > 0
    for code, stdout, stderr in results:
        assert code == 0, stderr
        assert stdout.strip() == f"game over: winner(s) {final['winner']}"
        assert "Traceback" not in stderr
    assert local_final.over and list(local_final.winner or ()) == final["winner"]
    await watcher.close()


async def test_unknown_table_or_taken_seat_is_a_clear_error(url):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Full", seats=3, bots=0))["table"]
    assert (await host.request("join", table=table, seat=0))["t"] == "joined"

    code, stdout, stderr = await run_cli("bot", url, "--table", "nosuch")
    assert code == 1 and stdout == ""
    assert_one_clean_error(stderr, "no_such_table")

    code, _, stderr = await run_cli("bot", url, "--table", table, "--seat", "0")
    assert code == 1
    assert_one_clean_error(stderr, "seat_taken")

    with pytest.raises(BotRefused, match="no_such_table"):
        await NetBot(url, "nosuch").run()
    await host.close()


async def test_unreachable_or_malformed_address_is_a_clear_error():
    with socket.socket() as probe:  # a port nobody listens on (closed again at once)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, stdout, stderr = await run_cli("bot", f"ws://127.0.0.1:{port}", "--table", "t")
    assert code == 1 and stdout == ""
    assert_one_clean_error(stderr)

    # not an address at all: a usage error from the command line (exit 2), not a traceback
    for bad in ("http://127.0.0.1:1", "ws://", "ws://127.0.0.1:port", "ws://[::1"):
        code, _, stderr = await run_cli("bot", bad, "--table", "t")
        assert code == 2, (bad, stderr)
        assert "Traceback" not in stderr
        assert stderr.strip().splitlines()[-1].startswith("gother bot: error: argument URL")


async def test_bot_exits_cleanly_when_the_server_goes_away(config):
    server = GotherServer(config)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    try:
        watcher = await Client.connect(url, "Watcher")
        table = (await watcher.request("create", name="Wait", seats=3, bots=0))["table"]
        assert (await watcher.request("watch", table=table))["t"] == "watching"
        bot = asyncio.create_task(run_cli("bot", url, "--table", table, "--name", "Patient"))
        await watcher.state(lambda v: any(p["name"] == "Patient" for p in v["players"]))
    finally:
        await server.close()  # 1012 to everyone: the bot's game will never end
    code, stdout, stderr = await bot
    assert code == 1 and stdout == ""
    assert_one_clean_error(stderr, "1012")


def test_a_network_bot_takes_the_trait_asked_or_the_one_its_tables_seats_get():
    from protocol.constants import DEFAULT_TRAITS
    from server.game import default_deck

    deck = default_deck()
    for seats in (3, 4, 5):
        assert NetBot("ws://127.0.0.1:1", "t")._bot(deck, seats).trait == DEFAULT_TRAITS[seats]
        chosen = NetBot("ws://127.0.0.1:1", "t", trait="vengeful")._bot(deck, seats)
        assert chosen.trait == "vengeful"
