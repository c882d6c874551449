"""Caps by address (issue 17 item 4): connections before hello are bounded per address, so
a few addresses reopening as the hello deadline closes them cannot hold every place; and
every cap counts an IPv6 address by its /64 (`limits.address_key`), so one host's 2^64
addresses are one address. Real sockets on 127.0.0.x (the whole of 127/8 is this host's)
and on ::1; for /64 grouping, which loopback cannot show, the key and the caps using it.
Loopback is capped like any address (issue 18: a local process is one address)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from protocol import MAX_FRAME
from server.edge import connection
from server.edge.app import CLOSE_TRY_LATER, GotherServer
from server.edge.caps import Caps
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.limits import address_key
from server.ratelimit import TokenBucket
from tests.kits.netkit import TIMEOUT, Client, close_all


async def client_from(url: str, source: str, name: str | None = None) -> Client:
    """A client whose socket comes from `source`, one of this host's loopback addresses."""
    ws = await connect(url, max_size=MAX_FRAME, compression=None, local_addr=(source, 0))
    client = Client(ws)
    if name is not None:
        reply = await client.request("hello", v=1, name=name)
        assert reply["t"] == "welcome", reply
    return client


async def closed_with(client: Client) -> int | None:
    await asyncio.wait_for(client._reader, TIMEOUT)
    return client.ws.close_code


def still_open(client: Client) -> bool:
    return client.ws.close_code is None and not client._reader.done()


# -- connections before hello, over real sockets -------------------------------------------


async def test_four_addresses_cannot_hold_every_place_before_hello(server: GotherServer, url):
    """The issue's case: four addresses each opening more than they may and never saying
    hello. Each keeps a few places (4 by default), the rest are turned away at once, and a
    newcomer from a fifth address gets in."""
    per_address = server.config.pending_per_address
    silent = {
        source: [await client_from(url, source) for _ in range(per_address + 3)]
        for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
    }
    for clients in silent.values():
        for extra in clients[per_address:]:
            assert await closed_with(extra) == CLOSE_TRY_LATER
            assert "your address" in (extra.ws.close_reason or "")
        assert all(still_open(c) for c in clients[:per_address])
    assert server.pending == 4 * per_address < server.config.max_pending
    newcomer = await client_from(url, "127.0.0.6", "Newcomer")
    assert (await newcomer.request("list"))["t"] == "tables"
    await close_all(newcomer, *(c for clients in silent.values() for c in clients))


@pytest.mark.parametrize("config", [{"hello_timeout": 60.0}], indirect=True)  # a slow machine
async def test_when_every_place_before_hello_is_held_a_newcomer_turns_out_a_crowding_one(
    server: GotherServer, url
):
    """26 addresses x 4 connections that never say hello held all 100 places (their
    reopenings kept an honest newcomer out 19 times in 22). Now a newcomer takes the
    place of the oldest connection of an address holding the most, and says hello."""
    places = server.config.max_pending
    sources = [f"127.0.0.{n}" for n in range(2, 28)]  # 26 addresses
    silent = [await client_from(url, source) for source in sources for _ in range(4)]
    assert len(silent) == places + 4
    gone = await closed(silent, 4)  # each one past the 100th turned an older one out
    assert server.pending == places
    for n in range(3):  # newcomers keep getting in while the silent hold every place
        newcomer = await client_from(url, f"127.0.1.{n}", f"Newcomer{n}")
        assert (await newcomer.request("list"))["t"] == "tables"
        await newcomer.close()
        silent.append(await client_from(url, f"127.0.2.{n}"))  # the attack takes it again
        assert server.pending == places
    gone = await closed(silent, 4 + 3)  # one of theirs for each newcomer
    assert {c.ws.close_code for c in gone} == {CLOSE_TRY_LATER}
    await close_all(*silent)


async def closed(clients: list[Client], count: int) -> list[Client]:
    """Once `count` of `clients` are closed (no more): those."""
    readers = {c._reader: c for c in clients}
    async with asyncio.timeout(TIMEOUT):
        while sum(r.done() for r in readers) < count:
            await asyncio.wait([r for r in readers if not r.done()], return_when="FIRST_COMPLETED")
    done = [c for r, c in readers.items() if r.done()]
    assert len(done) == count
    return done


def test_the_place_to_free_is_the_oldest_of_the_address_holding_the_most():
    caps = Caps(overall=6, address=4)
    for thing, host in enumerate(["a", "b", "b", "c", "b", "c"]):
        assert caps.admit(thing, address=host) is None
    assert caps.crowding("address") == 1  # "b" holds three: its oldest
    caps.release(1)
    caps.release(2)  # now "b" and "c" hold two each: the oldest of them
    assert caps.crowding("address") == 3
    assert Caps(overall=2, address=1).crowding("address") is None


@pytest.mark.parametrize("config", [{"pending_per_address": 2}], indirect=True)
async def test_saying_hello_gives_the_address_its_place_before_hello_back(
    server: GotherServer, url
):
    first = await client_from(url, "127.0.0.2")
    second = await client_from(url, "127.0.0.2")
    assert server.pending == 2
    third = await client_from(url, "127.0.0.2")
    assert await closed_with(third) == CLOSE_TRY_LATER
    assert (await first.request("hello", v=1, name="First"))["t"] == "welcome"
    assert server.pending == 1
    fourth = await client_from(url, "127.0.0.2", "Fourth")  # in the place `first` gave back
    await second.close()  # closing before hello gives its place back too
    assert server.pending == 0
    assert (await fourth.request("list"))["t"] == "tables"
    await close_all(first, fourth)


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback here")
@pytest.mark.parametrize("config", [{"host": "::1", "pending_per_address": 1}], indirect=True)
async def test_over_ipv6_the_place_before_hello_is_counted_by_the_64(server: GotherServer):
    url = f"ws://[::1]:{server.port}"
    silent = await Client.connect(url)
    assert server.pending == 1
    assert set(server.before_hello.counts["address"]) == {"::/64"}
    turned_away = await Client.connect(url)
    assert await closed_with(turned_away) == CLOSE_TRY_LATER
    await silent.close()


# -- the address key and the caps counting by it --------------------------------------------


def test_the_address_key_is_an_ipv4_address_or_an_ipv6_64():
    assert address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"  # a mapped IPv4 is itself
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:DB8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_key("/run/gother.sock") == "/run/gother.sock"  # not an IP: as it is


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_every_address_of_a_64_has_its_key_and_no_other_does(prefix, low, other_low):
    block = ipaddress.IPv6Address(((prefix or 1) << 64) | low)  # not ::/64's odd addresses
    same = ipaddress.IPv6Address(((prefix or 1) << 64) | other_low)
    neighbour = ipaddress.IPv6Address((((prefix or 1) ^ 1) << 64) | low)
    assert address_key(str(block)) == address_key(str(same))
    assert address_key(str(block)) != address_key(str(neighbour))


def test_caps_labelled_by_the_key_count_a_64_as_one_address():
    caps = Caps(overall=10, address=2)
    for n, host in enumerate(["2001:db8:1:2::1", "2001:db8:1:2:aaaa::2"]):
        assert caps.admit(n, address=address_key(host)) is None
    assert caps.admit(2, address=address_key("2001:db8:1:2:ffff::3")) == "address"
    assert caps.admit(3, address=address_key("2001:db8:1:3::1")) is None  # the next /64


@dataclass(eq=False)
class Dialled:
    """What the server's admission reads of a connection: where it comes from."""

    address: str

    @property
    def address_key(self) -> str:
        return address_key(self.address)


async def test_the_server_s_connection_caps_count_an_ipv6_64_as_one_address(tmp_path):
    """Admission (`_refusal`) and the connections per address, for addresses loopback
    cannot give: one host's /64 gets its caps once, whichever addresses of it it uses."""
    config = ServerConfig(db=str(tmp_path / "games.db"), pending_per_address=3)
    server = GotherServer(config)
    try:
        host = [Dialled(f"2001:db8:1:2::{n:x}") for n in range(1, 5)]
        assert [server._refusal(c) for c in host[:3]] == [None, None, None]  # type: ignore[arg-type]
        refused = server._refusal(host[3])  # type: ignore[arg-type]
        assert refused is not None and "your address" in refused
        assert server._refusal(Dialled("2001:db8:1:3::1")) is None  # type: ignore[arg-type]
        server.by_address[address_key("2001:db8:1:2::1")] = config.max_per_address
        full = server._refusal(Dialled("2001:db8:1:2:ffff::9"))  # type: ignore[arg-type]
        assert full is not None and f"at most {config.max_per_address}" in full
    finally:
        server.store.close()


def test_a_connection_parses_its_address_once_and_again_only_for_a_claim(monkeypatch):
    """Every cap and quota asks the connection for its key (a join counts seats by it):
    the address is parsed once, not at each ask, and a door's claim is keyed afresh."""
    parsed: list[str] = []

    def counted(address: str) -> str:
        parsed.append(address)
        return address_key(address)

    monkeypatch.setattr(connection, "address_key", counted)
    socket_of = SimpleNamespace(remote_address=("2001:db8:1:2::1", 5000))
    bucket = TokenBucket(1.0, 1.0)
    conn = Connection(socket_of, bucket, bucket, bucket)  # type: ignore[arg-type]
    assert [conn.address_key for _ in range(5)] == ["2001:db8:1:2::/64"] * 5
    assert parsed == ["2001:db8:1:2::1"]
    conn.claimed = "::ffff:192.0.2.7"
    assert [conn.address_key for _ in range(3)] == ["192.0.2.7"] * 3
    assert parsed == ["2001:db8:1:2::1", "::ffff:192.0.2.7"]
