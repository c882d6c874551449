"""Driving games over the wire in tests, without sleeps: every wait is for a `state`.

`newest` looks at what a client has already received before waiting for more, so a state
that arrived while the test was busy elsewhere is never missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from protocol import requests as rq
from tests.kits.netkit import Client, first_legal_move

Message = dict[str, Any]
RATE_BACKOFF = 0.1  # seconds a driver waits after `rate_limited` (the bucket refills at 50/s)


def last_state(client: Client) -> Message | None:
    return next((m for m in reversed(client.received) if m["t"] == "state"), None)


async def newest(client: Client, predicate: Callable[[Message], bool] = lambda m: True) -> Message:
    """The newest `state` message this client has, once it satisfies `predicate`."""
    while True:
        message = last_state(client)
        if message is not None and predicate(message):
            return message
        await client.next()  # wait for anything new (netkit times out after a while)


def at_least(seq: int) -> Callable[[Message], bool]:
    return lambda m: m["seq"] >= seq


def seat_flags(view: Mapping[str, Any], seat: int) -> tuple[bool, bool]:
    """(connected, covered) of a seat in a view."""
    player = view["players"][seat]
    return player["connected"], player.get("covered", False)


async def drive(
    players: Mapping[int, Client],
    stop: Callable[[Message, int], bool],
    observer: Client | None = None,
    max_moves: int = 5000,
) -> tuple[Message, int]:
    """Play first legal moves for the seats in `players` until `stop(state, moves made)`;
    seats not in `players` are left to the server (bots, cover). Every move must be
    accepted. Returns the last state seen and the number of moves this call made."""
    observer = observer or next(iter(players.values()))
    message = await newest(observer)
    moves = 0
    while not stop(message, moves):
        view = message["view"]
        assert view["phase"] != "over", "the game ended before the awaited moment"
        assert moves < max_moves, "too many moves"
        seat = view["to_act"]
        if seat not in players:
            message = await newest(observer, at_least(message["seq"] + 1))
            continue
        own = await newest(players[seat], at_least(message["seq"]))
        if own["seq"] != message["seq"] or own["view"]["legal"] is None:
            message = own  # the table changed meanwhile: look again
            continue
        reply = await players[seat].ask(rq.Play(move=first_legal_move(own["view"]["legal"])))
        if reply["t"] == "error" and reply["code"] == "rate_limited":
            # Faster than the server's per-connection limit (50/s): back off, as a polite
            # client does, and ask again. The move was dropped, not applied.
            await asyncio.sleep(RATE_BACKOFF)
            continue
        assert reply["t"] == "state", reply
        moves += 1
        message = reply
    return message, moves


async def earliest(client: Client, predicate: Callable[[Message], bool]) -> Message:
    """The earliest `state` this client got (or gets) that satisfies `predicate`: for
    conditions that last only a moment, which `newest` could miss."""
    checked = 0
    while True:
        for message in client.received[checked:]:
            if message["t"] == "state" and predicate(message):
                return message
        checked = len(client.received)
        await client.next()
