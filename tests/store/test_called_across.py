"""A tournament's players called to their tables across a host's processes (issue 34 §2):
real servers on 127.0.0.1 sharing one PostgreSQL, players on real connections proving
their keys. A round's tables go to the processes holding the fewest tables whoever is
connected where; a player connected anywhere is seated at once where the table is made,
else called to it by an unsolicited `error elsewhere {url, table}`, and follows it; a
table placed elsewhere that its players end unplayed ends its round's wait. A player hears
its tournament's `tournament` messages at whichever process its table is."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from websockets.exceptions import ConnectionClosed

from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.tui.app import GotherApp
from protocol import requests as rq
from protocol import server_messages as sm
from tests.core.test_client_core import answer_to
from tests.edge.test_identity import proven
from tests.kits.netkit import Client, close_all, first_legal_move
from tests.kits.poll import until as until_true
from tests.kits.tournamentkit import LEAVE, SHORT, WHOLE_NIGHT, until
from tests.plain.plainkit import InProcess
from tests.store.test_postgres import psql
from tests.store.test_tournaments_across import host
from tests.tui.clientkit import until as shown_until

pytestmark = pytest.mark.usefixtures("postgres")
__all__ = ["host"]  # the fixture: servers on one PostgreSQL


class Traveller:
    """A proven player who plays every decision asked at the table it sits at, and follows
    every call to a table at another process: connects there, proves its key, resumes it.
    Playing itself, with a long grace: no bot ever covers it, so every game counts."""

    def __init__(self, name: str, key: Ed25519PrivateKey, client: Client, url: str) -> None:
        self.name, self.key, self.client, self.url = name, key, client, url
        self.table: str | None = None
        self.joined: list[tuple[str, str]] = []  # (table, the process's URL), in order
        self.calls: list[dict[str, Any]] = []  # the unsolicited `elsewhere`s heard
        self.finals: dict[str, dict[str, Any]] = {}  # table -> its last view
        # (the process's URL, the tables joined so far, a `tournament` message heard there)
        self.told: list[tuple[str, int, dict[str, Any]]] = []
        self.ends_at: str | None = None  # a game dealt at this process: voted to end at once
        self.voted: set[str] = set()
        self.news = asyncio.Event()
        self.task = asyncio.create_task(self._play())

    async def _play(self) -> None:
        with contextlib.suppress(ConnectionClosed):  # the servers closed as the test ends
            await self._turns()

    async def _turns(self) -> None:
        while True:
            try:
                message = await self.client.next()
            except TimeoutError:
                continue  # other tables are still playing
            if message["t"] == "error" and message.get("rid") is None:
                assert message["code"] == "elsewhere", message
                self.calls.append(message)
                gone, self.url = self.client, message["url"]
                self.client, _ = await proven(self.url, self.name, self.key)
                await gone.close()
                await self.client.tell(rq.Resume(table=message["table"]))
            elif message["t"] == "tournament":
                self.told.append((self.url, len(self.joined), message))
                self.news.set()
            elif message["t"] == "joined":
                self.table = message["table"]
                self.joined.append((self.table, self.url))
            elif message["t"] == "state" and message["view"]["table"]["id"] == self.table:
                view = message["view"]
                if view["phase"] == "over":
                    self.finals.setdefault(view["table"]["id"], view)
                    self.news.set()
                elif self.url == self.ends_at:
                    if view["phase"] != "lobby" and self.table not in self.voted:
                        self.voted.add(self.table)
                        await self.client.tell(rq.End())
                elif view["legal"] is not None:
                    await self.client.tell(rq.Play(move=first_legal_move(view["legal"])))

    async def played(self, games: int) -> None:
        async def wait() -> None:
            while len(self.finals) < games:
                self.news.clear()
                await self.news.wait()

        await asyncio.wait_for(wait(), WHOLE_NIGHT)

    async def heard_over(self) -> None:
        """Until it is told its tournament is over."""

        async def wait() -> None:
            while not any(m["phase"] == "over" for _, _, m in self.told):
                self.news.clear()
                await self.news.wait()

        await asyncio.wait_for(wait(), WHOLE_NIGHT)


def oracle_points(outcome: dict[str, Any]) -> list[float]:
    """Points by place worked out here from a stored outcome (`games.outcome`): winners
    first, then by Goth Points, 0 for the last place and one more a place, ties sharing."""
    goth = [seat[1] for seat in outcome["seats"]]
    key = [(seat in outcome["winners"], goth[seat]) for seat in range(len(goth))]
    points = []
    for seat in range(len(goth)):
        above = sum(k > key[seat] for k in key)
        tied = sum(k == key[seat] for k in key)
        points.append(sum(len(goth) - 1 - p for p in range(above, above + tied)) / tied)
    return points


async def registered(url: str, tournament: str, names: list[str]) -> list[Traveller]:
    players = []
    for name in names:
        key = Ed25519PrivateKey.generate()
        client, _ = await proven(url, name, key)
        reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament", reply
        players.append(Traveller(name, key, client, url))
    return players


def processes(pg_url: str, tmp_path: Any, tables: list[str]) -> list[str]:
    """The process (by its log's name) holding each of these tables, as PostgreSQL says."""
    logs = dict(psql(pg_url, "SELECT id, log FROM tables"))
    at = {str(tmp_path / f"{name}.db"): name for name in ("one", "two")}
    return [at[str(logs[table]).split(":", 1)[1]] for table in tables]


async def test_eight_players_follow_their_calls_over_two_rounds_at_two_processes(
    host, pg_url, tmp_path
):
    one, two = await host("one"), await host("two")
    urls = {"one": one, "two": two}
    organiser = await Client.connect(one, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=4, variants=SHORT)
    )
    tournament = created["id"]
    names = ["Ann", "Bea", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
    players = await registered(one, tournament, names)
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1)
    final = await until(organiser, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    for player in players:
        await player.played(2)
    frames = [m for m in organiser.received if m["t"] == "tournament"]
    night = [[f for f in frames if f["round"] == r][-1]["tables"] for r in (1, 2)]

    for round_ in night:  # every round on both processes, everyone once, each table over
        assert sorted(processes(pg_url, tmp_path, [t["table"] for t in round_])) == [
            "one",
            "two",
        ]
        assert sorted(p for t in round_ for p in t["players"]) == sorted(names)
        assert all(t["over"] for t in round_)
    by_name = {p.name: p for p in players}
    for number, round_ in enumerate(night):
        for t in round_:
            where = urls[processes(pg_url, tmp_path, [t["table"]])[0]]
            for name in t["players"]:  # each came to its table, where the table lives
                assert by_name[name].joined[number] == (t["table"], where), by_name[name].joined
    # those whose table was made at another process than theirs were called to it
    calls = [(c["table"], c["url"]) for p in players for c in p.calls]
    assert calls and all(call in {j for p in players for j in p.joined} for call in calls)
    moved = sum((p.joined[0][1] != one) + (p.joined[1][1] != p.joined[0][1]) for p in players)
    assert len(calls) == moved

    # the standings are the stored outcomes' points, worked out here
    points = dict.fromkeys(names, 0.0)
    after = []  # the points after each round
    for round_ in night:
        for t in round_:
            [(stored,)] = psql(
                pg_url, f"SELECT outcome FROM games WHERE table_id = '{t['table']}' AND game_no = 1"
            )
            for seat, got in enumerate(oracle_points(json.loads(str(stored)))):
                points[t["players"][seat]] += got
        after.append(dict(points))
    rows = final["standings"]
    assert {r["name"]: r["points"] for r in rows} == points
    assert {r["name"]: r["games"] for r in rows} == dict.fromkeys(names, 2)

    # each heard the standings where it played: one whose round-1 table was at two (which
    # runs no tournament) was told there that round's results before round 2 seated it, and
    # everyone was told the final standings where it sat last
    at_two = [p for p in players if p.joined[0][1] == two]
    assert at_two
    for player in at_two:
        assert any(
            url == two
            and joined == 1
            and {r["name"]: (r["games"], r["points"]) for r in m["standings"]}
            == {name: (1, after[0][name]) for name in names}
            for url, joined, m in player.told
        ), player.told
    for player in players:
        await player.heard_over()
        url, _, last = player.told[-1]
        where = player.joined[1][1]  # its last table's process
        assert (url, last["phase"], last["standings"]) == (where, "over", final["standings"])

    def news_kept() -> list[Any]:
        return psql(pg_url, "SELECT table_id FROM lobby WHERE table_id LIKE 'news:%'")

    # the news of a tournament over is published a while, then no more: the rows stay bounded
    await until_true("its news unpublished", lambda: not news_kept(),
                     pause=lambda: asyncio.sleep(0.5))  # fmt: skip
    for player in players:
        player.task.cancel()
    await close_all(organiser, *(p.client for p in players))


async def test_a_table_placed_elsewhere_its_players_end_lets_the_next_round_start(
    host, pg_url, tmp_path
):
    one, two = await host("one"), await host("two")
    organiser = await Client.connect(one, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
    )
    tournament = created["id"]
    players = await registered(one, tournament, ["Ann", "Bea", "Cid", "Dee"])
    for player in players:
        player.ends_at = two  # a game dealt at two: its players vote to end it at once
    await organiser.ask(rq.TournamentStart(tournament=tournament))
    second = await until(organiser, lambda m: m["t"] == "tournament" and m["round"] == 2)
    frames = [m for m in organiser.received if m["t"] == "tournament"]
    first = [f for f in frames if f["round"] == 1][-1]["tables"]
    tables = [t["table"] for t in first]
    assert processes(pg_url, tmp_path, tables[:1]) == ["one"]  # the other is archived
    ended = first[1]["players"]  # called to two, where they ended it: it counts for nobody
    assert all(p.calls[0]["table"] == tables[1] for p in players if p.name in ended)
    assert all(p.joined[0] == (tables[1], two) for p in players if p.name in ended)
    ended_at_two = psql(pg_url, f"SELECT 1 FROM games WHERE table_id = '{tables[1]}'"
                        " AND outcome IS NOT NULL")  # fmt: skip
    assert ended_at_two == []
    games = {r["name"]: r["games"] for r in second["standings"]}
    assert games == {name: 0 if name in ended else 1 for name in games}
    for player in players:
        player.task.cancel()
    await close_all(organiser, *(p.client for p in players))


async def one_table_made_at_two(host: Any) -> tuple[str, str, Client, Client, str]:
    """Two processes, the runner `one` holding a table already (a waiting one): a
    tournament of one round, one table of three, is made at `two`. The URLs, the
    organiser, a proven player registered at `one`, and the tournament."""
    one, two = await host("one"), await host("two")
    organiser = await Client.connect(one, "Host")
    waiting = await organiser.ask(rq.Create(name="Waiting", seats=3, bots=0))
    assert waiting["t"] == "created", waiting
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=1, seats=3, variants=SHORT)
    )
    bea, _ = await proven(one, "Bea", Ed25519PrivateKey.generate())
    assert (await bea.ask(rq.TournamentJoin(tournament=created["id"])))["t"] == "tournament"
    return one, two, organiser, bea, created["id"]


async def test_the_full_screen_client_follows_the_call_from_the_lobby(host, tmp_path):
    one, two, organiser, bea, tournament = await one_table_made_at_two(host)
    options = ClientOptions(url=one, name="Ann", first_retry=0.05)
    app = GotherApp(options, transport=WebSocketTransport, seat_store=SeatStore(tmp_path / "a"))
    async with app.run_test(size=(100, 30)) as pilot:
        await shown_until(pilot, lambda: app.current_mode == "lobby" and app.core.online, "lobby")
        registered = await asyncio.wait_for(
            answer_to(app.core, rq.TournamentJoin(tournament=tournament)), 30
        )
        assert isinstance(registered, sm.Tournament), registered
        started = await organiser.ask(rq.TournamentStart(tournament=tournament))
        [table] = [t["table"] for t in started["tables"]]
        await shown_until(pilot, lambda: app.current_mode == "table", "at the table, no key")
        assert (app.core.flow.at, app.core.flow.table) == (two, table)
        assert app.core.flow.seat is not None
        # the runner's news reaches the screen at two: Bea drops out at one
        dropped = await bea.ask(rq.TournamentDrop(tournament=tournament))
        assert dropped["t"] == "tournament", dropped

        def bea_out() -> bool:
            shown = app.tournament
            return shown is not None and any(r.dropped for r in shown.standings if r.name == "Bea")

        await shown_until(pilot, bea_out, "Bea's drop shown at two")
        assert app.core.flow.at == two
    await close_all(organiser, bea)


async def test_plain_mode_follows_the_call_from_the_lobby(host, tmp_path):
    one, two, organiser, bea, tournament = await one_table_made_at_two(host)
    async with InProcess(one, tmp_path, name="Cal") as plain:
        assert plain.client is not None
        core = plain.client.core
        await until_true("Cal in the lobby", lambda: core.online)
        plain.type(f"tournament {tournament}")
        await plain.transcript.until(r"^Night \(\w+\): registering, 2 players, tables of 3$")
        started = await organiser.ask(rq.TournamentStart(tournament=tournament))
        [table] = [t["table"] for t in started["tables"]]
        flow = core.flow
        await until_true("Cal seated at two", lambda: (flow.at, flow.table) == (two, table))
        assert [t.url for t in plain.transports][-1] == two
        dropped = await bea.ask(rq.TournamentDrop(tournament=tournament))
        assert dropped["t"] == "tournament", dropped
        # said at two: with round 1's seating, if that was not yet relayed to Cal there (two
        # read it before Cal came: Cal is told the news as it stands, both changes at once)
        await plain.transcript.until(r"^Night: (round 1 of 1 is seated\. )?Bea dropped out\.$")
        assert [t.url for t in plain.transports][-1] == two
    await close_all(organiser, bea)


async def test_a_player_connecting_after_the_news_changed_is_told_it_as_it_stands(host):
    """The relay tells a connection what it was not yet sent, not only what changed since
    the last read: Cal, registered at the runner, comes to `two` only after two read and
    relayed round 1's news (to Dee's connection there), and nothing changes after; Cal's
    connection at two is told round 1 all the same (a player who came between two reads,
    or proved its key after one, missed it there for good before)."""
    one, two, organiser, bea, tournament = await one_table_made_at_two(host)
    at_one = {}
    keys = {name: Ed25519PrivateKey.generate() for name in ("Cal", "Dee")}
    for name, key in keys.items():  # registered at the runner, and there as it starts
        at_one[name], _ = await proven(one, name, key)
        joined = await at_one[name].ask(rq.TournamentJoin(tournament=tournament))
        assert joined["t"] == "tournament", joined
    dee, _ = await proven(two, "Dee", keys["Dee"])
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert started["t"] == "tournament", started

    def round_one(m: dict[str, Any]) -> bool:
        return m["t"] == "tournament" and m.get("rid") is None and m["round"] == 1

    relayed = await asyncio.wait_for(dee.next(round_one), WHOLE_NIGHT)  # two read it
    cal, _ = await proven(two, "Cal", keys["Cal"])
    told = await asyncio.wait_for(cal.next(round_one), WHOLE_NIGHT)
    # the news as it stands: the very frame relayed before Cal came, nothing newer since
    assert told == relayed
    assert [m for m in dee.received if m["t"] == "tournament"][-1] == relayed
    await close_all(organiser, bea, dee, cal, *at_one.values())
