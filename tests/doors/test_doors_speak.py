"""Doors speak for their players (issue 18 item 1): a door's claim of its player's address,
signed with the server's door key (server/edge/doorkey.py) and sent in the opening handshake
(the Gother-Door header), makes that address the player's for every cap, quota and
password wait; a claim the server's doors did not sign is refused `bad_door` and changes
nothing; and loopback, where a local process and the doors dial from, is one address like
any other. Over real websockets on 127.0.0.1; the claims are made with the test server's
own key, as its doors make them."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, ProtocolError
from protocol.constants import DOOR_HEADER
from server.edge.app import CLOSE_TRY_LATER, SERVER, GotherServer
from server.edge.doorkey import CLAIM_LIFE, DoorKey
from server.game import SPECTATOR
from tests.kits.netkit import TIMEOUT, Client, close_all

SECRET = "crypt-7"
PLAYERS = 12  # the LAN door: more than the 10 tables one address may keep


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def opened_with(url: str, claim: str) -> Client:
    """A connection opened as a door's client opens it: with the door's claim."""
    headers = {DOOR_HEADER: claim}
    return Client(
        await connect(url, max_size=MAX_FRAME, compression=None, additional_headers=headers)
    )


async def door_player(server: GotherServer, url: str, name: str, address: str, **hello) -> Client:
    """A door's client whose door says its player is at `address`, welcomed."""
    client = await opened_with(url, server.door_key.claim(address))
    reply = await client.request("hello", v=PROTOCOL_VERSION, name=name, **hello)
    assert reply["t"] == "welcome", reply
    return client


def of(server: GotherServer, name: str):
    (conn,) = [c for c in server.connections if c.name == name]
    return conn


# -- the claim itself ------------------------------------------------------------------------


def test_a_claim_vouches_for_its_address_until_it_expires():
    clock = Clock()
    key = DoorKey(clock=clock)
    claim = key.claim("192.0.2.7")
    assert key.verify(claim) == "192.0.2.7"
    clock.now += CLAIM_LIFE - 1
    assert key.verify(claim) == "192.0.2.7"
    clock.now += 1
    with pytest.raises(ProtocolError) as refused:
        key.verify(claim)
    assert refused.value.code == "bad_door"


def test_another_servers_key_vouches_for_nothing():
    with pytest.raises(ProtocolError) as refused:
        DoorKey().verify(DoorKey().claim("192.0.2.7"))
    assert refused.value.code == "bad_door"


@given(
    st.ip_addresses().map(str),
    st.integers(0, 200),
    st.characters(categories=["Nd", "L", "P", "No"]),
)
def test_a_claim_changed_anywhere_is_refused(address, at, char):
    key = DoorKey()
    claim = key.claim(address)
    at %= len(claim)
    changed = claim[:at] + char + claim[at + 1 :]
    if changed == claim:
        return
    with pytest.raises(ProtocolError) as refused:
        key.verify(changed)
    assert refused.value.code == "bad_door"


def test_a_door_cannot_claim_what_is_not_an_address():
    with pytest.raises(ValueError):
        DoorKey().claim("?")


# -- a plain client cannot claim an address --------------------------------------------------


@pytest.mark.parametrize(
    "forged",
    [
        "10.0.0.9|99999999999|" + "0" * 64,  # a signature made up
        "a b c",  # not even a claim's shape
        "10.0.0.9|²|" + "0" * 64,  # a digit int() does not read
        "10.0.0.9|99999999999|é",  # not ASCII
    ],
)
async def test_a_forged_claim_is_refused_and_changes_nothing(server: GotherServer, url, forged):
    forger = await opened_with(url, forged)
    reply = await forger.request("hello", v=PROTOCOL_VERSION, name="Forger")
    assert reply["t"] == "error" and reply["code"] == "bad_door", reply
    assert reply["message"] == "only this server's own doors may say where a player is"
    assert server.pending == 1  # no hello said: still waiting, at its own address
    assert dict(server.by_address) == {"127.0.0.1": 1}
    again = await forger.request("hello", v=PROTOCOL_VERSION, name="Forger")
    assert again["code"] == "bad_door", again  # that connection's word stays false
    honest = await Client.connect(url, "Forger")  # a new one, saying nothing of doors
    conn = of(server, "Forger")
    assert conn.claimed is None and conn.address == "127.0.0.1"
    await close_all(forger, honest)


async def test_a_claim_signed_for_another_address_is_refused(server: GotherServer, url):
    stolen = server.door_key.claim("10.0.0.8").replace("10.0.0.8", "10.0.0.9", 1)
    forger = await opened_with(url, stolen)
    reply = await forger.request("hello", v=PROTOCOL_VERSION, name="Forger")
    assert reply["code"] == "bad_door", reply
    await close_all(forger)


async def test_two_door_headers_are_refused_as_no_doors(server: GotherServer, url):
    """Two `Gother-Door` headers closed the connection with a MultipleValuesError
    traceback; now they are a claim no door made, even when one of them is signed."""
    signed = server.door_key.claim("198.51.100.7")
    ws = await connect(
        url, max_size=MAX_FRAME, additional_headers=[(DOOR_HEADER, signed), (DOOR_HEADER, signed)]
    )
    forger = Client(ws)
    reply = await forger.request("hello", v=PROTOCOL_VERSION, name="Forger")
    assert (reply["code"], reply["message"]) == ("bad_door", "a door says where a player is once")
    assert dict(server.by_address) == {"127.0.0.1": 1}  # at its own address
    assert (await forger.request("hello", v=PROTOCOL_VERSION, name="F"))["code"] == "bad_door"
    await close_all(forger)


# -- the player's address is the one every cap counts ----------------------------------------


async def test_twelve_players_of_one_door_each_create_and_join_a_table(server: GotherServer, url):
    """From one door (all on 127.0.0.1), each player is at an address of its own: all 12
    create a table and sit at it, where one address may keep only 10 tables open."""
    assert server.config.tables_per_address < PLAYERS
    players = [
        await door_player(server, url, f"P{i}", f"192.0.2.{i}") for i in range(1, PLAYERS + 1)
    ]
    for i, player in enumerate(players, 1):
        created = await player.request("create", name=f"T{i}", seats=3, bots=0)
        assert created["t"] == "created", created
        joined = await player.request("join", table=created["table"])
        assert joined["t"] == "joined" and joined["seat"] != SPECTATOR, joined
    assert {a for _, a in server.lobby.creators.values()} == {
        f"192.0.2.{i}" for i in range(1, PLAYERS + 1)
    }
    assert dict(server.by_address) == {f"192.0.2.{i}": 1 for i in range(1, PLAYERS + 1)}
    await close_all(*players)


async def test_loopback_is_one_address_like_any_other(server: GotherServer, url):
    """The same 11 tables from plain clients on 127.0.0.1: the 11th is refused."""
    per_address = server.config.tables_per_address
    locals_ = [await Client.connect(url, f"L{i}") for i in range(per_address + 1)]
    for i, client in enumerate(locals_[:per_address]):
        created = await client.request("create", name=f"T{i}", seats=3, bots=0)
        assert created["t"] == "created", created
    refused = await locals_[-1].request("create", name="One more", seats=3, bots=0)
    assert refused["t"] == "error" and refused["code"] == "too_many_tables", refused
    assert refused["message"] == f"one address may keep at most {per_address} tables open"
    await close_all(*locals_)


@pytest.mark.parametrize("config", [{"max_per_address": 2}], indirect=True)
async def test_a_players_connections_are_capped_at_their_own_address(server: GotherServer, url):
    first = await door_player(server, url, "A1", "198.51.100.4")
    second = await door_player(server, url, "A2", "198.51.100.4")
    third = await opened_with(url, server.door_key.claim("198.51.100.4"))
    await asyncio.wait_for(third._reader, TIMEOUT)  # closed by the server
    assert third.ws.close_code == CLOSE_TRY_LATER
    assert third.ws.close_reason == "at most 2 connections from one address"
    other = await door_player(server, url, "B1", "198.51.100.5")  # another player: room
    local = await Client.connect(url, "Local")  # and the door's own address is apart
    assert dict(server.by_address) == {"198.51.100.4": 2, "198.51.100.5": 1, "127.0.0.1": 1}
    await close_all(first, second, other, local)
    assert dict(server.by_address) == {}


async def test_a_local_process_waiting_before_hello_does_not_keep_door_players_out(
    server: GotherServer, url
):
    """The door's clients dial from 127.0.0.1; a local process holding every place
    127.0.0.1 may have before hello turns away other local connections, not them."""
    silent = [await Client.connect(url) for _ in range(server.config.pending_per_address)]
    turned_away = await Client.connect(url)
    await asyncio.wait_for(turned_away._reader, TIMEOUT)  # closed by the server
    assert turned_away.ws.close_code == CLOSE_TRY_LATER
    players = [await door_player(server, url, f"D{i}", f"192.0.2.{i}") for i in range(1, 6)]
    assert {of(server, f"D{i}").address for i in range(1, 6)} == {
        f"192.0.2.{i}" for i in range(1, 6)
    }
    await close_all(*silent, *players)


@pytest.mark.parametrize("config", [{"password": SECRET}], indirect=True)
async def test_guesses_from_a_local_process_do_not_slow_a_door_player(server: GotherServer, url):
    """A local process guessing the server's password is made to wait at 127.0.0.1, its
    address; a door player (whose door dials from there too) gets in at once."""
    free = server.config.guessing.free
    guessers = []
    for i in range(free + 1):  # past the free ones: 127.0.0.1 must wait
        guesser = await Client.connect(url)
        wrong = await guesser.request("hello", v=PROTOCOL_VERSION, name=f"G{i}", password="no")
        assert wrong["code"] == "wrong_password", wrong
        guessers.append(guesser)
    assert server.guesses.wait("127.0.0.1", SERVER) > 0
    door = await door_player(server, url, "Lydia", "203.0.113.5", password=SECRET)
    assert of(server, "Lydia").address == "203.0.113.5"
    local = await Client.connect(url)
    reply = await local.request("hello", v=PROTOCOL_VERSION, name="Local", password=SECRET)
    assert reply["code"] == "too_many_attempts", reply  # the right password waits its turn
    await close_all(door, local, *guessers)
