"""A tournament's places cost something (issue 31 §2), over a real server: one address
registers a few players, not a hundred; an anonymous player's entry is theirs by the secret
they were given, not by the name anyone can say; no entry's name passes for another's; and
the start seats only the players present, not places registered and left."""

from __future__ import annotations

from typing import Any

import pytest

from server.edge.app import GotherServer
from tests.edge.test_address_caps import client_from
from tests.kits.netkit import Client, close_all
from tests.kits.tournamentkit import LEAVE, SHORT

HOSTED = {"tournament_password": LEAVE}  # the usual limits, tournaments allowed


async def night(url: str, **fields: Any) -> str:
    host = await Client.connect(url, "Host")
    reply = await host.request(
        "tournament_create", name="Night", rounds=1, seats=3, variants=SHORT, password=LEAVE,
        **fields,
    )  # fmt: skip
    assert reply["t"] == "tournament", reply
    await host.close()
    return str(reply["id"])


async def registered(url: str, tournament: str, name: str, source: str) -> tuple[Client, dict]:
    client = await client_from(url, source, name)
    return client, await client.request("tournament_join", tournament=tournament)


@pytest.mark.parametrize("config", [HOSTED], indirect=True)
async def test_one_address_registers_a_few_players(server: GotherServer, url):
    """A hundred places were filled from one address in half a second."""
    tournament = await night(url)
    per_address = server.config.tournament_entries_per_address
    clients, replies = [], []
    for n in range(per_address + 2):
        client, reply = await registered(url, tournament, f"Ghoul{n}", "127.0.0.2")
        clients.append(client)
        replies.append(reply)
    assert [r["t"] for r in replies] == ["tournament"] * per_address + ["error"] * 2
    assert {r.get("code") for r in replies[per_address:]} == {"too_many_seats"}
    assert "4 players in this tournament" in replies[-1]["message"]
    other, reply = await registered(url, tournament, "Lydia", "127.0.0.3")  # another address
    assert reply["t"] == "tournament" and len(reply["players"]) == per_address + 1
    await close_all(other, *clients)


@pytest.mark.parametrize("config", [HOSTED], indirect=True)
async def test_an_anonymous_entry_is_taken_back_only_with_its_secret(url):
    """Another anonymous client under the same name took the entry over and dropped it."""
    tournament = await night(url)
    bob, reply = await registered(url, tournament, "Bob", "127.0.0.2")
    secret = reply["secret"]
    assert isinstance(secret, str) and len(secret) >= 16
    ann, told = await registered(url, tournament, "Ann", "127.0.0.3")
    assert "secret" not in told or told["secret"] != secret
    news = await bob.next(lambda m: m["t"] == "tournament" and "Ann" in m["players"])
    assert "secret" not in news  # the others' copies carry none

    mallory = await client_from(url, "127.0.0.4", "Bob")
    taken = await mallory.request("tournament_join", tournament=tournament)
    assert (taken["t"], taken["code"]) == ("error", "name_taken"), taken
    guessed = await mallory.request("tournament_join", tournament=tournament, secret="x" * 32)
    assert guessed["code"] == "name_taken"
    dropped = await mallory.request("tournament_drop", tournament=tournament)
    assert dropped["code"] == "not_registered"

    await bob.close()
    back = await client_from(url, "127.0.0.2", "Bob")  # Bob again, from a new connection
    again = await back.request("tournament_join", tournament=tournament, secret=secret)
    assert again["t"] == "tournament" and again["players"] == ["Bob", "Ann"], again
    assert "secret" not in again  # the one he has still holds
    out = await back.request("tournament_drop", tournament=tournament)
    assert out["t"] == "tournament", out
    await close_all(ann, mallory, back)


@pytest.mark.parametrize("config", [HOSTED], indirect=True)
async def test_a_name_that_passes_for_an_entrys_is_not_registered(url):
    tournament = await night(url)
    lydia, _ = await registered(url, tournament, "Lydia", "127.0.0.2")
    for n, name in enumerate(("LYDIA", "L\u0443dia", "Ly dia")):
        client, reply = await registered(url, tournament, name, f"127.0.0.{3 + n}")
        assert reply.get("code") == "name_taken" and "looks like 'Lydia'" in reply["message"]
        await client.close()
    await lydia.close()


@pytest.mark.parametrize("config", [HOSTED], indirect=True)
async def test_the_start_seats_only_the_players_present(server: GotherServer, url):
    """Places registered and left made the organiser's start seat 20 tables of absent
    players. Those not here at the start are taken off the list; the rest play."""
    host = await Client.connect(url, "Host")
    made = await host.request(
        "tournament_create", name="Night", rounds=1, seats=3, variants=SHORT, password=LEAVE
    )
    tournament = made["id"]
    here = [(await registered(url, tournament, f"P{n}", f"127.0.0.{2 + n}"))[0] for n in range(2)]
    gone = []
    for n in range(6):  # six places from two more addresses, then away
        client, _ = await registered(url, tournament, f"Gone{n}", f"127.0.1.{n // 3}")
        gone.append(client)
    await close_all(*gone)
    started = await host.request("tournament_start", tournament=tournament)
    assert started["t"] == "tournament", started
    assert started["players"] == ["P0", "P1"]
    assert len(started["tables"]) == 1 and started["tables"][0]["players"] == ["P0", "P1"]
    assert len(server.lobby.tables) == 1  # one table, not three
    await close_all(host, *here)


@pytest.mark.parametrize("config", [HOSTED], indirect=True)
async def test_a_start_with_fewer_than_two_players_present_is_refused(url):
    host = await Client.connect(url, "Host")
    made = await host.request(
        "tournament_create", name="Night", rounds=1, seats=3, variants=SHORT, password=LEAVE
    )
    tournament = made["id"]
    here, _ = await registered(url, tournament, "Here", "127.0.0.2")
    away, _ = await registered(url, tournament, "Away", "127.0.0.3")
    await away.close()
    refused = await host.request("tournament_start", tournament=tournament)
    assert refused["code"] == "not_started" and "here" in refused["message"], refused
    after = await host.request("tournament_watch", tournament=tournament)
    assert after["players"] == ["Here", "Away"]  # nobody taken off by a start refused
    await close_all(host, here)
