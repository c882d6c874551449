"""An end vote closes the table: the plain client says where the game stood, not only that
the table is gone (a spectator here; the words are the full-screen client's)."""

from __future__ import annotations

from protocol import requests as rq
from tests.kits.netkit import Client
from tests.plain.plainkit import InProcess


async def test_a_spectator_hears_the_final_standings_of_a_game_ended_by_vote(url, tmp_path):
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Wake", seats=3, bots=2)))["table"]
    assert (await host.ask(rq.Join(table=table)))["t"] == "joined"  # the game starts
    await host.state(lambda v: v["phase"] != "lobby")
    async with InProcess(url, tmp_path, table=table, watch=True, name="Crow") as crow:
        await crow.transcript.until(r"^You are watching Wake")
        await host.tell(rq.End())  # the only human's vote decides
        await crow.transcript.until(r"^The table was closed: the players ended the game")
        found = await crow.transcript.until(r"^Final standings: (.+)\.$")
        assert "Host" in found[1] and "Morticia" in found[1]
    await host.close()
