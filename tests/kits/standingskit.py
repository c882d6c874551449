"""Finished games for the standings' tests: a player against bots, played to the end over
a real server."""

from __future__ import annotations

from typing import Any

from protocol import requests as rq
from tests.kits.netkit import Client, play_to_end


async def finished_game(url: str, name: str, bot: str = "easy") -> dict[str, Any]:
    """`name` plays a 3-seat table against two bots to the end; returns the final view."""
    player = await Client.connect(url, name)
    created = await player.ask(rq.Create(name=f"{name}'s", seats=3, bots=2, bot=bot))
    joined = await player.ask(rq.Join(table=created["table"], seat=0))
    assert joined["t"] == "joined", joined
    final = await play_to_end(player)
    await player.close()
    return final
