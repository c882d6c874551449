"""The plain client's `tournament` command: make one with the host's leave, register, start
it, be seated by the director, leave the table to a bot, hear the news of the night, and
read the standings. A plain client in this process and players on real websockets."""

from __future__ import annotations

import pytest

from tests.plain.plainkit import InProcess
from tests.server.netkit import Client, close_all
from tests.server.tournamentkit import LEAVE, NIGHT, Player


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_tournament_from_the_plain_client(url, tmp_path):
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^No tables on this server yet")
        raven.type("tournament")
        await raven.transcript.until(r"^You follow no tournament: tournament ID registers")
        raven.type("tournament new three 4 x Night")
        await raven.transcript.until(r"^tournament new ROUNDS SEATS PASSWORD NAME: e\.g\.")
        raven.type("tournament new 1 3 wrong Night")
        await raven.transcript.until(r"^The server refused: creating a tournament needs the host")
        raven.type(f"tournament new 1 3 {LEAVE} Night")
        made = await raven.transcript.until(
            r"^Night \((\w+)\): registering, 0 players, tables of 3$"
        )
        tournament = made[1]
        raven.type("tournament nope")
        await raven.transcript.until(r"^The server refused: there is no tournament 'nope'")
        raven.type(f"tournament {tournament}")
        await raven.transcript.until(r"^Night \(\w+\): registering, 1 player, tables of 3$")
        players = []
        for name in ("Lenore", "Vlad"):
            client = await Client.connect(url, name)
            players.append(Player(client))
            reply = await client.request("tournament_join", tournament=tournament)
            assert reply["t"] == "tournament", reply
        raven.type("tournament start")
        sat = await raven.transcript.until(r"^You sit at Night r1 t1 \(table (\w+)\), seat \d of 3")
        await raven.transcript.until(r"^Night \(\w+\): round 1 of 1, tables of 3$")
        table = await raven.transcript.until(r"^  Table 1 \((\w+)\): (.+), playing$")
        assert table[1] == sat[1]
        assert sorted(table[2].split(", ")) == ["Lenore", "Raven", "Vlad"]
        raven.type("leave")
        await raven.transcript.until(r"^You left the table\.$")
        leader = await raven.transcript.until(r"^Night is over: (\w+) is first\. \(tournament")
        raven.type("tournament")
        await raven.transcript.until(r"^Night \(\w+\): over after 1 round, tables of 3$")
        await raven.transcript.until(r"^Standings:$")
        first = await raven.transcript.until(r"^  1\. (\w+): ([\d.]+) points?, -?\d+ Goth, 1 game$")
        assert first[1] == leader[1] and float(first[2]) >= 1.0  # first of three: 2, or shared
        raven.type("quit")
    for player in players:
        player.task.cancel()
    await close_all(*(p.client for p in players))
