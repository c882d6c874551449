"""Bounded by design (Principle 7, issue 13 items 6 and 7), over real websockets on
127.0.0.1: quotas for tables and seats, tables nobody is at leave the live ones, slots for
connections that never say hello, a byte budget per connection's outbox, a paginated
listing, a repeated watch that costs nothing, a chat replay bounded in bytes.
Loopback is capped like any address (issue 18), so these caps are met from 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import resource
import socket

import pytest
from websockets.asyncio.client import connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, encode, server_messages
from protocol.constants import LIST_PAGE, NAME_MAX
from protocol.view import Variants
from server.edge.app import CLOSE_POLICY, CLOSE_TRY_LATER, REFUSALS_LOGGED
from server.edge.limits import ACCEPT_LOG_EVERY, FD_RESERVE, AcceptLog, descriptor_budget
from server.tables.table import CHAT_REPLAY_BYTES
from tests.kits.netkit import TIMEOUT, Client, close_all, play_to_end
from tests.kits.poll import until
from tests.kits.tablekit import FakeClock

WIDE_CHAR = "\U0001d50a"  # a letter of 4 bytes in UTF-8 (mathematical fraktur G)
WIDE = WIDE_CHAR * NAME_MAX  # the widest name: 24 characters of 4 bytes each


async def closed_with(client: Client) -> int | None:
    await asyncio.wait_for(client._reader, TIMEOUT)
    return client.ws.close_code


async def seated(url: str, table: str, name: str, seat: int | None = None) -> Client:
    client = await Client.connect(url, name)
    fields = {} if seat is None else {"seat": seat}
    joined = await client.request("join", table=table, **fields)
    assert joined["t"] == "joined", joined
    return client


# -- quotas -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config", [{"tables_per_connection": 2, "tables_per_address": 3}],
    indirect=True,
)  # fmt: skip
async def test_creating_tables_has_a_quota_per_connection_and_per_address(server, url):
    first = await Client.connect(url, "First")
    for _ in range(2):
        assert (await first.request("create", name="Mine", seats=3, bots=0))["t"] == "created"
    over = await first.request("create", name="Mine", seats=3, bots=0)
    assert over["t"] == "error" and over["code"] == "too_many_tables", over
    assert "connection" in over["message"]
    second = await Client.connect(url, "Second")  # same address, its own connection
    assert (await second.request("create", name="Mine", seats=3, bots=0))["t"] == "created"
    over = await second.request("create", name="Mine", seats=3, bots=0)
    assert over["t"] == "error" and over["code"] == "too_many_tables", over
    assert "address" in over["message"]
    assert len(server.lobby.tables) == 3
    await close_all(first, second)


@pytest.mark.parametrize("config", [{"seats_per_connection": 2}], indirect=True)
async def test_one_connection_cannot_squat_seats_at_table_after_table(server, url):
    host = await Client.connect(url, "Host")
    tables = [
        (await host.request("create", name="Squat", seats=3, bots=0))["table"] for _ in range(3)
    ]
    squatter = await Client.connect(url, "Squatter")
    for table in tables[:2]:  # each join leaves the seat before it away, but still held
        assert (await squatter.request("join", table=table))["t"] == "joined"
    refused = await squatter.request("join", table=tables[2])
    assert refused["t"] == "error" and refused["code"] == "too_many_seats", refused
    assert all(s is None for s in server.lobby.tables[tables[2]].seats)
    assert (await squatter.request("leave"))["t"] == "left"  # giving one up frees the quota
    assert (await squatter.request("join", table=tables[2]))["t"] == "joined"
    await close_all(host, squatter)


# -- tables nobody is at -----------------------------------------------------------------


@pytest.mark.parametrize("config", [{"expire": 0.0}], indirect=True)
async def test_tables_nobody_is_at_leave_the_live_tables_and_keep_their_records(server, url):
    host = await Client.connect(url, "Host")
    empty = (await host.request("create", name="Empty", seats=3, bots=0))["table"]
    done = (await host.request("create", name="Done", seats=3, bots=2))["table"]
    busy = (await host.request("create", name="Busy", seats=3, bots=0))["table"]
    player = await seated(url, done, "Player", seat=0)  # the table is full: it deals
    await play_to_end(player)
    stays = await seated(url, busy, "Stays")
    await player.close()
    await host.close()
    # the sweep runs every minute; here it is called at once (expire is 0 s)
    server.sweep()
    assert set(server.lobby.tables) == {busy}
    db = server.store.database.connection
    assert db.execute("SELECT archived FROM tables WHERE id = ?", (done,)).fetchone() == (1,)
    assert db.execute("SELECT 1 FROM tables WHERE id = ?", (empty,)).fetchone() is None
    assert (
        db.execute("SELECT token_hash FROM seats WHERE table_id = ?", (done,)).fetchall()
        == [(None,)] * 3
    )  # no token of an archived table works
    # the finished game's record is still there, over the protocol
    reply = await stays.request("record", table=done)
    assert reply["t"] == "record" and reply["part"] == 0, reply
    # a live table does not count an archived one
    fresh = await Client.connect(url, "Fresh")
    listing = await fresh.request("list")
    assert [row["id"] for row in listing["tables"]] == [busy] and listing["total"] == 1
    await close_all(stays, fresh)


@pytest.mark.parametrize("config", [{"expire": 0.0, "grace": 60.0}], indirect=True)
async def test_a_game_everyone_left_is_archived_as_abandoned(server, url):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Gone", seats=3, bots=1))["table"]
    players = [await seated(url, table, f"P{seat}", seat) for seat in range(2)]
    await players[0].state(lambda v: v["phase"] != "lobby")
    await close_all(host, *players)
    await until("nobody at the table", lambda: not server.lobby.tables[table].listeners())
    server.sweep()
    assert table not in server.lobby.tables
    assert server.store.tables.ended(table, 1) == "abandoned"


# -- connection slots ---------------------------------------------------------------------


@pytest.mark.parametrize("config", [{"hello_timeout": 0.3}], indirect=True)
async def test_a_connection_that_never_says_hello_loses_its_slot(server, url):
    silent = await Client.connect(url)
    assert await closed_with(silent) == CLOSE_POLICY
    assert "hello" in (silent.ws.close_reason or "")
    talker = await Client.connect(url, "Talker")  # one that says hello in time stays
    assert (await talker.request("list"))["t"] == "tables"
    await talker.close()


@pytest.mark.parametrize("config", [{"max_pending": 2, "hello_timeout": 1.0}], indirect=True)
async def test_connections_before_hello_have_a_budget_of_their_own(server, url):
    honest = await Client.connect(url, "Honest")  # said hello: not in that budget
    idle = [await Client.connect(url) for _ in range(2)]
    await until("two connections before hello", lambda: server.pending == 2)
    third = await Client.connect(url)  # its place is the oldest one's: the budget holds
    assert await closed_with(idle[0]) == CLOSE_TRY_LATER
    assert server.pending == 2
    assert (await honest.request("list"))["t"] == "tables"
    for client in (idle[1], third):  # the hello deadline frees their slots
        assert await closed_with(client) == CLOSE_POLICY
    later = await Client.connect(url, "Later")
    assert (await later.request("list"))["t"] == "tables"
    await close_all(honest, later)


@pytest.mark.parametrize("config", [{"max_per_address": 2}], indirect=True)
async def test_connections_from_one_address_are_capped(server, url):
    two = [await Client.connect(url, f"C{i}") for i in range(2)]
    third = await Client.connect(url)
    assert await closed_with(third) == CLOSE_TRY_LATER
    assert "address" in (third.ws.close_reason or "")
    await two[0].close()
    await until("one connection", lambda: len(server.connections) == 1)
    again = await Client.connect(url, "Again")
    assert (await again.request("list"))["t"] == "tables"
    await close_all(two[1], again)


# -- bytes, not frames --------------------------------------------------------------------


@pytest.mark.parametrize(
    "config", [{"rate": 1e6, "burst": 1e6, "chat_rate": 1e6, "chat_burst": 1e6}], indirect=True
)
async def test_a_reader_that_never_reads_is_cut_off_at_its_byte_budget(server, url, caplog):
    from server.edge import connection

    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Talky", seats=3, bots=0))["table"]
    assert (await host.request("watch", table=table))["t"] == "watching"
    # a watcher whose client stops reading after one queued frame, on a small socket buffer
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    sleeper = await connect(url, sock=sock, max_size=MAX_FRAME, compression=None, max_queue=1)
    await sleeper.send(encode({"t": "hello", "v": PROTOCOL_VERSION, "name": "Sleeper"}))
    await sleeper.send(encode({"t": "watch", "table": table}))
    await until("two spectators", lambda: len(server.lobby.tables[table].spectators) == 2)
    conn = next(c for c in server.connections if c.name == "Sleeper")
    line = WIDE_CHAR * 280  # the widest line: 1,120 bytes
    peak = 0
    for sent in range(1, 100_000):
        await host.send("chat", text=line)
        peak = max(peak, conn.queued)
        if conn.dropped:
            break
        if sent % 200 == 0:
            await host.next(lambda m: m["t"] == "chat")  # the honest watcher keeps up
    assert conn.dropped, "never dropped"
    assert peak <= connection.OUTBOX_BYTES
    await until("the connection gone", lambda: conn not in server.connections)
    drops = [r for r in caplog.records if "reads too slowly" in r.getMessage()]
    assert len(drops) == 1 and drops[0].levelno == logging.WARNING
    await host.request("list")  # the server and the honest watcher are fine
    await host.close()
    await sleeper.close()


def test_the_widest_page_of_the_listing_fits_in_one_frame():
    row = server_messages.TableRow(
        id="w" * 32,
        name=WIDE,
        seats=6,
        seated=6,
        free=0,
        bots=0,
        players=(WIDE,) * 6,
        phase="discard_fate",
        started=True,
        spectators=10_000,
        password=True,
        variants=Variants(round_cap=1000, two_or_six=True),
        deck="d" * 64,
        broken="b" * 200,
    )
    page = server_messages.Tables(
        tables=(row,) * LIST_PAGE, offset=100_000, total=100_000, rid=2**31 - 1
    )
    assert len(encode(page)) < MAX_FRAME


@pytest.mark.parametrize(
    "config",
    [
        {
            "max_tables": 500,
            "tables_per_connection": 500,
            "tables_per_address": 500,  # one host, from 127.0.0.1
            **{"rate": 1e6, "burst": 1e6, "costly_rate": 1e6, "costly_burst": 1e6},
        }
    ],
    indirect=True,
)
async def test_the_listing_comes_in_pages_that_each_fit_in_a_frame(server, url):
    host = await Client.connect(url, "Host")
    made = set()
    for _ in range(LIST_PAGE * 2 + 20):
        made.add((await host.request("create", name=WIDE, seats=3, bots=0))["table"])
    seen: list[str] = []
    offset = 0
    while True:
        reply = await host.request("list", offset=offset)
        assert reply["t"] == "tables" and reply["total"] == len(made)
        assert reply.get("offset", 0) == offset  # left out when 0
        assert len(host.raw[-1]) < MAX_FRAME
        seen += [row["id"] for row in reply["tables"]]
        if len(reply["tables"]) < LIST_PAGE:
            break
        offset += LIST_PAGE
    assert len(seen) == len(set(seen)) and set(seen) == made
    await host.close()


async def test_a_repeated_watch_changes_nothing_and_replays_nothing(server, url):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Seen", seats=3, bots=0))["table"]
    player = await seated(url, table, "Player")
    await player.send("chat", text="hello")
    await player.next(lambda m: m["t"] == "chat")
    watcher = await Client.connect(url, "Watcher")
    first = await watcher.request("watch", table=table)
    assert first["t"] == "watching" and len(first["cards"]) == 55
    await watcher.next(lambda m: m["t"] == "state")
    mark = len(watcher.received)
    again = await watcher.request("watch", table=table)
    assert again["t"] == "watching" and again["cards"] == []
    marker = await watcher.request("list")
    between = watcher.received[mark : watcher.received.index(marker)]
    assert [m["t"] for m in between] == ["watching"]  # no chat replay, no state
    await close_all(host, player, watcher)


@pytest.mark.parametrize("config", [{"chat_rate": 1e6, "chat_burst": 1e6}], indirect=True)
async def test_the_chat_replayed_to_a_newcomer_is_bounded_in_bytes(server, url):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Chatty", seats=3, bots=0))["table"]
    player = await seated(url, table, "Player")
    for i in range(50):
        await player.send("chat", text=f"{i:02d}" + WIDE_CHAR * 278)
    await until("50 chat lines kept", lambda: len(server.lobby.tables[table].chat) == 50)
    watcher = await Client.connect(url, "Watcher")
    await watcher.request("watch", table=table)
    await watcher.next(lambda m: m["t"] == "state")
    replayed = [m["text"] for m in watcher.received if m["t"] == "chat"]
    size = sum(len(text.encode()) + len("Player") for text in replayed)
    assert 0 < size <= CHAT_REPLAY_BYTES
    assert replayed[-1].startswith("49")  # the newest lines, in order
    assert [int(t[:2]) for t in replayed] == list(range(50 - len(replayed), 50))
    await close_all(host, player, watcher)


# -- descriptors and the accept log --------------------------------------------------------


def test_failing_accepts_are_logged_once_a_minute_with_a_count(caplog):
    clock = FakeClock()
    handler = AcceptLog(clock)
    loop = asyncio.new_event_loop()
    try:
        failure = {"message": "socket.accept() out of system resource", "exception": OSError(24)}
        for _ in range(500):  # a flood of half-open handshakes at the descriptor limit
            handler(loop, failure)
            clock.advance(0.05)
        lines = [r.getMessage() for r in caplog.records if "cannot accept" in r.getMessage()]
        assert len(lines) == 1  # 25 s of failures: one line
        clock.advance(ACCEPT_LOG_EVERY)
        handler(loop, failure)
        lines = [r.getMessage() for r in caplog.records if "cannot accept" in r.getMessage()]
        assert len(lines) == 2 and "499 more" in lines[1]
    finally:
        loop.close()


def test_the_connection_limit_keeps_a_reserve_of_descriptors():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        allowed = descriptor_budget(10**9, 100)
        now_soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert now_soft >= soft  # raised towards the hard limit, never lowered
        assert allowed == now_soft - FD_RESERVE - 100
        assert descriptor_budget(50, 100) == 50  # a smaller wish is kept as it is
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_a_connection_s_refusals_cost_the_log_a_few_lines(server, url, caplog):
    """Each of the first REFUSALS_LOGGED refusals is a line; the rest are counted in the
    line that says the connection closed: a flood of bad requests cannot fill the host's
    disk with log lines (a fuzz's 100,000 refusals were as many lines)."""
    caplog.set_level(logging.INFO, "gother.server")
    client = await Client.connect(url, "Noisy")
    for _ in range(REFUSALS_LOGGED + 20):
        assert (await client.request("leave"))["code"] == "not_seated"
    await client.close()
    closed = "connection closed: Noisy@"

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if "Noisy@" in r.getMessage()]

    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not any(closed in line for line in said()):
        assert asyncio.get_running_loop().time() < deadline, said()
        await asyncio.sleep(0.01)
    lines = said()
    assert sum("not_seated" in line for line in lines) == REFUSALS_LOGGED, lines
    assert lines[-1].endswith("(20 more refusals, not logged)"), lines
