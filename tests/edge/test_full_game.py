"""Four network players and two spectators play a whole game through the protocol."""

import asyncio

from protocol import requests as rq
from tests.kits.netkit import Client, close_all, play_to_end


async def test_four_players_and_two_spectators_play_to_the_end(url):
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=4, bots=0)))["table"]
    spectators = [await Client.connect(url, f"Watcher{i}") for i in range(2)]
    for watcher in spectators:
        assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
    players = [await Client.connect(url, f"P{i}") for i in range(4)]
    seats = []
    for player in players:
        joined = await player.ask(rq.Join(table=table))
        assert joined["t"] == "joined" and len(joined["cards"]) == 55
        seats.append(joined["seat"])
    assert sorted(seats) == [0, 1, 2, 3]

    finals = await asyncio.gather(*(play_to_end(p) for p in players))
    watched = [await w.state(lambda v: v["phase"] == "over") for w in spectators]

    winners = {tuple(f["winner"]) for f in finals + watched}
    assert len(winners) == 1 and winners.pop()  # everyone saw the same, non-empty result
    for client in (*players, *spectators):
        seqs = [m["seq"] for m in client.states()]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # in order, no repeats
    await close_all(host, *players, *spectators)
