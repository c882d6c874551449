"""Hints and bot difficulties through a real server: the hint is the search's move with its
reason, thought off the event loop; easy, normal and hard name bots wherever a kind does."""

from __future__ import annotations

import time
from typing import Any

import pytest

from protocol import requests as rq
from server.searches import SPAWN_TIME
from tests.kits.netkit import Client, close_all, first_legal_move

COLD = 2 * SPAWN_TIME  # seconds a first hint may take: its worker's start, then its search


async def seated_at_bots(url: str, bot: str, searched: bool = False) -> Client:
    """A player at a three-seat table with two bots of `bot`, its decision pending;
    `searched`: a placement of a whole hand, a decision the hint must search (a decision
    with one sensible move is answered at once)."""
    player = await Client.connect(url, "Human")
    created = await player.ask(rq.Create(name="Hinted", seats=3, bots=2, bot=bot))
    assert created["t"] == "created", created
    assert (await player.ask(rq.Join(table=created["table"])))["t"] == "joined"
    view = await player.state(lambda v: v["legal"] is not None)
    while searched and view["legal"]["kind"] != "distribute":
        reply = await player.ask(rq.Play(move=first_legal_move(view["legal"])))
        assert reply["t"] == "state", reply
        view = reply["view"]
        if view["legal"] is None:
            view = await player.state(lambda v: v["legal"] is not None)
    return player


async def hinted(player: Client) -> dict[str, Any]:
    """The answer to `hint`, asked again while the server says it is still thinking (as
    every client does: the server holds each ask up to its patience, so no pause), for as
    long as a search worker may take to start on a loaded machine."""
    deadline = time.monotonic() + COLD
    while True:
        reply = await player.request("hint")
        if reply.get("code") != "thinking" or time.monotonic() > deadline:
            return reply


async def test_a_hint_is_a_legal_move_with_a_one_line_reason_the_server_accepts(url):
    player = await seated_at_bots(url, "normal")
    for _ in range(3):  # three decisions in a row, each hinted and played as hinted
        hint = await hinted(player)
        assert hint["t"] == "hint", hint
        reason = hint["reason"]
        assert isinstance(reason, str) and reason and "\n" not in reason
        played = await player.ask(rq.Play(move=hint["move"]))
        assert played["t"] == "state", played
        if played["view"]["legal"] is None:
            await player.state(lambda v: v["legal"] is not None)
    await player.close()


async def test_a_placement_hint_names_the_players_as_the_table_shows_them(url):
    """The reason speaks of people by name: a hint thought from a view without the lobby's
    names said "seat 2", counted from 0, of the player the table shows as 3."""
    player = await seated_at_bots(url, "normal", searched=True)
    others = [p["name"] for p in player.latest_view()["players"] if p["name"] != "Human"]
    said = []
    for _ in range(8):  # placements until a reason speaks of another player
        hint = await hinted(player)
        assert hint["t"] == "hint", hint
        said.append(hint["reason"])
        assert "seat" not in hint["reason"], hint["reason"]
        if any(name in hint["reason"] for name in others):
            break
        view = (await player.request("move", move=hint["move"]))["view"]
        while view["phase"] != "over" and (view["legal"] or {}).get("kind") != "distribute":
            if view["legal"] is None:
                view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
                continue
            view = (await player.request("move", move=first_legal_move(view["legal"])))["view"]
        if view["phase"] == "over":
            break
    assert any(name in reason for reason in said for name in others), said
    await player.close()


async def test_the_server_answers_other_requests_while_a_hint_is_thought(url):
    """The search runs for a fifth of a second in a worker process: a `list` sent after the
    `hint` is answered first, which it could not be if the search held the event loop."""
    player = await seated_at_bots(url, "normal", searched=True)
    hint_rid = await player.tell(rq.Hint())
    list_rid = await player.tell(rq.List())
    first = await player.next(lambda m: m.get("rid") in (hint_rid, list_rid))
    assert first["rid"] == list_rid and first["t"] == "tables", first
    hint = await player.next(lambda m: m.get("rid") == hint_rid)
    assert (hint["t"] == "hint" and hint["reason"]) or hint["code"] == "thinking", hint
    await player.close()


async def test_no_hint_when_it_is_not_your_decision(url):
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Waiting", seats=3, bots=1)))["table"]
    await host.ask(rq.Join(table=table))
    refused = await host.ask(rq.Hint())
    assert refused["t"] == "error" and refused["code"] == "not_started"
    await host.close()


@pytest.mark.parametrize("bot", ["easy", "normal", "hard", "gentle", "ismcts"])
async def test_a_table_of_bots_named_by_difficulty_or_kind_plays(url, bot):
    watcher = await Client.connect(url, "Watcher")
    created = await watcher.ask(rq.Create(name="Show", seats=3, bots=3, bot=bot))
    assert created["t"] == "created", created
    assert (await watcher.ask(rq.Watch(table=created["table"])))["t"] == "watching"
    await watcher.state(lambda v: any(e["kind"] == "place" for e in v["log"]))  # a bot played
    await watcher.close()


async def test_an_unknown_bot_name_is_refused_and_names_the_field(url):
    host = await Client.connect(url, "Host")
    refused = await host.request("create", name="Nope", seats=3, bots=2, bot="genius")
    assert refused["t"] == "error" and refused["code"] == "bad_message"
    assert "bot" in refused["message"]
    again = await host.ask(rq.List())  # and nothing was made
    assert again["t"] == "tables" and again["tables"] == []
    await close_all(host)


async def test_one_hint_at_a_time_per_connection(url):
    """A search holds a worker the bots need too: a second hint asked before the
    first is answered is refused, and the first still comes."""
    player = await seated_at_bots(url, "normal", searched=True)
    first = await player.tell(rq.Hint())
    second = await player.ask(rq.Hint())
    assert second["t"] == "error" and second["code"] == "rate_limited", second
    answered = await player.next(lambda m: m.get("rid") == first)
    assert answered["t"] == "hint" or answered["code"] == "thinking", answered
    assert (await hinted(player))["t"] == "hint"  # once answered, ask again
    await player.close()
