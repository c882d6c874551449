"""The host's standings over a real server: games played to the end give every player a
record and a rating in the `standings` reply; a restarted server rebuilds the same from its
archive (in a process of its own); a seat a bot finished counts by the share its player
played; a player who proved a key keeps one record and rating under every name, the latest
shown; bad requests are refused and change nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from server.edge.app import GotherServer
from server.edge.identity import identity_of
from server.tables.outcome import turn_share
from server.tables.players import PlayerId
from tests.edge.test_identity import proven, public
from tests.kits.netkit import Client, close_all, first_legal_move, play_to_end
from tests.kits.prockit import run_cli
from tests.kits.standingskit import finished_game


def place_of(view: dict[str, object], seat: int) -> int:
    players = view["players"]  # type: ignore[index]
    winners = view["winner"] or []  # type: ignore[index]
    order = [(p["seat"] not in winners, -p["scores"]["goth"]) for p in players]  # type: ignore[index]
    return 1 + sum(other < order[seat] for other in order)


async def test_finished_games_give_each_player_a_record_and_a_rating(server, url):
    finals = [await finished_game(url, "Ann"), await finished_game(url, "Ann")]
    asker = await Client.connect(url, "Asker")
    reply = await asker.request("standings")
    assert reply["t"] == "standings" and reply["offset"] == 0, reply
    rows = {row["player"]: row for row in reply["rows"]}
    assert set(rows) == {"name:Ann", "bot:easy"} and reply["total"] == 2
    ann, easy = rows["name:Ann"], rows["bot:easy"]
    assert ann["name"] == "Ann" and not ann["bot"] and not ann["reference"]
    assert ann["games"] == 2 and ann["provisional"] and reply["provisional_games"] > 2
    places = [place_of(final, 0) for final in finals]
    assert ann["wins"] == places.count(1)
    assert sum(ann["places"]) == 2 and all(ann["places"][p - 1] >= 1 for p in places)
    assert easy["bot"] and easy["reference"] and easy["games"] == 4 and easy["mu"] == 20.0
    assert ann["mu"] != 25.0 and ann["sigma"] < 25 / 3  # two games moved the rating
    assert ann["last_seen"] == easy["last_seen"]  # both were at the latest game
    assert datetime.fromisoformat(ann["last_seen"]) <= datetime.now(UTC)
    await close_all(asker)


async def test_a_restarted_server_rebuilds_the_same_standings_from_its_archive(config, url):
    first = GotherServer(config)
    await first.start()
    url = f"ws://127.0.0.1:{first.port}"
    for name in ("Ann", "Bea"):
        await finished_game(url, name, bot="normal")
    asker = await Client.connect(url, "Asker")
    before = await asker.request("standings")
    await asker.close()
    await first.close()

    config.port = 0
    second = GotherServer(config)
    await second.start()  # the rebuild runs in its own process; a request waits for it
    try:
        asker = await Client.connect(f"ws://127.0.0.1:{second.port}", "Asker")
        after = await asker.request("standings")
        assert after["rows"] == before["rows"] and after["total"] == 3, after
        await asker.close()
    finally:
        await second.close()


async def test_a_player_who_leaves_early_is_rated_by_their_share_and_credited_nothing(server, url):
    """Cy leaves after one move: the bot that plays on wins or loses for nobody (issue 29
    §4); Cy's rating moves by the share of turns Cy played."""
    player = await Client.connect(url, "Cy")
    created = await player.request("create", name="Cy's", seats=3, bots=2, bot="easy")
    table = created["table"]
    await player.request("join", table=table, seat=0)
    view = await player.state(lambda v: v["legal"] is not None)
    reply = await player.request("move", move=first_legal_move(view["legal"]))
    assert reply["t"] == "state", reply
    assert (await player.request("leave"))["t"] == "left"
    watcher = await Client.connect(url, "Watcher")
    await watcher.request("watch", table=table)
    await watcher.state(lambda v: v["phase"] == "over")
    [(stored,)] = server.store.database.connection.execute(
        "SELECT outcome FROM games WHERE table_id = ?", (table,)
    )
    outcome = json.loads(stored)
    [cy, *_] = outcome["seats"]
    share = turn_share(server.store.tables.movers(table, 1), 0)
    assert cy[0] == "name:Cy" and 0 < cy[2] == share < 0.5
    rows = {r["player"]: r for r in (await watcher.request("standings"))["rows"]}
    assert "name:Cy" not in rows and rows["bot:easy"]["games"] == 2  # no game of Cy's
    assert server.standings.rating(PlayerId("name:Cy")).mu != 25.0  # moved all the same
    await close_all(player, watcher)


async def test_a_proven_player_keeps_one_record_under_every_name_they_play_under(server, url):
    """Ann, with her key, finishes a game; as Annie she finishes another: both games are
    her identity's, the latest name shown, none a name's."""
    key = Ed25519PrivateKey.generate()
    me = "id:" + identity_of(public(key))
    ann, _ = await proven(url, "Ann", key)
    created = await ann.request("create", name="Ann's", seats=3, bots=2, bot="easy")
    await ann.request("join", table=created["table"], seat=0)
    await play_to_end(ann)
    await ann.close()

    annie, _ = await proven(url, "Annie", key)
    created = await annie.request("create", name="Annie's", seats=3, bots=2, bot="easy")
    table = created["table"]
    await annie.request("join", table=table, seat=0)
    await play_to_end(annie)
    watcher = await Client.connect(url, "Watcher")
    [(stored,)] = server.store.database.connection.execute(
        "SELECT outcome FROM games WHERE table_id = ?", (table,)
    )
    assert json.loads(stored)["seats"][0][::3] == [me, "Annie"]  # her identity, her name then

    rows = {r["player"]: r for r in (await watcher.request("standings"))["rows"]}
    assert rows[me]["games"] == 2 and rows[me]["name"] == "Annie" and not rows[me]["bot"]
    assert not any(p.startswith("name:Ann") for p in rows), rows
    await close_all(annie, watcher)


async def test_a_bad_standings_request_is_refused_with_a_reason(server, url):
    asker = await Client.connect(url, "Asker")
    reply = await asker.request("standings", offset=-1)
    assert reply["t"] == "error" and reply["code"] == "bad_message", reply
    assert "offset" in reply["message"]
    reply = await asker.request("standings", offset=10)
    assert reply["t"] == "standings" and reply["rows"] == [] and reply["total"] == 0
    await close_all(asker)


async def test_gother_standings_prints_the_hosts_players_the_best_first(server, url):
    await finished_game(url, "Ann")
    code, out, err = await run_cli("standings", url)
    assert code == 0, err
    header, *rows, ratings, places = out.splitlines()
    assert header.split() == ["#", "Player", "Rating", "Games", "Wins", "Places", "Last", "seen"]
    by_name = {row.split()[1]: row.split() for row in rows}
    assert set(by_name) == {"Ann", "easy"} and len(rows) == 2
    assert by_name["easy"][3:6] == ["1350", "=", "2"]  # the easy bot's fixed rating, 2 seats
    spread = by_name["Ann"][3].removeprefix("±").removeprefix("+/-")
    assert by_name["Ann"][2].isdigit() and 0 < int(spread) < 500 and by_name["Ann"][4] == "1"
    assert ratings.startswith("Ratings start at 1500") and places.startswith("Places:")
    code, _, err = await run_cli("standings", "ws://127.0.0.1:1")  # nothing listens there
    assert (
        code == 2 and "cannot fetch the standings: nothing is listening at ws://127.0.0.1:1" in err
    )
