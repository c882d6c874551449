"""A real `gother serve --db postgresql://…` (the installed console script, its table log a
file of its own): a game played to its end shows in the standings, and a second process of
the same host, with a log of its own, rates it from PostgreSQL and gives out its record, as
`gother export` does; killed mid-game, a process comes back with its tables from its log."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from gother_tui.core.record import parse_record
from protocol import PROTOCOL_VERSION
from tests.kits.netkit import Client, close_all, first_legal_move
from tests.kits.poll import until
from tests.kits.prockit import ServerProcess, run_cli
from tests.kits.standingskit import finished_game

pytestmark = pytest.mark.usefixtures("postgres")


@pytest.fixture
async def processes():
    started: list[ServerProcess] = []

    async def start(*args: str) -> ServerProcess:
        started.append(await ServerProcess.start("--bot-delay", "0", *args))
        return started[-1]

    try:
        yield start
    finally:
        for process in started:
            await process.stop()


async def record_of(url: str, table: str) -> bytes:
    asker = await Client.connect(url, "Reader")
    first = await asker.request("record", table=table)
    assert first["t"] == "record", first
    parts = [first["data"]]
    for part in range(1, first["parts"]):
        parts.append((await asker.request("record", table=table, part=part))["data"])
    await asker.close()
    return b"".join(parts)


async def test_a_game_played_on_a_postgresql_host_is_the_whole_hosts(processes, pg_url, tmp_path):
    one = await processes("--db", pg_url, "--table-log", str(tmp_path / "one.db"))
    final = await finished_game(one.url, "Ann")
    assert final["phase"] == "over"
    table = final["table"]["id"]
    asker = await Client.connect(one.url, "Asker")
    rows = {row["player"]: row for row in (await asker.request("standings"))["rows"]}
    assert rows["name:Ann"]["games"] == 1 and rows["bot:easy"]["games"] == 2
    await asker.close()

    two = await processes("--db", pg_url, "--table-log", str(tmp_path / "two.db"))
    asker = await Client.connect(two.url, "Asker")
    again = {row["player"]: row for row in (await asker.request("standings"))["rows"]}
    assert again == rows  # rebuilt in a process of its own, from PostgreSQL
    await asker.close()
    record = await record_of(two.url, table)  # a game finished elsewhere on the host
    assert record == await record_of(one.url, table)
    assert parse_record(msgpack.unpackb(record)).views[-1].phase == "over"

    exported = tmp_path / "game.msgpack"
    code, _, err = await run_cli("export", "--db", pg_url, table, str(exported))
    assert code == 0, err
    assert (
        parse_record(msgpack.unpackb(exported.read_bytes())).moves
        == parse_record(msgpack.unpackb(record)).moves
    )


async def test_a_process_killed_mid_game_comes_back_with_its_table(processes, pg_url, tmp_path):
    log = str(tmp_path / "one.db")
    one = await processes("--db", pg_url, "--table-log", log)
    player = await Client.connect(one.url, "Ann")
    table = (await player.request("create", name="Ann's", seats=3, bots=2, bot="easy"))["table"]
    joined = await player.request("join", table=table, seat=0)
    view = await player.state(lambda v: v["legal"] is not None)
    for _ in range(3):
        reply = await player.request("move", move=first_legal_move(view["legal"]))
        assert reply["t"] == "state", reply
        view = reply["view"]
        if view["legal"] is None:
            view = await player.state(lambda v: v["legal"] is not None)
    played = view["round"], view["discard"], view["you"]
    await one.kill()
    await close_all(player)

    again = await processes("--db", pg_url, "--table-log", log)  # free again: its holder died
    back = await Client.connect(again.url, "Ann")
    resumed = await back.request("resume", token=joined["token"])
    assert resumed["t"] == "joined" and resumed["table"] == table, resumed
    view = await back.state(lambda v: True)
    assert (view["round"], view["discard"], view["you"]) == played  # to the last move
    await back.close()


async def test_a_host_whose_postgresql_is_away_says_so_and_goes_on(
    processes, postgres, pg_url, tmp_path
):
    """PostgreSQL stopped under a running host: a request that must read it (a name's owner,
    a new table's id, a finished game's record) is answered `store_failed` and changes
    nothing; the connection stays, the live tables' moves go on (they are the table log's),
    and once PostgreSQL is back the same requests are answered."""
    one = await processes("--db", pg_url, "--table-log", str(tmp_path / "one.db"))
    final = await finished_game(one.url, "Ann")
    done = final["table"]["id"]
    player = await Client.connect(one.url, "Bo")
    table = (await player.request("create", name="Bo's", seats=3, bots=2, bot="easy"))["table"]
    await player.request("join", table=table, seat=0)
    view = await player.state(lambda v: v["legal"] is not None)
    empty = (await player.request("create", name="Open", seats=3, bots=0))["table"]
    before = [row["id"] for row in (await player.request("list"))["tables"]]
    late = await Client.connect(one.url, "Cy")
    postgres.stop("immediate")  # as a crash looks to its clients
    try:
        for t, fields in (
            ("create", {"name": "Cy's", "seats": 3, "bots": 2}),
            ("record", {"table": done}),
        ):
            reply = await player.request(t, **fields)
            assert reply["t"] == "error" and reply["code"] == "store_failed", reply
        reply = await late.request("join", table=empty)  # whose is the name "Cy"?
        assert reply["t"] == "error" and reply["code"] == "store_failed", reply
        newcomer = await Client.connect(one.url)
        reply = await newcomer.request("hello", v=PROTOCOL_VERSION, name="Dee")  # and "Dee"?
        assert reply["t"] == "error" and reply["code"] == "store_failed", reply
        await newcomer.close()
        reply = await player.request("move", move=first_legal_move(view["legal"]))
        assert reply["t"] == "state", reply  # a move is the table log's alone
        listed = await player.request("list")
        assert [row["id"] for row in listed["tables"]] == before  # nothing made
    finally:
        postgres.start()
    answers: list[dict[str, object]] = []

    async def ask() -> None:  # the store connects again by itself, every 2 s
        answers.append(await player.request("record", table=done))
        await asyncio.sleep(0.3)  # within the dear requests' budget

    await until("a record read again", lambda: answers and answers[-1]["t"] == "record", pause=ask)
    await close_all(player, late)
