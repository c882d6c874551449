"""A tournament night over a real server: players register, every round is seated by the
standings on tables where bots fill the short ones, the next round starts when the last
table of the one before ends, a player leaves a table and drops out, and the standings and
every table can be followed by a spectator."""

from __future__ import annotations

import asyncio
import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import requests as rq
from protocol.moves import Draw
from protocol.view import Variants
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.identity import identity_of
from server.store.sqlite import SqliteStore
from server.store.tournaments import TournamentRecord
from server.tables.players import player_id
from tests.edge.test_identity import proven, public
from tests.kits.netkit import Client, close_all, first_legal_move
from tests.kits.prockit import ServerProcess
from tests.kits.tournamentkit import LEAVE, NIGHT, SHORT, Player, until
from tests.tournament.test_pairing import brute_force_fewest_repeats


def oracle_place_points(view: dict[str, Any]) -> list[float]:
    """Points by place, worked out here from a final view: winners first, then by Goth
    Points, 0 for the last place and one more a place, ties sharing their places' points."""
    goth = [p["scores"]["goth"] for p in view["players"]]
    key = [(seat in view["winner"], goth[seat]) for seat in range(len(goth))]
    points = []
    for seat in range(len(goth)):
        above = sum(k > key[seat] for k in key)
        tied = sum(k == key[seat] for k in key)
        places = range(above, above + tied)
        points.append(sum(len(goth) - 1 - p for p in places) / tied)
    return points


async def create(host: Client, **fields: Any) -> dict[str, Any]:
    fields = {"name": "Big Night", "rounds": 3, "seats": 4, "variants": SHORT, **fields}
    reply = await host.ask(rq.TournamentCreate(password=LEAVE, **fields))
    assert reply["t"] == "tournament", reply
    return reply


async def register(url: str, tournament: str, names: list[str], leaver: str | None = None):
    players = []
    for name in names:
        client = await Client.connect(url, name)
        player = Player(client, 2 if name == leaver else None)
        player.tournament = tournament
        players.append(player)
        reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament" and name in reply["players"], reply
    return players


async def finish(host: Client, players: list[Player]) -> None:
    for player in players:
        player.task.cancel()
    await close_all(host, *(p.client for p in players))


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_seven_player_night_of_three_rounds(url):
    host = await Client.connect(url, "Host")  # the organiser, who also follows the standings
    tournament = (await create(host))["id"]
    names = [f"P{i}" for i in range(1, 8)]
    players = await register(url, tournament, names, leaver="P2")
    started = await host.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1)
    final = await until(host, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    frames = [m for m in host.received if m["t"] == "tournament"]
    # each round's tables as they were last shown (the message holds the round's own)
    night = [[f for f in frames if f["round"] == r][-1]["tables"] for r in (1, 2, 3)]
    assert night[2] == final["tables"]

    # every round: everyone still in sits once, at tables of 4 seats where bots fill
    rounds = [[t["players"] for t in round_] for round_ in night]
    for number, tables in enumerate(rounds, 1):
        expected = [n for n in names if number < 3 or n != "P2"]
        assert sorted(p for t in tables for p in t) == sorted(expected)
        assert all(3 <= len(t) <= 4 for t in tables)
    for round_ in night:
        assert all(t["bots"] == 4 - len(t["players"]) for t in round_)
    assert all(t["over"] for t in final["tables"])

    # no table-mates twice where it can be avoided: as few repeats as any seating has
    for number in (2, 3):
        met = {frozenset(p) for r in rounds[: number - 1] for t in r for p in combinations(t, 2)}
        repeats = sum(frozenset(p) in met for t in rounds[number - 1] for p in combinations(t, 2))
        ranked = [s["name"] for s in _frame_of_round(frames, number)["standings"]]
        ranked = [p for p in ranked if p in {q for t in rounds[number - 1] for q in t}]
        assert repeats == brute_force_fewest_repeats(ranked, 4, {p: 1 for p in met})
        # Swiss-like: the leader of the standings opens the top table
        assert ranked[0] == rounds[number - 1][0][0]

    # a round starts when the last table of the round before ends: the round is shown with
    # one table still playing, then with every table over, and only then is the next seated
    for number in (1, 2):
        shown = [[t["over"] for t in f["tables"]] for f in frames if f["round"] == number]
        assert sum(not over for over in shown[-2]) == 1 and all(shown[-1]), shown
    for player in players:
        await player.heard_games_end(1 if player.leaves_in_round else 3)
        kinds = [kind for kind, _ in player.heard]
        if player.leaves_in_round is None:
            assert kinds == ["joined", "over"] * 3
            tables = [table for _, table in player.heard]
            assert tables[0::2] == tables[1::2]  # each game ended before the next seat
    leaver = players[1]
    assert [kind for kind, _ in leaver.heard] == ["joined", "over", "joined"]

    # the standings: points by place from the games the players saw end, then Goth Points;
    # the leaver's points stop at the drop: the game it left scores nothing for it
    finals = {table: view for p in players for table, view in p.finals.items()}
    assert set(finals) == {t["table"] for round_ in night for t in round_}
    points = dict.fromkeys(names, 0.0)
    goth = dict.fromkeys(names, 0)
    for number, round_ in enumerate(night, 1):
        for t in round_:
            view = finals[t["table"]]
            assert [p["bot"] for p in view["players"]][len(t["players"]) :] == [True] * t["bots"]
            for seat, name in enumerate(t["players"]):
                if (name, number) == ("P2", 2):
                    continue
                points[name] += oracle_place_points(view)[seat]
                goth[name] += view["players"][seat]["scores"]["goth"]
    rows = final["standings"]
    assert {r["name"]: r["points"] for r in rows} == points
    assert {r["name"]: r["goth"] for r in rows} == goth
    assert all(r["player"] == player_id(r["name"], None) for r in rows)  # the ratings' key
    assert [(r["points"], r["goth"]) for r in rows] == sorted(
        ((r["points"], r["goth"]) for r in rows), reverse=True
    )
    assert {r["name"]: (r["games"], r["dropped"]) for r in rows} == {
        n: (1, True) if n == "P2" else (3, False) for n in names
    }
    # one rating scale: the tournament's is the host's standings', number and spread alike
    host_rows = {r["player"]: r for r in (await host.ask(rq.Standings()))["rows"]}
    assert {r["player"]: (r["rating"], r["spread"]) for r in rows} == {
        r["player"]: (host_rows[r["player"]]["rating"], host_rows[r["player"]]["spread"])
        for r in rows
    }
    # the leaver's seat of round 2 was played on by a bot, under the leaver's name
    left_at = leaver.heard[-1][1]
    seat = next(t for t in night[1] if t["table"] == left_at)["players"].index("P2")
    assert finals[left_at]["players"][seat]["bot"] is True

    # a spectator follows any table of the night
    watched = final["tables"][-1]["table"]
    reply = await host.ask(rq.Watch(table=watched))
    assert reply["t"] == "watching", reply
    view = await host.state(lambda v: v["table"]["id"] == watched)
    assert view["phase"] == "over" and view["you"] is None
    await finish(host, players)


def _frame_of_round(frames: list[dict[str, Any]], number: int) -> dict[str, Any]:
    """The first `tournament` frame that shows round `number` seated (its standings are
    the ones that round was seated by)."""
    return next(f for f in frames if f["round"] == number)


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_duplicate_deals_give_every_table_the_same_cards_seat_by_seat(url):
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=1, duplicate=True))["id"]
    names = [f"D{i}" for i in range(1, 9)]
    players = await register(url, tournament, names)
    await host.ask(rq.TournamentStart(tournament=tournament))
    final = await until(host, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    first, second = final["tables"]
    views = {}
    for player in players:
        await player.heard_games_end(1)
        table = player.heard[0][1]
        views[(table, player.first_views[table]["you"]["seat"])] = player.first_views[table]
    for seat in range(4):
        one, other = views[(first["table"], seat)], views[(second["table"], seat)]
        assert one["you"]["hand"] == other["you"]["hand"]
        assert one["deck_count"] == other["deck_count"]
    # seat by seat: each pair of players who held the same cards shares one match point
    assert sum(r["match_points"] for r in final["standings"]) == 4.0
    await finish(host, players)


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_bad_tournament_requests_get_a_reason_and_change_nothing(url):
    host = await Client.connect(url, "Host")
    other = await Client.connect(url, "Other")
    wrong = await host.ask(rq.TournamentCreate(name="Night", rounds=2, seats=4, password="guess"))
    assert (wrong["t"], wrong["code"]) == ("error", "wrong_password")
    tournament = (await create(host))["id"]
    for request, fields, code in [
        ("tournament_join", {"tournament": "nope"}, "no_such_tournament"),
        ("tournament_start", {"tournament": tournament}, "not_organiser"),
        ("tournament_drop", {"tournament": tournament}, "not_registered"),
        ("tournament_create", {"name": "Night", "rounds": 2, "seats": 6}, "bad_message"),
    ]:
        reply = await other.request(request, **fields)
        assert (reply["t"], reply["code"]) == ("error", code), reply
        assert reply["message"]
    alone = await host.ask(rq.TournamentStart(tournament=tournament))
    assert (alone["t"], alone["code"]) == ("error", "not_started")
    after = await other.ask(rq.TournamentWatch(tournament=tournament))
    assert (after["phase"], after["players"], after["tables"]) == ("registering", [], [])
    await close_all(host, other)


async def test_a_server_whose_host_allows_none_runs_no_tournaments(url):
    client = await Client.connect(url, "Host")
    reply = await client.ask(rq.TournamentCreate(name="Night", rounds=2, seats=4, password=LEAVE))
    assert (reply["t"], reply["code"]) == ("error", "no_tournaments")
    await client.close()


async def test_gother_serve_gives_the_hosts_leave_from_a_file(tmp_path):
    """`gother serve --tournament-password-file`: the leave reaches the server, off `ps`."""
    leave = tmp_path / "leave"
    leave.write_text(LEAVE + "\n")
    server = await ServerProcess.start(
        "--db", str(tmp_path / "games.db"), "--tournament-password-file", str(leave)
    )
    try:
        client = await Client.connect(server.url, "Host")
        for password, answer in [("guess", "error"), (LEAVE, "tournament")]:
            reply = await client.ask(
                rq.TournamentCreate(name="Night", rounds=2, seats=4, password=password)
            )
            assert reply["t"] == answer, reply
        await client.close()
    finally:
        await server.terminate()


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_table_its_players_end_unfinished_lets_the_next_round_start(url):
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=2, seats=3, variants=Variants()))["id"]
    ann, bea = [await Client.connect(url, n) for n in ("Ann", "Bea")]
    for player in (ann, bea):
        await player.ask(rq.TournamentJoin(tournament=tournament))
    await host.ask(rq.TournamentStart(tournament=tournament))
    first = []
    for player in (ann, bea):
        joined = await player.next(lambda m: m["t"] == "joined")
        first.append(joined["table"])
        await player.state(lambda v: v["phase"] != "lobby")
    assert first[0] == first[1]
    await ann.ask(rq.End())
    await bea.tell(rq.End())  # every human agrees: the table is closed
    closed = await bea.next(lambda m: m["t"] == "closed")
    assert closed["table"] == first[0]
    second = await until(host, lambda m: m["t"] == "tournament" and m["round"] == 2)
    assert [t["table"] for t in second["tables"]] != first[:1]
    assert [(r["name"], r["games"]) for r in second["standings"]] == [("Ann", 0), ("Bea", 0)]
    for player in (ann, bea):  # and both are seated at the new table
        joined = await player.next(lambda m: m["t"] == "joined")
        assert joined["table"] == second["tables"][0]["table"]
    await close_all(host, ann, bea)


def night_server(db: Path, **config: float) -> GotherServer:
    """A server that allows tournaments, on the database `db` (which a second one reopens)."""
    return GotherServer(
        ServerConfig(
            host="127.0.0.1", port=0, db=str(db), bot_delay=0.0, tournament_password=LEAVE, **config
        )
    )


async def test_a_restart_keeps_the_tournament_its_players_and_results(tmp_path):
    first = night_server(tmp_path / "games.db")
    await first.start()
    url = f"ws://127.0.0.1:{first.port}"
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=2, seats=3))["id"]
    players = []
    for name in ("Ann", "Bea", "Cid", "Dee"):
        player = Player(await Client.connect(url, name), plays_rounds=1)  # idle in round 2
        players.append(player)
        await player.client.ask(rq.TournamentJoin(tournament=tournament))
    await host.ask(rq.TournamentStart(tournament=tournament))
    before = await until(host, lambda m: m["t"] == "tournament" and m["round"] == 2)
    for player in players:
        player.task.cancel()
    await first.close()  # round 2 is being played: its players think
    await close_all(*(p.client for p in players))

    second = night_server(tmp_path / "games.db", grace=0.0)  # the absent are covered at once
    await second.start()
    try:
        watcher = await Client.connect(f"ws://127.0.0.1:{second.port}", "Eve")
        after = await watcher.ask(rq.TournamentWatch(tournament=tournament))
        assert (after["phase"], after["round"], after["tables"]) == (
            "playing",
            2,
            before["tables"],
        )
        assert after["players"] == before["players"] == ["Ann", "Bea", "Cid", "Dee"]

        def results(frame):  # the order's last tie-break, the rating, is rebuilt meanwhile
            rows = frame["standings"]
            return {r["name"]: (r["points"], r["goth"], r["games"]) for r in rows}

        assert results(after) == results(before)
        assert all(games == 1 for _, _, games in results(after).values())
        # the round's tables, restored, are played out by the bots that cover the absent;
        # a seat a bot played from the start scores nothing for its player (issue 29 §4)
        final = await until(watcher, lambda m: m["t"] == "tournament" and m["phase"] == "over")
        assert results(final) == results(after)
        # the creator is still its creator: it is begun, not someone else's to start
        host = await Client.connect(f"ws://127.0.0.1:{second.port}", "Host")
        again = await host.ask(rq.TournamentStart(tournament=tournament))
        assert again["code"] == "already_started", again
        await close_all(watcher, host)
    finally:
        await second.close()


async def test_a_restart_gives_each_round_table_its_tournament_and_round_again(tmp_path):
    """The tables of a round being played come back knowing the tournament and round they
    seat, as they were made: what the host's other processes are told of them, to call
    their players there (issue 34 §2). A table of no tournament seats none."""
    first = night_server(tmp_path / "games.db")
    await first.start()
    url = f"ws://127.0.0.1:{first.port}"
    host = await Client.connect(url, "Host")
    lone = (await host.ask(rq.Create(name="Lone", seats=3, bots=0)))["table"]
    tournament = (await create(host, rounds=2, seats=3))["id"]
    clients = []
    for name in ("Ann", "Bea", "Cid", "Dee"):  # registered, then never moving
        clients.append(await Client.connect(url, name))
        await clients[-1].ask(rq.TournamentJoin(tournament=tournament))
    started = await host.ask(rq.TournamentStart(tournament=tournament))
    tables = [t["table"] for t in started["tables"]]
    made = {row.id: seats for row, _, seats in first.lobby.published()}
    assert made == {lone: None} | dict.fromkeys(tables, (tournament, 1))
    await first.close()
    await close_all(host, *clients)

    second = night_server(tmp_path / "games.db")
    await second.start()
    try:
        assert {row.id: seats for row, _, seats in second.lobby.published()} == made
    finally:
        await second.close()


async def test_a_stored_tournament_whose_bots_cannot_be_made_is_left_out_at_start(tmp_path, caplog):
    """Its bots are made a kind once, as it is restored: a kind this server cannot make
    leaves that tournament stored and out (and says so), never a crash at start or when a
    round is seated; the others go on, their bots by kind."""
    db = str(tmp_path / "games.db")
    store = SqliteStore(db)
    for tid, bot in (("good01", "hard"), ("bad001", "clairvoyant")):
        record = TournamentRecord(tid, "Night", 2, 3, Variants(), bot, False, "name:Host")
        store.tournaments.save_tournament(record)
    store.close()
    server = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=db, **NIGHT))
    await server.start()
    try:
        assert set(server.director.tournaments) == {"good01"}
        assert server.director.tournaments["good01"].bot_kind == "ismcts"
        said = "tournament bad001 ('Night') cannot be restored: unknown bot 'clairvoyant'"
        assert any(said in r.getMessage() for r in caplog.records)
    finally:
        await server.close()


async def test_a_round_table_whose_stored_outcome_is_broken_counts_for_nobody(tmp_path, caplog):
    """A hostile or broken outcome row of a round's table (no seats; too few seats) is left
    out with a log line; the server starts, and the tournament with it."""
    db = str(tmp_path / "games.db")
    store = SqliteStore(db)
    store.tournaments.save_tournament(
        TournamentRecord("nite01", "Night", 2, 3, Variants(), "easy", False, "name:Host")
    )
    players = ["name:Ann", "name:Bea", "name:Cid"]
    for n, player in enumerate(players):
        store.tournaments.add_tournament_player("nite01", n, player)
    store.tournaments.save_tournament_round("nite01", 1, [("tab001", players), ("tab002", players)])
    broken = ('{"finished": "x", "winners": [0], "seats": []}',
              '{"finished": "x", "winners": [0], "seats": [["name:Ann", 3, 1.0], '
              '["name:Bea", 1, 1.0]]}')  # fmt: skip
    for table, text in zip(("tab001", "tab002"), broken, strict=True):
        store.tables.start_game(table, 1, seed=1)
        store.outcomes.finish_game(table, 1, text)
    store.close()
    server = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=db, **NIGHT))
    await server.start()
    try:
        watcher = await Client.connect(f"ws://127.0.0.1:{server.port}", "Eve")
        shown = await watcher.ask(rq.TournamentWatch(tournament="nite01"))
        assert all(row["games"] == 0 for row in shown["standings"]), shown
        for table in ("tab001", "tab002"):
            said = f"tournament nite01: table {table}'s outcome cannot be read"
            assert any(said in r.getMessage() for r in caplog.records)
        await watcher.close()
    finally:
        await server.close()


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_dropping_out_at_a_table_hands_the_seat_to_a_bot_that_plays_on(url):
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=2, seats=3))["id"]
    [stays] = await register(url, tournament, ["Ann"])
    goes = await Client.connect(url, "Bea")  # registers, sits, and never moves
    await goes.ask(rq.TournamentJoin(tournament=tournament))
    await host.ask(rq.TournamentStart(tournament=tournament))
    table = (await goes.next(lambda m: m["t"] == "joined"))["table"]
    dropped = await goes.ask(rq.TournamentDrop(tournament=tournament))
    assert [r["dropped"] for r in dropped["standings"] if r["name"] == "Bea"] == [True]
    # her connection is told the seat is no longer hers, before the reply (issue 29 §5)
    told = [m for m in goes.received if m["t"] in ("left", "tournament")]
    assert told[-2:] == [{"t": "left", "table": table}, dropped], told
    assert (await goes.ask(rq.Play(move=Draw(source="deck"))))["t"] == "error"
    # the bot plays Bea's seat at once: the game ends without her, and round 2 is Ann's;
    # her points stop at the drop: the game she left scores nothing for her (§4)
    final = await until(host, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    assert [t["players"] for t in final["tables"]] == [["Ann"]]
    rows = {r["name"]: (r["games"], r["points"], r["dropped"]) for r in final["standings"]}
    assert rows["Bea"] == (0, 0.0, True) and rows["Ann"][0] == 2
    await stays.heard_games_end(2)
    bea = next(p for p in stays.finals[table]["players"] if p["name"] == "Bea")
    assert bea["bot"] is True
    await finish(host, [stays])
    await goes.close()


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_drop_from_another_connection_tells_the_one_at_the_seat(url):
    """Bea sits at her table on one connection, comes back to the tournament on another and
    drops from there: the first is told its seat is gone (issue 29 §5)."""
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=1, seats=3))["id"]
    [ann] = await register(url, tournament, ["Ann"])
    at_table = await Client.connect(url, "Bea")
    secret = (await at_table.ask(rq.TournamentJoin(tournament=tournament)))["secret"]
    await host.ask(rq.TournamentStart(tournament=tournament))
    table = (await at_table.next(lambda m: m["t"] == "joined"))["table"]
    elsewhere = await Client.connect(url, "Bea")  # anonymous: her entry's secret says it is she
    back = await elsewhere.ask(rq.TournamentJoin(tournament=tournament, secret=secret))
    assert back["t"] == "tournament"
    dropped = await elsewhere.ask(rq.TournamentDrop(tournament=tournament))
    assert [r["dropped"] for r in dropped["standings"] if r["name"] == "Bea"] == [True]
    left = await at_table.next(lambda m: m["t"] == "left")
    assert left == {"t": "left", "table": table}
    assert not any(m["t"] == "left" for m in elsewhere.received)  # it was at no table
    await finish(host, [ann])
    await close_all(at_table, elsewhere)


async def test_a_players_points_stop_at_the_drop_though_they_played_most_of_the_game(tmp_path):
    """Bea plays round 1 and the first move of round 2 (the last), then drops out: more than
    half the seat's turns were hers, yet the game she left scores nothing for her, and
    still nothing after a restart (issue 29 §4)."""

    def rows(frame: dict[str, Any]) -> dict[str, tuple[int, float, bool]]:
        return {r["name"]: (r["games"], r["points"], r["dropped"]) for r in frame["standings"]}

    first = night_server(tmp_path / "games.db")
    await first.start()
    try:
        final, tournament = await _bea_drops_late(first)
    finally:
        await first.close()
    assert rows(final)["Bea"] == (0, 0.0, True) and rows(final)["Ann"][0] == 1

    second = night_server(tmp_path / "games.db")
    await second.start()
    try:
        watcher = await Client.connect(f"ws://127.0.0.1:{second.port}", "Eve")
        after = await watcher.ask(rq.TournamentWatch(tournament=tournament))
        assert rows(after) == rows(final)
        await watcher.close()
    finally:
        await second.close()


async def _bea_drops_late(server: GotherServer) -> tuple[dict[str, Any], str]:
    """Ann and Bea's one-round night at a table of three, two rounds a game: Bea plays
    round 1 and the first move of round 2, then drops out. The final `tournament` and its id."""
    url = f"ws://127.0.0.1:{server.port}"
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=1, seats=3, variants=Variants(round_cap=2)))["id"]
    [ann] = await register(url, tournament, ["Ann"])
    bea = await Client.connect(url, "Bea")
    try:
        await bea.ask(rq.TournamentJoin(tournament=tournament))
        await host.ask(rq.TournamentStart(tournament=tournament))
        table = (await bea.next(lambda m: m["t"] == "joined"))["table"]

        def asks(view: dict[str, Any]) -> bool:
            return view["legal"] is not None or view["phase"] == "over"

        view = await bea.state(asks)
        while view["round"] < 2 or view["legal"]["kind"] == "discard_fate":
            assert view["phase"] != "over", "the game ended before Bea's second turn"
            reply = await bea.ask(rq.Play(move=first_legal_move(view["legal"])))
            assert reply["t"] == "state", reply
            view = reply["view"] if asks(reply["view"]) else await bea.state(asks)
        await bea.ask(rq.TournamentDrop(tournament=tournament))
        final = await until(host, lambda m: m["t"] == "tournament" and m["phase"] == "over")
        [(stored,)] = server.store.database.connection.execute(
            "SELECT outcome FROM games WHERE table_id = ?", (table,)
        )
        seats = {name: share for _, _, share, name in json.loads(stored)["seats"]}
        assert 0.5 <= seats["Bea"] < 1.0  # hers by the share of turns: the drop alone stops it
        return final, tournament
    finally:
        await finish(host, [ann])
        await bea.close()


@pytest.mark.parametrize("config", [{**NIGHT, "max_tables": 2}], indirect=True)
async def test_a_round_the_server_has_no_room_for_is_refused_whole(url):
    host = await Client.connect(url, "Host")
    tournament = (await create(host, seats=3))["id"]
    players = [await Client.connect(url, f"P{i}") for i in range(7)]  # three tables of three
    for player in players:
        await player.ask(rq.TournamentJoin(tournament=tournament))
    refused = await host.ask(rq.TournamentStart(tournament=tournament))
    assert (refused["t"], refused["code"]) == ("error", "too_many_tables"), refused
    assert "needs 3 tables" in refused["message"]
    after = await host.ask(rq.TournamentWatch(tournament=tournament))
    assert (after["phase"], after["tables"]) == ("registering", [])
    listing = await host.ask(rq.List())
    assert listing["tables"] == []  # not one table of the round was made
    await close_all(host, *players)


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_player_is_their_identity_under_any_name_and_comes_back_to_their_seat(server, url):
    """Ann registers with her key, comes back as Annie with it: one player, shown as Annie,
    whose name no one else registers under.
    Her seat at the round's table is held by her identity: a new connection proving it is
    told of the seat and resumes it by table, with no token."""
    key = Ed25519PrivateKey.generate()
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=1, seats=3))["id"]
    ann, _ = await proven(url, "Ann", key)
    assert (await ann.ask(rq.TournamentJoin(tournament=tournament)))["players"] == ["Ann"]
    bob = await Client.connect(url, "Bob")
    await bob.ask(rq.TournamentJoin(tournament=tournament))
    await ann.close()
    annie, _ = await proven(url, "Annie", key)
    back = await annie.ask(rq.TournamentJoin(tournament=tournament))
    assert back["players"] == ["Annie", "Bob"], back  # the same player, under her new name
    assert server.names.owner("Annie") is None  # registering owns no name: a game played does
    impostor = await Client.connect(url, "Annie")  # proves no key: not her
    refused = await impostor.ask(rq.TournamentJoin(tournament=tournament))
    assert refused.get("code") == "name_taken", refused
    await impostor.close()

    await host.ask(rq.TournamentStart(tournament=tournament))
    seated = await annie.next(lambda m: m["t"] == "joined")
    table = server.lobby.tables[seated["table"]]
    assert table.seats[seated["seat"]].identity == identity_of(public(key))
    await annie.close()

    again, held = await proven(url, "Annie", key)
    assert held["seats"] == [{"table": seated["table"], "seat": seated["seat"]}], held
    resumed = await again.ask(rq.Resume(table=seated["table"]))
    assert (resumed["t"], resumed["seat"]) == ("joined", seated["seat"]), resumed
    await close_all(host, bob, again)


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_player_back_in_their_seat_mid_game_is_seated_at_the_next_round(url):
    """Ann quits in the middle of round 1 and comes back to her seat with its token (the
    same command run again): the next round seats her new connection and tells it, as it
    would have the one she registered from. (The club night of issue 29 §9 found it told
    nobody: her round-2 seat waited out the grace, then a bot played it for nobody.)"""
    key = Ed25519PrivateKey.generate()
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=2, seats=3))["id"]
    ann, _ = await proven(url, "Ann", key)
    await ann.request("tournament_join", tournament=tournament)
    (bob,) = await register(url, tournament, ["Bob"])
    await host.request("tournament_start", tournament=tournament)
    seated = await ann.next(lambda m: m["t"] == "joined")
    await ann.close()

    again, _ = await proven(url, "Ann", key)
    back = Player(again)  # plays round 1 out from here, and whatever it is seated at next
    back.table, back.tournament = seated["table"], tournament
    resumed = await again.send("resume", token=seated["token"])
    await back.heard_games_end(1)
    assert any(m.get("rid") == resumed and m["t"] == "joined" for m in again.received)
    told = [m for m in again.received if m["t"] == "tournament"]
    assert told and told[0]["id"] == tournament  # her client shows it again

    async def seated_again() -> dict[str, Any]:
        while True:
            found = [m for m in again.received if m["t"] == "joined" and m.get("rid") is None]
            if found:
                return found[0]
            back.news.clear()
            await back.news.wait()

    round_2 = await asyncio.wait_for(seated_again(), 30)
    assert round_2["table"] != seated["table"]
    await back.heard_games_end(2)  # she plays it: her seat is no bot's
    final = await until(host, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    ann_row = next(row for row in final["standings"] if row["name"] == "Ann")
    assert ann_row["games"] == 2, final["standings"]
    await finish(host, [bob, back])
