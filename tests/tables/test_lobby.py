"""The lobby over the protocol: list, create, join, watch, start, leave, chat, rematch, and a
table of bots that plays by itself for its spectators."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.edge.config import ServerConfig
from server.game import default_deck_text
from tests.kits.netkit import Client, close_all, play_to_end

GAME_PHASES = {"discard_fate", "distribute", "draw", "over"}
WIDE = "\U0001d50a"  # a letter of 4 bytes in UTF-8


@pytest.fixture
def config(config: ServerConfig, tmp_path: Path) -> ServerConfig:
    """`{"decks": True}` in a test's overrides gives the server a deck folder (make_decks)."""
    if getattr(config, "decks", False):
        config.decks_dir = str(make_decks(tmp_path / "decks"))
    return config


def make_decks(folder: Path) -> Path:
    """mini.toml: a valid 20-card deck (enough for 3 or 4 seats, not 5); broken.toml: a
    card without its `money`; junk.toml: not TOML; wide.toml: a valid deck whose catalogue
    is larger than a frame; and a file that is not a deck at all."""
    folder.mkdir()
    cards = [
        f'[[card]]\nid = {i}\nname = "Mini {i}"\nflavour = "Small."\n'
        f"goth = {i % 4 + 1}\nsickness = {1 if i % 5 == 0 else 0}\nmoney = {(i % 3) - 1}\n"
        for i in range(20)
    ]
    (folder / "mini.toml").write_text('name = "Mini"\n\n' + "\n".join(cards), encoding="utf-8")
    broken = default_deck_text().replace("money = -2\n", "\n", 1)
    (folder / "broken.toml").write_text(broken, encoding="utf-8")
    (folder / "junk.toml").write_text("[[card]\nid = = 1\n", encoding="utf-8")
    wide = [  # 255 cards of long names and flavours in 4-byte letters: 100 KiB to send
        f'[[card]]\nid = {i}\nname = "{WIDE * 20}{i:03}"\nflavour = "{WIDE * 80}"\n'
        f"goth = 1\nsickness = 0\nmoney = 0\n"
        for i in range(255)
    ]
    (folder / "wide.toml").write_text('name = "Wide"\n\n' + "\n".join(wide), encoding="utf-8")
    (folder / "README").write_text("not a deck\n", encoding="utf-8")
    return folder


# -- helpers ---------------------------------------------------------------------------


def expect_error(reply: dict[str, Any], code: str) -> None:
    assert reply["t"] == "error" and reply["code"] == code, reply
    assert "rid" in reply  # every refused request here had one


async def create(client: Client, **fields: Any) -> str:
    fields.setdefault("name", "Crypt")
    fields.setdefault("bots", 0)
    reply = await client.request("create", **fields)
    assert reply["t"] == "created", reply
    return reply["table"]


async def join(url: str, table: str, name: str, **fields: Any) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(url, name)
    reply = await client.request("join", table=table, **fields)
    assert reply["t"] == "joined", reply
    return client, reply


def listing(reply: dict[str, Any], table: str) -> dict[str, Any]:
    assert reply["t"] == "tables"
    (row,) = [row for row in reply["tables"] if row["id"] == table]
    return row


# -- list and create -------------------------------------------------------------------


async def test_list_summarises_every_table(server, url):
    host = await Client.connect(url, "Host")
    assert (await host.request("list"))["tables"] == []
    private = await create(host, name="Velvet", seats=3, bots=1, password="pw")
    public = await create(host, name="Open Crypt", seats=5, bots=0)
    reply = await host.request("list")
    assert {row["id"] for row in reply["tables"]} == {private, public}
    row = listing(reply, private)
    assert {k: row[k] for k in ("name", "seats", "seated", "bots", "phase", "password")} == {
        "name": "Velvet",
        "seats": 3,
        "seated": 1,  # the bot
        "bots": 1,
        "phase": "lobby",
        "password": True,
    }
    row = listing(reply, public)
    assert (row["seats"], row["seated"], row["bots"], row["password"]) == (5, 0, 0, False)
    # how the bots play, in the words create takes (issue 23: the lobby shows it)
    assert listing(reply, private)["bot"] == row["bot"] == "normal"
    hard = await create(host, name="Hard Crypt", seats=3, bots=2, bot="hard")
    rough = await create(host, name="Rough Crypt", seats=3, bots=2, bot="random")
    reply = await host.request("list")
    assert (listing(reply, hard)["bot"], listing(reply, rough)["bot"]) == ("hard", "random")
    # the rows follow the tables
    a, _ = await join(url, private, "A", password="pw")
    assert listing(await host.request("list"), private)["seated"] == 2
    b, _ = await join(url, private, "B", password="pw")  # full: it starts
    await b.state(lambda v: v["phase"] != "lobby")
    row = listing(await host.request("list"), private)
    assert row["seated"] == 3 and row["phase"] in GAME_PHASES
    await close_all(host, a, b)


async def test_create_checks_seats_and_bots_and_keeps_variants(server, url):
    host = await Client.connect(url, "Host")
    for seats in (3, 4, 5):
        await create(host, seats=seats)
    for fields in (
        {"seats": 2},  # 2 and 6 only with the house rule
        {"seats": 6},
        {"seats": 7},
        {"seats": 1},
        {"seats": 3, "bots": 4},
        {"seats": 3, "bots": -1},
        {"seats": 3, "variants": {"fate_discard": "bottom"}},
        {"seats": 3, "variants": {"round_cap": 0}},
        {"seats": 3, "variants": {"colour": "black"}},
        {"seats": 3, "password": ""},
        {"seats": 3, "name": " "},
    ):
        count = len(server.lobby.tables)
        fields = {"name": "Crypt", "bots": 0, **fields}
        expect_error(await host.request("create", **fields), "bad_message")
        assert len(server.lobby.tables) == count
    await create(host, seats=2, variants={"two_or_six": True})
    await create(host, seats=6, variants={"two_or_six": True})

    table = await create(host, seats=4, bots=2, variants={"fate_discard": "top", "round_cap": None})
    player, joined = await join(url, table, "A")
    assert joined["seat"] == 0
    view = await player.state(lambda v: True)
    assert view["phase"] == "lobby" and view["you"] == {"seat": 0, "hand": []}
    assert view["table"]["variants"] == {
        "fate_discard": "top",
        "overflow": "draw_step",  # every key filled in
        "round_cap": None,
        "two_or_six": False,
    }
    assert view["round_cap"] is None
    assert [(p["seat"], p["bot"]) for p in view["players"] if p["name"] is not None] == [
        (0, False),
        (2, True),
        (3, True),
    ]
    await close_all(host, player)


@pytest.mark.parametrize("config", [{"decks": True}], indirect=True)
async def test_create_with_a_deck_from_the_server_folder(server, url):
    host = await Client.connect(url, "Host")
    for name in ("mini", "mini.toml"):
        table = await create(host, seats=3, deck=name)
        player, joined = await join(url, table, "A")
        assert len(joined["cards"]) == 20 and joined["cards"][0]["name"] == "Mini 0"
        view = await player.state(lambda v: True)
        assert view["table"]["deck"] == name
        assert (await player.request("start"))["view"]["deck_count"] == 20 - 15
        await player.close()
    original = await create(host, seats=3, deck="original")
    _, joined = await join(url, original, "B")
    assert len(joined["cards"]) == 55
    count = len(server.lobby.tables)
    for deck, seats in (
        ("mini", 5),  # 20 cards cannot deal 5 hands of 5
        ("broken", 3),
        ("junk", 3),
        ("missing", 3),
        ("README", 3),
        ("wide", 3),  # its catalogue cannot be sent: it took a seat, then bad_frame on join
    ):
        reply = await host.request("create", name="Crypt", seats=seats, bots=0, deck=deck)
        expect_error(reply, "bad_deck")
    for deck in ("../mini", "/etc/passwd", ".mini", "a/b", ""):
        reply = await host.request("create", name="Crypt", seats=3, bots=0, deck=deck)
        expect_error(reply, "bad_message")  # no paths reach the server's deck folder
    assert len(server.lobby.tables) == count
    await host.close()


async def test_without_a_deck_folder_only_the_original_deck(server, url):
    host = await Client.connect(url, "Host")
    expect_error(
        await host.request("create", name="Crypt", seats=3, bots=0, deck="mini"), "bad_deck"
    )
    await create(host, seats=3, deck="original")
    await host.close()


@pytest.mark.parametrize("config", [{"max_tables": 2}], indirect=True)
async def test_too_many_tables(server, url):
    host = await Client.connect(url, "Host")
    await create(host, seats=3)
    await create(host, seats=3)
    expect_error(await host.request("create", name="X", seats=3, bots=0), "too_many_tables")
    other = await Client.connect(url, "Other")
    expect_error(await other.request("create", name="Y", seats=3, bots=0), "too_many_tables")
    assert len((await host.request("list"))["tables"]) == 2
    await close_all(host, other)


# -- join ----------------------------------------------------------------------------


async def test_join_picks_or_takes_a_seat(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=4, bots=1)  # the bot takes seat 3
    a, joined_a = await join(url, table, "A")
    assert joined_a["seat"] == 0 and joined_a["table"] == table
    assert 16 <= len(joined_a["token"]) <= 128 and len(joined_a["cards"]) == 55
    b, joined_b = await join(url, table, "B", seat=2)
    assert joined_b["seat"] == 2 and joined_b["token"] != joined_a["token"]
    view = await a.state(lambda v: v["players"][2]["name"] == "B")  # A is told
    assert view["phase"] == "lobby"
    c = await Client.connect(url, "C")
    for seat in (0, 2, 3):
        expect_error(await c.request("join", table=table, seat=seat), "seat_taken")
    for seat in (4, 5):
        expect_error(await c.request("join", table=table, seat=seat), "no_such_seat")
    expect_error(await c.request("join", table=table, seat=6), "bad_message")
    expect_error(await c.request("join", table="nope"), "no_such_table")
    assert server.lobby.tables[table].seats[1] is None
    joined_c = await c.request("join", table=table)
    assert joined_c["t"] == "joined" and joined_c["seat"] == 1
    # the last seat taken: the table starts by itself
    for client in (a, b, c):
        await client.state(lambda v: v["phase"] != "lobby")
    d = await Client.connect(url, "D")
    expect_error(await d.request("join", table=table), "already_started")
    expect_error(await d.request("join", table=table, seat=1), "already_started")
    await close_all(host, a, b, c, d)


class Absent:
    """A seat holder that is not a network connection (a restored, not yet resumed seat)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def send(self, message: dict[str, Any]) -> None:
        pass


async def test_join_at_a_full_table_that_has_not_started_is_table_full(server, url):
    """Through the protocol a full table always starts at once, so `table_full` needs a
    table whose seats were all taken without a deal, as after a restart that restored
    the seats of a table whose deal was never written. Its seats are filled here directly."""
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3)
    for seat in range(3):
        server.lobby.tables[table].join(Absent(f"Ghost{seat}"), seat)
    expect_error(await host.request("join", table=table), "table_full")
    expect_error(await host.request("join", table=table, seat=1), "seat_taken")
    assert server.lobby.tables[table].game is None
    await host.close()


# -- watch -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "public_ok", "private_ok"),
    [
        ({"spectators": "none"}, False, False),
        ({"spectators": "public"}, True, False),
        ({"spectators": "all"}, True, True),
    ],
    indirect=["config"],
    ids=["none", "public", "all"],
)
async def test_watch_follows_the_spectator_policy(server, url, public_ok, private_ok):
    host = await Client.connect(url, "Host")
    public = await create(host, seats=3, bots=2)
    private = await create(host, seats=3, bots=2, password="pw")
    watcher = await Client.connect(url, "Watcher")
    expect_error(await watcher.request("watch", table="nope"), "no_such_table")

    reply = await watcher.request("watch", table=public)
    if public_ok:
        assert reply["t"] == "watching" and reply["table"] == public
        assert len(reply["cards"]) == 55
        view = await watcher.state(lambda v: True)
        assert view["you"] is None and view["legal"] is None
        assert view["table"]["spectators"] == 1
    else:
        expect_error(reply, "no_spectators")

    if not private_ok:
        expected = "no_spectators"
        for fields in ({}, {"password": "pw"}):
            expect_error(await watcher.request("watch", table=private, **fields), expected)
    else:
        for fields in ({}, {"password": "wrong"}):
            expect_error(await watcher.request("watch", table=private, **fields), "wrong_password")
        reply = await watcher.request("watch", table=private, password="pw")
        assert reply["t"] == "watching" and reply["table"] == private
        # it moved: the public table lost its spectator
        assert server.lobby.tables[public].spectators == set()
        assert len(server.lobby.tables[private].spectators) == 1
    await close_all(host, watcher)


# -- start -----------------------------------------------------------------------------


async def test_start_fills_empty_seats_with_bots_and_deals(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=4, bots=1)
    a, _ = await join(url, table, "A")
    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.request("watch", table=table))["t"] == "watching"
    for client in (host, watcher):  # only a seated player may start
        expect_error(await client.request("start"), "not_seated")
    assert server.lobby.tables[table].game is None

    reply = await a.request("start")
    assert reply["t"] == "state", reply  # the state that follows, with the start's rid
    view = reply["view"]
    assert view["phase"] in GAME_PHASES - {"over"} and view["round"] == 1
    assert [p["bot"] for p in view["players"]] == [False, True, True, True]
    assert all(p["name"] for p in view["players"])
    assert len({p["name"] for p in view["players"]}) == 4
    assert len(view["you"]["hand"]) == 5
    assert view["deck_count"] + sum(p["hand_count"] for p in view["players"]) == 55
    watched = await watcher.state(lambda v: v["phase"] != "lobby")
    assert watched["you"] is None
    expect_error(await a.request("start"), "already_started")
    await close_all(host, a, watcher)


async def test_a_table_starts_once_every_seat_is_taken(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3, bots=1)
    a, _ = await join(url, table, "A")
    assert (await a.state(lambda v: True))["phase"] == "lobby"
    assert server.lobby.tables[table].game is None
    b, _ = await join(url, table, "B")
    for client in (a, b):
        view = await client.state(lambda v: v["phase"] != "lobby")
        assert len(view["you"]["hand"]) == 5
    assert listing(await host.request("list"), table)["phase"] != "lobby"
    await close_all(host, a, b)


# -- leave -----------------------------------------------------------------------------


async def test_leave_before_the_start_frees_the_seat(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3)
    a, joined_a = await join(url, table, "A")
    b, _ = await join(url, table, "B")
    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.request("watch", table=table))["t"] == "watching"

    reply = await a.request("leave")
    assert reply["t"] == "left" and reply["table"] == table
    view = await b.state(lambda v: v["players"][0]["name"] is None)
    assert view["phase"] == "lobby"
    assert listing(await host.request("list"), table)["seated"] == 1
    expect_error(await a.request("leave"), "not_seated")
    expect_error(await host.request("resume", token=joined_a["token"]), "bad_token")
    c, joined_c = await join(url, table, "C", seat=0)
    assert joined_c["seat"] == 0
    # a spectator leaves too
    assert (await watcher.request("leave"))["t"] == "left"
    assert server.lobby.tables[table].spectators == set()
    # neither hears from the table any more
    a_frames, watcher_frames = len(a.received), len(watcher.received)
    d, _ = await join(url, table, "D")  # the last seat: the game starts
    await b.state(lambda v: v["phase"] != "lobby")
    assert (await a.request("list"))["t"] == "tables"
    assert (await watcher.request("list"))["t"] == "tables"
    assert [m["t"] for m in a.received[a_frames:]] == ["tables"]
    assert [m["t"] for m in watcher.received[watcher_frames:]] == ["tables"]
    await close_all(host, a, b, c, d, watcher)


async def test_leave_during_a_game_hands_the_seat_to_a_bot_for_good(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3, bots=1)
    a, joined_a = await join(url, table, "A")
    b, _ = await join(url, table, "B")
    view = await a.state(lambda v: v["phase"] != "lobby")
    assert view["to_act"] == 0  # A's decision: the game waits for A ...
    assert (await a.request("leave"))["t"] == "left"
    # ... until A leaves: a bot takes seat 0 and plays on, so B's turn comes
    view = await b.state(lambda v: v["legal"] is not None)
    assert view["to_act"] == 1 and view["players"][0]["bot"] is True
    assert view["players"][0]["name"] == "A"
    expect_error(await a.request("resume", token=joined_a["token"]), "bad_token")
    expect_error(await a.request("join", table=table), "already_started")
    assert server.lobby.tables[table].seats[0].is_bot
    await close_all(host, a, b)


# -- chat ------------------------------------------------------------------------------


def is_chat(message: dict[str, Any]) -> bool:
    return message["t"] == "chat"


@pytest.mark.parametrize("config", [{"chat_rate": 0.001, "chat_burst": 4}], indirect=True)
async def test_chat_is_cleaned_broadcast_replayed_and_rate_limited(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3)
    a, _ = await join(url, table, "Alice")
    b, _ = await join(url, table, "Bob")
    watcher = await Client.connect(url, "Wendy")
    assert (await watcher.request("watch", table=table))["t"] == "watching"

    rid = await a.send("chat", text="  hi\x1b[31m there\x07\tfriend\u202e!\r\n")
    expected = {"t": "chat", "from": "Alice", "text": "hi[31m there friend!", "table": table}
    assert await a.next(is_chat) == {**expected, "rid": rid}  # the speaker's copy answers
    for client in (b, watcher):
        assert await client.next(is_chat) == expected
    rid = await watcher.send("chat", text="ça va? 🦇")  # a spectator chats too, marked as watching
    spectator_line = {"t": "chat", "from": "Wendy", "text": "ça va? 🦇", "table": table}
    spectator_line["watching"] = True
    assert await watcher.next(is_chat) == {**spectator_line, "rid": rid}
    for client in (a, b):
        assert await client.next(is_chat) == spectator_line
    long = "x" * 280
    await b.send("chat", text=long + "\x1b")  # 281 sent, 280 once cleaned
    for client in (a, b, watcher):
        assert (await client.next(is_chat))["text"] == long
    for text in (long + "y", "\x1b\x07\u202e", "   "):
        expect_error(await b.request("chat", text=text), "bad_message")

    # a newcomer hears the history first, in order, then gets the table's state
    newcomer = await Client.connect(url, "Newt")
    reply = await newcomer.request("join", table=table)
    assert reply["t"] == "joined"
    history = [await newcomer.next() for _ in range(3)]
    assert [(m["t"], m["from"], m.get("watching", False)) for m in history] == [
        ("chat", "Alice", False),
        ("chat", "Wendy", True),
        ("chat", "Bob", False),
    ]
    assert (await newcomer.next())["t"] == "state"
    late = await Client.connect(url, "Late")
    assert (await late.request("watch", table=table))["t"] == "watching"
    # the game has begun (the newcomer filled the table): its story comes before the state
    expected = ["chat", "chat", "chat", "story", "state"]
    assert [(await late.next())["t"] for _ in expected] == expected

    # rate limited: Alice has used 1 of 4; 3 more pass, the next is refused, unsent
    for i in range(3):
        await a.send("chat", text=f"line {i}")
        assert (await b.next(is_chat))["text"] == f"line {i}"
    expect_error(await a.request("chat", text="one too many"), "rate_limited")
    expect_error(await a.request("chat", text="still too many"), "rate_limited")
    await b.send("chat", text="Bob may")  # others are not limited by Alice
    assert (await watcher.next(lambda m: is_chat(m) and m["from"] == "Bob"))["text"] == "Bob may"
    texts = [m["text"] for m in watcher.received if is_chat(m)]
    assert "one too many" not in texts and "still too many" not in texts
    await close_all(host, a, b, watcher, newcomer, late)


# -- rematch ---------------------------------------------------------------------------


async def test_r4_rematch_starts_a_new_game_dealt_by_the_next_seat(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=4, bots=1, variants={"round_cap": 1})
    a, _ = await join(url, table, "A")
    b, _ = await join(url, table, "B")
    c, _ = await join(url, table, "C")
    view = await a.state(lambda v: v["phase"] != "lobby")
    assert view["table"]["game"] == 1
    expect_error(await a.request("rematch"), "not_started")  # not over yet
    finals = await asyncio.gather(*(play_to_end(p, game=1) for p in (a, b, c)))
    assert all(f["phase"] == "over" and f["winner"] for f in finals)
    await c.close()  # C has gone: the rematch needs A and B only
    await a.state(lambda v: not v["players"][2]["connected"])

    reply = await a.request("rematch")
    assert reply["t"] == "state" and reply["view"]["phase"] == "over"
    assert reply["view"]["players"][0]["rematch"] is True
    assert reply["view"]["players"][1]["rematch"] is False
    assert server.lobby.tables[table].game_no == 1
    reply = await b.request("rematch")
    assert reply["t"] == "state", reply
    view = reply["view"]
    assert view["table"]["game"] == 2 and view["phase"] in GAME_PHASES - {"over"}
    assert view["dealer"] == 1  # R4: the deal passes left at each rematch
    assert view["round"] == 1 and len(view["you"]["hand"]) == 5
    assert not any(p["rematch"] for p in view["players"])
    assert [p["bot"] for p in view["players"]] == [False, False, False, True]
    view = await a.state(lambda v: v["table"]["game"] == 2)
    assert view["phase"] != "over"
    await close_all(host, a, b)


async def test_the_table_keeps_the_series_score_across_rematches(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3, bots=1, variants={"round_cap": 1})
    a, _ = await join(url, table, "A")
    b, _ = await join(url, table, "B")
    view = await a.state(lambda v: v["phase"] != "lobby")
    assert "wins" not in view["table"]  # no game won yet
    wins = [0, 0, 0]
    for game in (1, 2):
        finals = await asyncio.gather(*(play_to_end(p, game=game) for p in (a, b)))
        for seat in finals[0]["winner"]:
            wins[seat] += 1
        assert all(f["table"]["wins"] == wins for f in finals)  # the winners counted at once
        if game == 1:
            await a.request("rematch")
            reply = await b.request("rematch")
            assert reply["view"]["table"]["game"] == 2 and reply["view"]["table"]["wins"] == wins
    assert sum(wins) >= 2  # a tie at the round cap counts for each winner
    await close_all(host, a, b)


# -- bots only -------------------------------------------------------------------------


@pytest.mark.parametrize("config", [{"bot_delay": 0.05}], indirect=True)
async def test_a_table_of_bots_plays_to_the_end_for_a_spectator(server, url):
    host = await Client.connect(url, "Host")
    table = await create(host, seats=3, bots=3, variants={"round_cap": 3})
    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.request("watch", table=table))["t"] == "watching"
    final = await watcher.state(lambda v: v["phase"] == "over")
    assert final["winner"] and final["round"] <= 3
    states = watcher.states()
    assert any(m["view"]["phase"] not in ("over", "lobby") for m in states)  # it was live
    seqs = [m["seq"] for m in states]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every change, in order
    assert all(m["view"]["you"] is None for m in states)
    assert listing(await host.request("list"), table)["phase"] == "over"
    await close_all(host, watcher)


async def test_one_connection_cannot_take_two_seats_at_one_table(url):
    player = await Client.connect(url, "Greedy")
    table = (await player.request("create", name="Crypt", seats=4, bots=0))["table"]
    assert (await player.request("join", table=table))["seat"] == 0
    again = await player.request("join", table=table)
    assert again["t"] == "error" and again["code"] == "seat_taken"
    assert "seat 0" in again["message"]
    listing = (await player.request("list"))["tables"]
    assert [t["seated"] for t in listing if t["id"] == table] == [1]
    await player.close()
