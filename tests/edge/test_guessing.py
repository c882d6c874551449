"""Guessing a password is slow (server/edge/attempts.py): per address, waits that double after
the first few wrong passwords, refusing unread any try made before the wait is over; per
connection, a few wrong passwords and it is closed. For the server's own password and for
tables' over the websocket, and for the SSH door's password. Table passwords are stored
salted and slow (server/tables/passwords.py), and an older server's hashes still open.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import math
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gother_tui.cli import build_parser
from protocol import PROTOCOL_VERSION
from protocol.view import Variants
from server.doors.ssh import SshFrontDoor, SshOptions
from server.edge.app import CLOSE_GUESSING, GotherServer
from server.edge.attempts import Attempts, Guessing
from server.edge.config import ServerConfig
from server.edge.limits import address_key
from server.game import default_deck_text
from server.store.sqlite import SqliteStore
from server.store.tables import TableRecord
from server.tables.passwords import check_password, hash_password
from server.tokens import hash_secret
from tests.kits.netkit import TIMEOUT, Client, close_all
from tests.kits.sshkit import close, log_in, open_session, read_until

SECRET = "crypt-7"
TOURNAMENT_SECRET = "night-of-ravens"
WAIT = re.compile(r"try again in (\d+) s")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- the rule, on a clock moved by hand ---------------------------------------------------


def test_each_wrong_password_past_the_free_ones_doubles_the_wait():
    clock = FakeClock()
    attempts = Attempts(Guessing(free=2, first_wait=1.0, max_wait=60.0, clock=clock))
    waits = []
    for _ in range(10):
        attempts.failed("192.0.2.7", "vault")
        waits.append(attempts.wait("192.0.2.7", "vault"))
    assert waits == [0, 0, 1, 2, 4, 8, 16, 32, 60, 60]
    clock.now += 59.5
    assert attempts.wait("192.0.2.7", "vault") == pytest.approx(0.5)
    assert attempts.wait("192.0.2.8", "vault") == 0  # another address is not slowed


def test_a_right_password_or_a_long_quiet_starts_that_secrets_count_afresh():
    clock = FakeClock()
    attempts = Attempts(Guessing(clock=clock, forget_after=900.0))
    for _ in range(5):
        attempts.failed("192.0.2.7", "vault")
        attempts.failed("192.0.2.8", "vault")
    attempts.succeeded("192.0.2.7", "vault")
    assert attempts.wait("192.0.2.7", "vault") == 0
    assert attempts.wait("192.0.2.8", "vault") > 0
    clock.now += 900
    assert attempts.wait("192.0.2.8", "vault") == 0
    attempts.failed("192.0.2.8", "vault")  # counted from one again: a free one
    assert attempts.wait("192.0.2.8", "vault") == 0


def test_no_right_password_shortens_the_wait_on_another_secret():
    """The trick that found a 4-digit table password in 25 s: two wrong guesses, then the
    right password of a table of one's own, which wiped the address's count; again."""
    clock = FakeClock()
    attempts = Attempts(Guessing(free=2, clock=clock))
    for _ in range(3):
        attempts.failed("192.0.2.7", "table victim")
    waiting = attempts.wait("192.0.2.7", "table victim")
    assert waiting == 1.0
    attempts.succeeded("192.0.2.7", "table mine")
    attempts.succeeded("192.0.2.7", "server")
    assert attempts.wait("192.0.2.7", "table victim") == waiting
    assert attempts.wait("192.0.2.7", "table mine") == 0  # its own count: never wrong


def test_wrong_passwords_spread_over_many_secrets_count_together():
    clock = FakeClock()
    rules = Guessing(free=2, free_overall=10, clock=clock)
    attempts = Attempts(rules)
    for n in range(10):  # one wrong guess at each of ten tables: typos, free
        attempts.failed("192.0.2.7", f"table {n}")
    assert attempts.wait("192.0.2.7", "table 10") == 0
    attempts.failed("192.0.2.7", "table 10")  # the eleventh: a wait on every secret
    assert attempts.wait("192.0.2.7", "table 11") == rules.first_wait
    attempts.succeeded("192.0.2.7", "table 10")  # no right password resets the overall count
    assert attempts.wait("192.0.2.7", "table 11") == rules.first_wait


@given(
    st.lists(
        st.tuples(st.sampled_from(["victim", "mine", "server", "other"]), st.booleans()),
        min_size=1,
        max_size=200,
    )
)
def test_one_secret_is_looked_at_at_most_once_a_minute_after_the_first_few(plan):
    """Whatever an address does between its guesses (right passwords of its own tables, the
    server's password, wrong ones elsewhere), the secret it guesses is looked at no more than
    once a `max_wait` after the free tries and the doubling waits that reach it."""
    clock = FakeClock()
    rules = Guessing(clock=clock)
    attempts = Attempts(rules)
    looked_at: list[float] = []
    for secret, right in itertools.cycle([*plan, ("victim", False)]):
        if len(looked_at) == 30:
            break
        clock.now += 0.01
        if secret == "victim":  # tried as soon as allowed; its password stays unknown
            clock.now += attempts.wait("192.0.2.7", "victim")
            attempts.failed("192.0.2.7", "victim")
            looked_at.append(clock.now)
        elif right:
            attempts.succeeded("192.0.2.7", secret)
        elif attempts.wait("192.0.2.7", secret) == 0:
            attempts.failed("192.0.2.7", secret)
    ramp = rules.free + math.ceil(math.log2(rules.max_wait / rules.first_wait)) + 1
    steady = looked_at[ramp:]
    gaps = [later - earlier for earlier, later in itertools.pairwise(steady)]
    assert all(gap >= rules.max_wait - 1e-6 for gap in gaps)


def test_an_ipv6_host_counts_as_its_64_and_a_mapped_ipv4_as_itself():
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"


@given(st.lists(st.tuples(st.integers(0, 50), st.floats(0, 120)), max_size=300))
def test_waits_are_capped_and_memory_is_bounded(events):
    clock = FakeClock()
    rules = Guessing(max_addresses=20, clock=clock)
    attempts = Attempts(rules)
    for host, pause in events:
        clock.now += pause
        attempts.failed(f"198.51.100.{host}", f"table {host % 7}")
        assert 0 <= attempts.wait(f"198.51.100.{host}", f"table {host % 7}") <= rules.max_wait
        assert len(attempts) <= rules.max_addresses


# -- over the websocket -------------------------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def guarded(tmp_path, clock) -> AsyncIterator[GotherServer]:
    """A server with a password, its guesses timed by `clock`."""
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        db=str(tmp_path / "games.db"),
        password=SECRET,
        tournament_password=TOURNAMENT_SECRET,
        spectators="all",
        guessing=Guessing(clock=clock),
        pending_per_address=20,  # the burst's 20 guessers connect at once from 127.0.0.1
    )
    server = GotherServer(config)
    await server.start()
    yield server
    await server.close()


async def hello(url: str, password: str | None) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(url)
    fields = {} if password is None else {"password": password}
    return client, await client.request("hello", v=PROTOCOL_VERSION, name="Guess", **fields)


async def closed(client: Client) -> int | None:
    await asyncio.wait_for(client.ws.wait_closed(), TIMEOUT)
    return client.ws.close_code


async def test_three_wrong_server_passwords_close_the_connection(guarded):
    url = f"ws://127.0.0.1:{guarded.port}"
    client, reply = await hello(url, "guess-1")
    assert (reply["t"], reply["code"]) == ("error", "wrong_password")
    reply = await client.request("hello", v=PROTOCOL_VERSION, name="Guess")  # none: wrong too
    assert reply["code"] == "wrong_password"
    reply = await client.request("hello", v=PROTOCOL_VERSION, name="Guess", password="guess-3")
    assert reply["code"] == "wrong_password"  # told why, then closed
    assert await closed(client) == CLOSE_GUESSING
    assert client.ws.close_reason == "too many wrong passwords"


async def test_no_password_is_asked_for_and_a_wrong_one_is_called_wrong_with_its_wait(guarded):
    """The refusal's sentence is what a client shows: none given is a question, a wrong
    one is wrong, and the one that starts a wait says how long."""
    url = f"ws://127.0.0.1:{guarded.port}"
    said = []
    for password in (None, "guess-1", "guess-2"):  # two free, then the third waits 1 s
        client, reply = await hello(url, password)
        said.append((reply["code"], reply["message"]))
        await client.close()
    assert said == [
        ("wrong_password", "this server needs a password"),
        ("wrong_password", "wrong password"),
        ("wrong_password", "wrong password: try again in 1 s"),
    ]


async def test_a_private_table_asks_for_its_password_before_calling_one_wrong(guarded):
    url = f"ws://127.0.0.1:{guarded.port}"
    host, _ = await hello(url, SECRET)
    private = (await host.request("create", name="Vault", seats=3, bots=1, password="1234"))[
        "table"
    ]
    guest, _ = await hello(url, SECRET)
    assert (await guest.request("join", table=private))["message"] == (
        "this table needs a password"
    )
    assert (await guest.request("join", table=private, password="0000"))["message"] == (
        "wrong password for this table"
    )
    await close_all(host, guest)


async def test_a_guessing_address_waits_and_even_the_right_password_is_refused_unread(
    guarded, clock
):
    url = f"ws://127.0.0.1:{guarded.port}"
    for n in range(3):  # two free, then the third makes this address wait 1 s
        client, reply = await hello(url, f"guess-{n}")
        assert reply["code"] == "wrong_password"
        await client.close()
    honest, reply = await hello(url, SECRET)
    assert reply["code"] == "too_many_attempts" and WAIT.search(reply["message"])[1] == "1"
    clock.now += 1.0
    reply = await honest.request("hello", v=PROTOCOL_VERSION, name="Honest", password=SECRET)
    assert reply["t"] == "welcome"
    await honest.close()


async def test_a_burst_of_guesses_gets_three_looked_at(guarded):
    """1,384 guesses a second over 20 connections were all checked once; now, while the
    clock stands still, only the free ones and the one that starts the wait are."""
    url = f"ws://127.0.0.1:{guarded.port}"
    replies = []

    async def guesser(n: int) -> None:
        for i in range(10):
            client, reply = await hello(url, f"guess-{n}-{i}")
            replies.append(reply["code"])
            await client.close()

    await asyncio.gather(*(guesser(n) for n in range(20)))
    assert replies.count("wrong_password") == 3
    assert replies.count("too_many_attempts") == 197


async def test_table_passwords_are_guarded_apart_from_the_servers(guarded, clock):
    url = f"ws://127.0.0.1:{guarded.port}"
    host, _ = await hello(url, SECRET)
    private = (await host.request("create", name="Vault", seats=3, bots=1, password="1234"))[
        "table"
    ]
    guesser, _ = await hello(url, SECRET)
    for pin in ("0000", "0001"):
        assert (await guesser.request("join", table=private, password=pin))["code"] == (
            "wrong_password"
        )
    reply = await guesser.request("watch", table=private, password="0002")
    assert reply["code"] == "wrong_password"
    assert await closed(guesser) == CLOSE_GUESSING  # three on one connection
    again, reply = await hello(url, SECRET)  # the server's password is another matter
    assert reply["t"] == "welcome"
    reply = await again.request("join", table=private, password="1234")
    assert reply["code"] == "too_many_attempts"  # the right one, but too soon
    clock.now += 1.0
    assert (await again.request("join", table=private, password="1234"))["t"] == "joined"
    await close_all(host, again)


async def test_the_right_password_of_ones_own_table_shortens_no_wait_on_anothers(guarded):
    """Guess two PINs of a private table, join a private table of your own with its password
    (the address's count was wiped), leave, repeat: 95 guesses a minute found a 4-digit PIN
    in 25 s. The victim's table keeps its own count."""
    url = f"ws://127.0.0.1:{guarded.port}"
    host, _ = await hello(url, SECRET)
    victim = (await host.request("create", name="Vault", seats=3, bots=1, password="7319"))["table"]
    guesser, _ = await hello(url, SECRET)
    mine = (await guesser.request("create", name="Mine", seats=3, bots=1, password="1111"))["table"]
    said = []
    for pins in (("0000", "0001"), ("0002", "0003"), ("0004", "0005")):
        for pin in pins:
            client, _ = await hello(url, SECRET)  # a new connection: none is closed for it
            said.append((await client.request("join", table=victim, password=pin))["code"])
            await client.close()
        assert (await guesser.request("join", table=mine, password="1111"))["t"] == "joined"
        assert (await guesser.request("leave", table=mine))["t"] == "left"
    assert said == ["wrong_password"] * 3 + ["too_many_attempts"] * 3  # the clock stood still
    await close_all(host, guesser)


async def test_the_servers_password_shortens_no_wait_on_the_tournaments(guarded):
    """Every hello with the server's password (that the club knows) wiped the count of the
    tournaments' password: 135 guesses a minute. Each has a count of its own now."""
    url = f"ws://127.0.0.1:{guarded.port}"
    said = []
    for n in range(6):
        client, reply = await hello(url, SECRET)
        assert reply["t"] == "welcome"
        reply = await client.request(
            "tournament_create", name="Night", rounds=1, seats=3, password=f"guess-{n}"
        )
        said.append(reply["code"])
        await client.close()
    assert said == ["wrong_password"] * 3 + ["too_many_attempts"] * 3
    client, reply = await hello(url, SECRET)  # and the server's password is not held back
    assert reply["t"] == "welcome"
    await client.close()


async def test_an_older_servers_unsalted_hash_opens_its_table_and_is_salted(tmp_path):
    db = str(tmp_path / "games.db")
    store = SqliteStore(db)
    store.tables.save_table(
        TableRecord(
            id="old001", name="Old", seats=3, bot_kind="heuristic", variants=Variants(),
            deck_name="original", deck_toml=default_deck_text(),
            password_hash=hash_secret("velvet"),
            clock=None,
        )
    )  # fmt: skip
    store.close()
    server = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=db))
    await server.start()
    try:
        url = f"ws://127.0.0.1:{server.port}"
        a = await Client.connect(url, "A")
        assert (await a.request("join", table="old001", password="velvet"))["t"] == "joined"
        stored = server.lobby.tables["old001"].password_hash
        assert stored is not None and stored.startswith("scrypt$")
        b = await Client.connect(url, "B")
        assert (await b.request("join", table="old001", password="nope"))["code"] == (
            "wrong_password"
        )
        assert (await b.request("join", table="old001", password="velvet"))["t"] == "joined"
        await close_all(a, b)
    finally:
        await server.close()
    reopened = SqliteStore(db)
    assert reopened.tables.load()[0].password_hash == stored  # kept salted across a restart
    reopened.close()


def test_table_password_hashes_are_salted_and_slow():
    first, second = hash_password("1234"), hash_password("1234")
    assert first != second  # salted: no lookup table finds "1234"
    assert first.startswith("scrypt$16384$8$1$")
    assert check_password("1234", first) == (True, None)
    assert check_password("1235", first) == (False, None)
    ok, better = check_password("1234", hash_secret("1234"))  # an older server's
    assert ok and better is not None and check_password("1234", better)[0]
    assert check_password("1235", hash_secret("1234")) == (False, None)
    salt = b"sixteen byte sal"
    cheap = hashlib.scrypt(b"1234", salt=salt, n=1024, r=8, p=1, dklen=32)  # lower cost
    weak = f"scrypt$1024$8$1${base64.b64encode(salt).decode()}${base64.b64encode(cheap).decode()}"
    ok, better = check_password("1234", weak)
    assert ok and better is not None and better.startswith("scrypt$16384$")


# -- the SSH door -------------------------------------------------------------------------


class Guesser(asyncssh.SSHClient):
    """Offers one password after another on the same connection, as a guesser would."""

    def __init__(self, guesses: list[str]) -> None:
        self.guesses = guesses
        self.asked = 0

    def password_auth_requested(self) -> str | None:
        if self.asked == len(self.guesses):
            return None
        self.asked += 1
        return self.guesses[self.asked - 1]


async def ssh_door(server: GotherServer, tmp_path: Path, guessing: Guessing) -> SshFrontDoor:
    options = SshOptions(
        port=0,
        host_key=tmp_path / "data" / "host_key",
        data_dir=tmp_path / "data",
        password=SECRET,
        guessing=guessing,
    )
    door = SshFrontDoor(options, "127.0.0.1", f"ws://127.0.0.1:{server.port}", server.door_key)
    await door.start()
    return door


async def test_three_wrong_ssh_passwords_end_the_connection(server, tmp_path):
    door = await ssh_door(server, tmp_path, Guessing(free=10))
    try:
        guesser = Guesser([f"guess-{i}" for i in range(1000)])
        with pytest.raises(asyncssh.DisconnectError, match="too many wrong passwords"):
            await asyncssh.connect(
                "127.0.0.1", door.port, username="x", client_factory=lambda: guesser,
                known_hosts=None, agent_path=None, config=[], client_keys=None,
                preferred_auth="password",
            )  # fmt: skip
        assert guesser.asked == 3  # 1,000 could be tried on one connection once
    finally:
        await door.close()


async def test_an_ssh_address_that_guessed_wrong_waits_before_the_next_try(server, tmp_path):
    door = await ssh_door(server, tmp_path, Guessing(free=1, first_wait=2.0, tries=2))
    try:
        began = time.monotonic()  # before the wrong passwords: the wait runs from the last
        with pytest.raises(asyncssh.DisconnectError):
            await asyncssh.connect(
                "127.0.0.1", door.port, username="x", client_factory=lambda: Guesser(["a", "b"]),
                known_hosts=None, agent_path=None, config=[], client_keys=None,
                preferred_auth="password",
            )  # fmt: skip
        conn, process = await open_session(door.port, None, password=SECRET)
        assert time.monotonic() - began >= 2.0  # the right password, looked at 2 s later
        try:
            await read_until(process, re.compile(r"(?i)tables yet"))
        finally:
            await close(conn, process)
        conn = await log_in(door.port, None, password=SECRET)  # a right one starts afresh
        conn.close()
        await conn.wait_closed()
    finally:
        await door.close()


def test_serve_help_states_the_limits_on_guesses(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    rules = Guessing()
    assert f"after {rules.free} each one doubles the wait" in shown
    waits = f"({rules.first_wait:g} s up to {rules.max_wait:g} s)"
    assert f"{waits}; {rules.tries} on one connection close it" in shown
    assert f"after {rules.free_overall} wrong ones of any kind every try waits too" in shown
    assert rules.max_wait == 60 and "at most one guess a minute at any password" in shown
