"""Players who go away and come back: resume mid-turn, a second connection taking over,
a bot covering an absent player after the grace period, and clocks running out.

A real server in the test's loop (conftest); every wait is for a `state` or a close, never
a sleep. Grace periods and clocks are a fraction of a second, so the tests are quick.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol import requests as rq
from protocol.moves import DiscardFate
from protocol.requests import Create
from server.bots.registry import make_bot
from server.edge.app import GotherServer
from server.tables import pacer
from server.tables.table import ClockRule
from tests.kits.netkit import TIMEOUT, Client, first_legal_move
from tests.kits.playkit import at_least, drive, earliest, newest, seat_flags

GRACE = 0.3


async def seat_players(url: str, count: int = 3) -> tuple[str, list[Client], list[str]]:
    """A table of `count` seats and no bots, every seat joined (so the game starts)."""
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=count, bots=0)))["table"]
    await host.close()
    clients, tokens = [], []
    for seat in range(count):
        client = await Client.connect(url, f"P{seat}")
        joined = await client.ask(rq.Join(table=table, seat=seat))
        assert joined["t"] == "joined", joined
        clients.append(client)
        tokens.append(joined["token"])
    return table, clients, tokens


async def resume(url: str, name: str, token: str) -> tuple[Client, dict[str, Any], dict]:
    """A new connection resuming a seat: the client, its `joined` and its first state."""
    client = await Client.connect(url, name)
    joined = await client.ask(rq.Resume(token=token))
    assert joined["t"] == "joined", joined
    first = await client.next(lambda m: m["t"] == "state")
    return client, joined, first


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()


async def test_reconnect_in_the_middle_of_ones_own_turn(url):
    table, clients, tokens = await seat_players(url)
    seated = dict(enumerate(clients))
    while True:  # a turn that began with a Fate discard and goes on after it
        state, _ = await drive(seated, lambda m, n: m["view"]["phase"] == "discard_fate")
        mover = state["view"]["to_act"]
        own = await newest(clients[mover], at_least(state["seq"]))
        reply = await clients[mover].ask(
            rq.Play(move=DiscardFate(card=own["view"]["legal"]["cards"][0]))
        )
        assert reply["t"] == "state", reply
        if reply["view"]["to_act"] == mover:
            break
    before = reply["view"]
    assert before["legal"] is not None and before["legal"]["kind"] != "discard_fate"

    await clients[mover].close()
    others = [c for seat, c in seated.items() if seat != mover]
    for other in others:
        gone = await newest(other, lambda m: not m["view"]["players"][mover]["connected"])
        assert gone["view"]["to_act"] == mover  # nobody moved for it: the grace is 60 s

    back, joined, first = await resume(url, f"P{mover}", tokens[mover])
    assert (joined["table"], joined["seat"], joined["token"]) == (table, mover, tokens[mover])
    assert first["view"] == before  # still its decision, same hand, same everything
    for other in others:
        await newest(other, lambda m: m["view"]["players"][mover]["connected"])

    seated[mover] = back
    after, made = await drive(seated, lambda m, n: m["view"]["to_act"] != mover, observer=back)
    assert made >= 1
    assert after["view"]["phase"] == "over" or after["view"]["turn"] == (mover + 1) % 3
    await close_all(*seated.values())


async def test_second_connection_resuming_a_token_replaces_the_first(url):
    _, clients, tokens = await seat_players(url)
    old, observer = clients[0], clients[1]
    new, joined, state = await resume(url, "P0 again", tokens[0])
    assert joined["seat"] == 0
    assert state["view"]["you"]["seat"] == 0 and state["view"]["legal"] is not None

    await asyncio.wait_for(old._reader, TIMEOUT)  # the server closes the replaced one
    assert old.ws.close_code == 4000
    assert old.ws.close_reason == "seat resumed from another connection"
    assert not any(m["t"] == "error" for m in old.received)

    # the seat now answers to the second connection, and stays connected throughout
    reply = await new.ask(rq.Play(move=first_legal_move(state["view"]["legal"])))
    assert reply["t"] == "state" and reply["seq"] == state["seq"] + 1
    seen = await newest(observer, at_least(reply["seq"]))
    assert seen["view"]["players"][0]["connected"] is True
    assert seen["view"]["players"][0]["name"] == "P0 again"
    assert all(m["view"]["players"][0]["connected"] for m in observer.states())
    await close_all(new, *clients[1:])


@pytest.fixture
async def quick_server(config) -> AsyncIterator[GotherServer]:
    config.grace = GRACE
    srv = GotherServer(config)
    await srv.start()
    yield srv
    await srv.close()


async def test_absent_player_is_covered_after_the_grace_until_it_resumes(quick_server):
    url = f"ws://127.0.0.1:{quick_server.port}"
    _, clients, tokens = await seat_players(url)
    c0, c1, c2 = clients
    assert (await newest(c0))["view"]["to_act"] == 0

    left_at = time.monotonic()
    await c1.close()
    for other in (c0, c2):
        await newest(other, lambda m: seat_flags(m["view"], 1) == (False, False))

    # seat 0 plays; then seat 1's turn is played by the cover bot once the grace is over
    present = {0: c0, 2: c2}
    due, _ = await drive(present, lambda m, n: m["view"]["to_act"] == 1)
    covered = await earliest(c2, lambda m: m["seq"] == due["seq"] + 1)
    assert time.monotonic() - left_at >= GRACE
    assert seat_flags(covered["view"], 1) == (False, True)
    assert covered["view"]["log"][-1]["seat"] == 1  # a move made for seat 1
    passed = await newest(c2, lambda m: m["view"]["to_act"] != 1)
    assert passed["view"]["turn"] == 2 and seat_flags(passed["view"], 1) == (False, True)

    # back before its next turn: the bot stops, the player decides again
    back, _, first = await resume(url, "P1", tokens[1])
    assert seat_flags(first["view"], 1) == (True, False)
    own_turn, _ = await drive(present, lambda m, n: m["view"]["to_act"] == 1, observer=c0)
    mine = await newest(back, at_least(own_turn["seq"]))
    assert mine["seq"] == own_turn["seq"] and mine["view"]["legal"] is not None
    reply = await back.ask(rq.Play(move=first_legal_move(mine["view"]["legal"])))
    assert reply["t"] == "state"
    assert reply["seq"] == mine["seq"] + 1  # no bot move came in between
    await drive({**present, 1: back}, lambda m, n: m["view"]["to_act"] != 1, observer=back)
    assert not any(m["view"]["players"][1].get("covered") for m in back.states())
    await close_all(c0, c2, back)


async def test_running_out_of_clock_lets_a_bot_finish_that_turn_only(server, url):
    table = server.lobby.create(Create(name="Clock", seats=3, bots=2))
    table.clock_rule = ClockRule(initial=0.3, increment=10.0)
    player = await Client.connect(url, "Slow")
    asked_at = time.monotonic()
    joined = await player.ask(rq.Join(table=table.id))
    assert joined["seat"] == 0  # bots take the last seats
    start = await newest(player, lambda m: m["view"]["phase"] != "lobby")
    assert start["view"]["to_act"] == 0 and start["view"]["legal"] is not None

    # the player does nothing: once the 0.3 s are gone a bot plays seat 0's turn
    ran_out = await earliest(player, lambda m: m["view"]["players"][0]["covered"])
    assert time.monotonic() - asked_at >= 0.3
    assert ran_out["view"]["players"][0]["connected"] is True
    assert any(e["kind"] != "turn" and e.get("seat") == 0 for e in ran_out["view"]["log"])
    assert not any(m["t"] == "error" for m in player.received)
    handed_on = await earliest(player, lambda m: m["view"]["turn"] == 1)
    assert handed_on["view"]["players"][0]["connected"] is True

    # the next time it is seat 0's decision, the player is back in control
    again = await newest(player, lambda m: m["view"]["round"] >= 2 and m["view"]["to_act"] == 0)
    assert seat_flags(again["view"], 0) == (True, False)
    assert again["view"]["players"][0]["clock"] >= 10.0  # increments earned meanwhile
    reply = await player.ask(rq.Play(move=first_legal_move(again["view"]["legal"])))
    assert reply["t"] == "state" and reply["seq"] == again["seq"] + 1
    assert not reply["view"]["players"][0]["covered"]
    await player.close()


async def test_presence_changes_do_not_reset_a_running_clock(server, url):
    now = [1000.0]
    server.settings.clock = lambda: now[0]  # the table's clock, moved by hand
    table = server.lobby.create(Create(name="Clock", seats=3, bots=1))
    table.clock_rule = ClockRule(initial=30.0, increment=0.0)
    p0 = await Client.connect(url, "P0")
    p1 = await Client.connect(url, "P1")
    await p0.ask(rq.Join(table=table.id, seat=0))
    token = (await p1.ask(rq.Join(table=table.id, seat=1)))["token"]
    start = await newest(p0, lambda m: m["view"]["phase"] != "lobby")
    assert start["view"]["to_act"] == 0 and start["view"]["players"][0]["clock"] == 30.0

    now[0] += 10.0
    await p1.close()
    away = await newest(p0, lambda m: not m["view"]["players"][1]["connected"])
    assert away["view"]["players"][0]["clock"] == 20.0
    now[0] += 10.0
    back, _, _ = await resume(url, "P1", token)
    returned = await newest(p0, lambda m: m["view"]["players"][1]["connected"])
    assert returned["view"]["players"][0]["clock"] == 10.0  # 20 s of thinking, not 10
    now[0] += 1.0
    reply = await p0.ask(rq.Play(move=first_legal_move(returned["view"]["legal"])))
    assert reply["t"] == "state"
    assert reply["view"]["players"][0]["clock"] == 9.0  # 21 s charged for the decision
    await close_all(p0, back)


@pytest.mark.parametrize(("cover", "kind"), [("easy", "gentle"), ("hard", "ismcts")])
async def test_the_host_chooses_how_the_cover_bot_plays(config, cover, kind, monkeypatch):
    made: list[str] = []  # the bots the pacer makes, by the name it asks for

    def recording(name: str, *args: Any, **kwargs: Any) -> Any:
        made.append(name)
        return make_bot(name, *args, **kwargs)

    monkeypatch.setattr(pacer, "make_bot", recording)
    config.grace, config.cover = GRACE, cover
    server = GotherServer(config)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    _, clients, _ = await seat_players(url)
    c0, c1, c2 = clients
    await c1.close()
    due, _ = await drive({0: c0, 2: c2}, lambda m, n: m["view"]["to_act"] == 1)
    covered = await earliest(c2, lambda m: m["seq"] == due["seq"] + 1)
    assert seat_flags(covered["view"], 1) == (False, True)
    assert made and set(made) == {kind}  # seat 1's moves, made by the host's choice of bot
    await close_all(c0, c2)
    await server.close()


def test_serve_refuses_a_cover_bot_it_does_not_know(capsys):
    from gother_tui.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--cover", "ismcts"])  # a kind, not a difficulty
    assert "invalid choice: 'ismcts'" in capsys.readouterr().err
