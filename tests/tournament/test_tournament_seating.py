"""A tournament round is seated in a worker of the server's searches, not on the game's loop
(server/tournament/seating.py), over a real server: other tables are answered while the
seating is thought, a round whose worker dies is seated again on a fresh one, and a round
the searches cannot take is seated on the game's loop all the same. A worker is frozen with
SIGSTOP where a test needs the seating still running when it looks."""

from __future__ import annotations

import logging
import os
import signal
from typing import Any

import pytest

from protocol import requests as rq
from server.edge.app import GotherServer
from tests.bots.test_searches import frozen, running, the_worker
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until
from tests.kits.tournamentkit import NIGHT
from tests.tables.test_hints import hinted, seated_at_bots
from tests.tournament.test_tournament_night import create

NAMES = [f"P{i}" for i in range(1, 8)]  # two tables of four seats


async def registered(url: str) -> tuple[Client, str, list[Client]]:
    """The organiser, a tournament in registration and its seven players."""
    host = await Client.connect(url, "Host")
    tournament = (await create(host))["id"]
    players = [await Client.connect(url, name) for name in NAMES]
    for player in players:
        reply = await player.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament", reply
    return host, tournament, players


async def round_one_seated(started: dict[str, Any], players: list[Client]) -> None:
    """The answer to `tournament_start` is round 1, everyone at a table, told their seat."""
    assert (started["t"], started["phase"], started["round"]) == ("tournament", "playing", 1)
    tables = {t["table"]: t["players"] for t in started["tables"]}
    assert sorted(p for seated in tables.values() for p in seated) == sorted(NAMES)
    for name, player in zip(NAMES, players, strict=True):
        joined = await player.next(lambda m: m["t"] == "joined")
        assert name in tables[joined["table"]], (name, joined)


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "round 1" in r.getMessage()]


@pytest.mark.parametrize("config", [{**NIGHT, "search_workers": 1}], indirect=True)
async def test_a_round_whose_seating_worker_dies_is_seated_on_a_fresh_one_meanwhile_others_play(
    server: GotherServer, url: str, caplog: pytest.LogCaptureFixture
):
    host, tournament, players = await registered(url)
    other = await Client.connect(url, "Other")
    server.searches.spawn_all()
    killed = the_worker(server.searches)
    with caplog.at_level(logging.WARNING, "gother.server"), frozen(killed):
        rid = await host.tell(rq.TournamentStart(tournament=tournament))
        await until("the seating on the frozen worker", lambda: running(server.searches) == 1)
        assert (await other.ask(rq.List()))["t"] == "tables"  # the game's loop goes on
        assert not [m for m in host.received if m.get("rid") == rid]  # not seated yet
        os.kill(killed, signal.SIGKILL)
        started = await host.next(lambda m: m.get("rid") == rid)
    await round_one_seated(started, players)
    assert server.searches.replaced == 1
    lines = said(caplog)
    assert len(lines) == 1 and "try 1 of 2" in lines[0] and "died" in lines[0], lines
    await close_all(host, other, *players)


@pytest.mark.parametrize(
    "config", [{**NIGHT, "search_workers": 1, "search_queue": 0}], indirect=True
)
async def test_a_round_the_searches_are_too_busy_for_is_seated_on_the_game_s_loop(
    server: GotherServer, url: str, caplog: pytest.LogCaptureFixture
):
    """The one worker thinks a hint, frozen, and no job may wait: the seating is refused
    twice, and the round starts all the same."""
    warm = await seated_at_bots(url, "normal", searched=True)
    assert (await hinted(warm))["t"] == "hint"  # the worker is up
    player = await seated_at_bots(url, "normal", searched=True)  # a position not kept
    host, tournament, players = await registered(url)
    with caplog.at_level(logging.WARNING, "gother.server"), frozen(the_worker(server.searches)):
        hint = await player.send("hint")
        await until("one search running", lambda: running(server.searches) == 1)
        started = await host.ask(rq.TournamentStart(tournament=tournament))
        await round_one_seated(started, players)
        answered = [m for m in player.received if m.get("rid") == hint]
        assert all(m.get("code") == "thinking" for m in answered), answered  # still thought
    lines = said(caplog)
    assert [("busy" in line, "try" in line) for line in lines[:2]] == [(True, True)] * 2, lines
    assert len(lines) == 3 and "seated on the game's loop" in lines[2], lines
    again = await player.next(lambda m: m.get("rid") == hint)
    if again.get("code") == "thinking":  # past the server's patience: asked again, as clients do
        again = await hinted(player)
    assert again["t"] == "hint", again  # thought once the worker goes on
    await close_all(host, warm, player, *players)


@pytest.mark.parametrize("config", [{**NIGHT, "search_workers": 1}], indirect=True)
async def test_registration_closes_at_the_start_and_who_drops_out_meanwhile_is_not_seated(
    server: GotherServer, url: str
):
    host, tournament, players = await registered(url)
    late = await Client.connect(url, "Late")
    server.searches.spawn_all()
    with frozen(the_worker(server.searches)):
        rid = await host.tell(rq.TournamentStart(tournament=tournament))
        await until("the round being seated", lambda: running(server.searches) == 1)
        refused = await late.ask(rq.TournamentJoin(tournament=tournament))
        assert (refused["t"], refused["code"]) == ("error", "already_started"), refused
        again = await host.ask(rq.TournamentStart(tournament=tournament))
        assert (again["t"], again["code"]) == ("error", "already_started"), again
        dropped = await players[0].ask(rq.TournamentDrop(tournament=tournament))
        assert dropped["t"] == "tournament", dropped
    started = await host.next(lambda m: m.get("rid") == rid)
    seated = [p for t in started["tables"] for p in t["players"]]
    assert sorted(seated) == sorted(NAMES[1:])  # the seating had all seven: one is left out
    assert sum(t["bots"] for t in started["tables"]) == 4 * len(started["tables"]) - len(seated)
    await close_all(host, late, *players)
