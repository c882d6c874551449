"""A client someone else could write from docs/protocol.md alone (issue 19.5).

The probe speaks only `websockets` and `msgpack`, never our packages: it builds every
request as the document shows it and checks every reply against what the document says,
so a behaviour the document does not describe, or describes wrongly, fails here. It plays
whole games against bots on a real `gother serve` process (the one import of ours is the
test kit that starts that process), and checks on the way that every request is answered
with its `rid`, that the view keeps its documented promises (scores are sums of the Fate
pile, hands match their counts, the seed fits a JavaScript number), that the record is
the documented map, and that bad input gets the documented error code.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from itertools import count
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.kits.prockit import ServerProcess

TIMEOUT = 20.0  # seconds for any one awaited frame: two busy cores run the server too
MAX_FRAME = 65_536
JS_SAFE = 2**53 - 1  # the largest integer a JavaScript number holds exactly
SCORES = ("goth", "sickness", "money")
# docs/protocol.md: which frame answers each request (any of them may be an `error`)
REPLIES = {
    "hello": {"welcome"},
    "prove": {"proven"},
    "list": {"tables"},
    "create": {"created"},
    "join": {"joined"},
    "resume": {"joined"},
    "watch": {"watching"},
    "start": {"state"},
    "move": {"state"},
    "chat": {"chat"},
    "hint": {"hint"},
    "leave": {"left"},
    "rematch": {"state"},
    "pause": {"state"},
    "end": {"state", "closed"},
    "record": {"record"},
    "review": {"review"},
    "play_on": {"joined"},
    "standings": {"standings"},
    "tournament_create": {"tournament"},
    "tournament_join": {"tournament"},
    "tournament_start": {"tournament"},
    "tournament_drop": {"tournament"},
    "tournament_watch": {"tournament"},
}
# docs/protocol.md field by field: (the fields a map must have, those it may have as well).
# A field the server sends beyond these is a behaviour the document does not describe.
Fields = tuple[set[str], set[str]]
FRAMES: dict[str, Fields] = {
    "welcome": ({"t", "v", "server"}, {"rid", "challenge"}),
    "proven": ({"t", "identity", "seats"}, {"rid"}),
    "tables": ({"t", "tables", "total"}, {"rid", "offset", "tournaments"}),
    "created": ({"t", "table"}, {"rid"}),
    "joined": ({"t", "table", "seat", "token", "cards"}, {"rid", "covered_rounds"}),
    "watching": ({"t", "table", "cards"}, {"rid"}),
    "state": ({"t", "seq", "view"}, {"rid"}),
    "chat": ({"t", "from", "text", "table"}, {"rid", "watching"}),
    "hint": (
        {"t", "move"},
        {"rid", "reason", "win", "goth", "versus", "versus_win", "versus_goth"},
    ),
    "left": ({"t", "table"}, {"rid"}),
    "record": ({"t", "table", "game", "part", "parts", "data"}, {"rid", "seat"}),
    "review": ({"t", "table", "game", "seat", "moments", "costliest"}, {"rid"}),
    "standings": ({"t", "rows", "offset", "total", "provisional_games"}, {"rid"}),
    "tournament": (
        {"t", "id", "name", "rounds", "seats", "duplicate", "variants", "phase", "round"}
        | {"players", "tables", "standings"},
        {"rid", "secret"},
    ),
    "closed": ({"t", "table", "reason"}, {"rid"}),
    "story": ({"t", "table", "game", "start", "log"}, set()),
    "error": ({"t", "code", "message"}, {"rid"}),
}
ROW: Fields = (
    {"id", "name", "seats", "seated", "free", "bots", "players", "phase", "started"}
    | {"spectators", "password", "variants", "deck"},
    {"broken", "bot", "trait", "lasts"},
)
CARD: Fields = ({"id", "name", "flavour", "goth", "sickness", "money"}, set())
STANDINGS_ROW: Fields = (
    {"player", "name", "bot", "reference", "mu", "sigma", "provisional", "games", "wins"}
    | {"places", "last_seen"},
    {"rating", "spread"},  # absent from older servers
)
VIEW: Fields = (
    {"table", "phase", "turn", "dealer", "to_act", "round", "round_cap", "deck_count"}
    | {"discard", "players", "you", "legal", "winner", "log"},
    {"reveal", "log_start", "draw_pool", "pool_draws"},
)
TABLE: Fields = (
    {"variants", "id", "name", "deck", "seats", "game", "spectators", "password"},
    {"clock", "paused", "pause_votes", "end_votes", "warning", "stopped", "wins"},
)
VARIANTS: Fields = ({"fate_discard", "overflow", "round_cap", "two_or_six"}, set())
PLAYER: Fields = (
    {"seat", "name", "bot", "connected", "hand_count", "hand_limit", "fate", "scores"}
    | {"in_debt", "known_hand"},
    {"hand", "covered", "rematch", "clock", "trait"},
)
LEGAL: dict[str, Fields] = {
    "discard_fate": ({"kind", "cards"}, set()),
    "distribute": ({"kind", "hand", "recipients", "count", "each_gets_one"}, set()),
    "draw": ({"kind", "deck", "discard", "in_debt", "remaining"}, set()),
    "discard_hand": ({"kind", "cards", "count"}, set()),
}
EVENTS: dict[str, Fields] = {
    "turn": ({"kind", "seat", "round"}, set()),
    "discard_fate": ({"kind", "seat", "card"}, set()),
    "place": ({"kind", "seat", "to", "card"}, set()),
    "swoon": ({"kind", "seat", "cards"}, set()),
    "draw": ({"kind", "seat", "source"}, {"card"}),
    "discard_hand": ({"kind", "seat", "card"}, set()),
    "reshuffle": ({"kind", "count"}, set()),
    "over": ({"kind", "winners", "reason"}, set()),
}
FIRST_HINT = 60.0  # seconds the first hint may take: a search worker starts on a loaded machine
ERROR_CODES = {  # the table of error codes in docs/protocol.md
    "bad_frame",
    "bad_message",
    "bad_version",
    "hello_first",
    "rate_limited",
    "too_many_tables",
    "bad_deck",
    "no_spectators",
    "no_such_table",
    "no_such_seat",
    "seat_taken",
    "table_full",
    "wrong_password",
    "too_many_attempts",
    "bad_token",
    "not_seated",
    "already_started",
    "not_started",
    "not_your_turn",
    "illegal_move",
    "game_over",
    "store_failed",
    "table_stopped",
    "table_broken",
    "paused",
    "too_many_seats",
    "no_record",
    "no_such_turn",
    "name_taken",
    "bad_door",
    "bad_signature",
    "no_tournaments",
    "no_such_tournament",
    "not_organiser",
    "not_registered",
    "no_standings",
    "busy",
    "search_failed",
    "server_error",
    "thinking",
}


@pytest.fixture
async def url(tmp_path) -> AsyncIterator[str]:
    """A real server process: bots move at once, so a whole game takes seconds."""
    server = await ServerProcess.start(
        "--db", str(tmp_path / "games.db"), "--bot-delay", "0", "--no-announce"
    )
    try:
        yield server.url
    finally:
        await server.stop()


class Probe:
    """One connection: every frame it gets is kept in order; `ask` sends a request with a
    fresh rid and returns the frame that echoes it, checked to be its documented reply."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.views: dict[str, dict[str, Any]] = {}  # the newest view of each table
        self.cards: dict[str, dict[int, dict[str, Any]]] = {}  # each table's catalogue
        self.gaps = 0  # states whose seq skipped one: a change this connection missed
        self._seqs: dict[str, int] = {}
        self._rids = count(1)
        self._more = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, name: str | None = None) -> Probe:
        probe = cls(await connect(url, max_size=MAX_FRAME, compression=None))
        if name is not None:
            welcome = await probe.ask("hello", v=1, name=name)
            assert welcome["v"] == 1 and isinstance(welcome["server"], str), welcome
        return probe

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                assert isinstance(data, bytes), "the server sent a text frame"
                frame = msgpack.unpackb(data, raw=False)
                assert isinstance(frame, dict) and isinstance(frame.get("t"), str), frame
                self._note(frame)
                self.frames.append(frame)
                self._more.set()
        except ConnectionClosed:
            pass
        finally:
            self._more.set()

    def _note(self, frame: dict[str, Any]) -> None:
        """Check a frame's fields, and keep each table's newest view, checking that its seq
        only ever goes up."""
        kind = frame["t"]
        assert kind in FRAMES, f"a {kind!r} frame: no such message in docs/protocol.md (FRAMES)"
        documented(kind, frame, FRAMES[kind])
        for row in frame.get("tables", ()):
            documented("tables row", row, ROW)
        for card in frame.get("cards", ()):
            documented("card", card, CARD)
        if kind == "standings":
            for row in frame["rows"]:
                documented("standings row", row, STANDINGS_ROW)
        if kind == "story":  # its events in the shapes of the view's log
            for event in frame["log"]:
                documented(f"{event['kind']} event", event, EVENTS[event["kind"]])
        if frame["t"] in ("joined", "watching"):
            self._seqs.pop(frame["table"], None)  # count afresh from each joined / watching
            if frame["cards"]:  # a second watch of the same table has no cards
                self.cards[frame["table"]] = {c["id"]: c for c in frame["cards"]}
        if frame["t"] != "state":
            return
        view = frame["view"]
        table = view["table"]["id"]
        last = self._seqs.get(table)
        assert last is None or frame["seq"] > last, (last, frame["seq"])
        self.gaps += last is not None and frame["seq"] != last + 1
        self._seqs[table] = frame["seq"]
        self.views[table] = view
        check_view(view, self.cards[table])

    async def send(self, t: str, **fields: Any) -> int:
        rid = next(self._rids)
        await self.ws.send(msgpack.packb({"t": t, "rid": rid, **fields}))
        return rid

    async def wait(
        self, wanted: Callable[[dict[str, Any]], bool], start: int = 0
    ) -> dict[str, Any]:
        """The first frame from index `start` on that is `wanted`."""
        async with asyncio.timeout(TIMEOUT):
            seen = start
            while True:
                for frame in self.frames[seen:]:
                    if wanted(frame):
                        return frame
                seen = len(self.frames)
                if self._reader.done():
                    self._reader.result()  # a frame the document does not allow: raised here
                    raise AssertionError(f"connection closed ({self.ws.close_code}) waiting")
                self._more.clear()
                await self._more.wait()

    async def ask(self, t: str, **fields: Any) -> dict[str, Any]:
        """Send a request; its answer: the documented reply, or an `error`, with its rid."""
        start = len(self.frames)
        rid = await self.send(t, **fields)
        reply = await self.wait(lambda f: f.get("rid") == rid, start)
        assert reply["t"] in REPLIES.get(t, set()) | {"error"}, (t, reply)
        if reply["t"] == "error":
            assert reply["code"] in ERROR_CODES and reply["message"], reply
        return reply

    async def hint(self) -> dict[str, Any]:
        """A hint, asked again while the server answers `thinking` (the document says
        clients do: the server holds each ask up to 0.9 s, so no pause between)."""
        deadline = time.monotonic() + FIRST_HINT
        while True:
            reply = await self.ask("hint")
            if reply.get("code") != "thinking" or time.monotonic() > deadline:
                return reply

    async def refused(self, code: str, t: str, **fields: Any) -> dict[str, Any]:
        reply = await self.ask(t, **fields)
        assert reply["t"] == "error" and reply["code"] == code, (t, fields, reply)
        return reply

    async def state(self, table: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The newest view of `table` once it is `wanted` (waiting for it if need be)."""
        await self.wait(lambda _: table in self.views and wanted(self.views[table]))
        return self.views[table]

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.wait_for(self._reader, TIMEOUT)


# -- what the document promises of a view -----------------------------------------------


def documented(where: str, value: dict[str, Any], fields: Fields) -> None:
    required, optional = fields
    missing, extra = required - set(value), set(value) - required - optional
    assert not missing and not extra, f"{where}: missing {missing}, undocumented {extra}"


def check_view(view: dict[str, Any], cards: dict[int, dict[str, Any]]) -> None:
    documented("view", view, VIEW)
    documented("view.table", view["table"], TABLE)
    documented("view.table.variants", view["table"]["variants"], VARIANTS)
    for player in view["players"]:
        documented("player", player, PLAYER)
        documented("scores", player["scores"], ({*SCORES}, set()))
    for event in view["log"]:
        documented(f"log event {event['kind']}", event, EVENTS[event["kind"]])
    if view["legal"] is not None:
        documented("legal", view["legal"], LEGAL[view["legal"]["kind"]])
    if view["you"] is not None:
        documented("you", view["you"], ({"seat", "hand"}, set()))
    if "reveal" in view:
        documented("reveal", view["reveal"], ({"draw_pile", "seed"}, set()))
    assert ("draw_pool" in view) == ("pool_draws" in view)  # R14's public facts go together
    if "draw_pool" in view:
        assert view["deck_count"] <= len(view["draw_pool"]) and len(view["pool_draws"]) == len(
            view["players"]
        )
    players = view["players"]
    assert [p["seat"] for p in players] == list(range(view["table"]["seats"]))
    over = view["phase"] == "over"
    for player in players:
        sums = {key: sum(cards[c][key] for c in player["fate"]) for key in SCORES}
        scores = player["scores"]
        assert scores["goth"] == sums["goth"] and scores["money"] == sums["money"]  # R5
        assert scores["sickness"] == max(0, sums["sickness"])  # R6: floored
        assert player["in_debt"] == (sums["money"] < 0)  # R9
        assert player["hand_limit"] == 5 - scores["sickness"]  # R8
        assert set(player["known_hand"]) <= set(player.get("hand", player["known_hand"]))
        assert ("hand" in player) == over  # others' hands only once the game is over
    you = view["you"]
    if you is not None:
        assert len(you["hand"]) == players[you["seat"]]["hand_count"]
        asked = view["to_act"] == you["seat"] and not over and view["phase"] != "lobby"
        assert (view["legal"] is not None) == asked, view  # paused too: a move waits
    else:
        assert view["legal"] is None
    assert ("reveal" in view) == over
    if over:
        assert view["winner"] and view["log"][-1]["kind"] == "over"
        seed = view["reveal"]["seed"]
        assert type(seed) is int and 0 <= seed <= JS_SAFE, seed  # exact in JavaScript too
    else:
        assert view["winner"] is None


def move_for(legal: dict[str, Any]) -> dict[str, Any]:
    """The first legal choice, built from `legal` as the document describes it."""
    kind = legal["kind"]
    if kind == "discard_fate":
        return {"kind": kind, "card": legal["cards"][0]}
    if kind == "distribute":
        pairs = zip(legal["recipients"], legal["hand"][: legal["count"]], strict=False)
        return {"kind": kind, "give": [[seat, card] for seat, card in pairs]}
    if kind == "draw":
        if legal["deck"]:
            return {"kind": kind, "source": "deck"}
        return {"kind": kind, "source": "discard", "card": legal["discard"][0]}
    return {"kind": kind, "card": legal["cards"][0]}


def ours(view: dict[str, Any]) -> bool:
    """A view that waits on us, or the game's end."""
    return view["phase"] == "over" or view["legal"] is not None


async def play(probe: Probe, table: str, moves: int | None = None) -> dict[str, Any]:
    """Make our moves at `table` (all of them, or `moves` of them); every one is answered
    by the `state` carrying its rid, of that table, with the move applied."""
    view = await probe.state(table, ours)
    made = 0
    while view["phase"] != "over" and made != moves:
        reply = await probe.ask("move", move=move_for(view["legal"]))
        assert reply["t"] == "state" and reply["view"]["table"]["id"] == table, reply
        made += 1
        view = await probe.state(table, ours)
    return view


async def new_table(probe: Probe, **fields: Any) -> str:
    reply = await probe.ask("create", **{"name": "Crypt", "seats": 3, "bots": 2, **fields})
    assert reply["t"] == "created" and isinstance(reply["table"], str), reply
    return str(reply["table"])


async def sit(probe: Probe, table: str, **fields: Any) -> dict[str, Any]:
    joined = await probe.ask("join", table=table, **fields)
    assert joined["t"] == "joined" and joined["table"] == table, joined
    assert 16 <= len(joined["token"]) <= 128 and joined["cards"], joined
    return joined


# -- the tests ------------------------------------------------------------------------------


async def test_whole_games_against_bots_as_the_document_tells_them(url):
    probe = await Probe.open(url, "Lydia")
    table = await new_table(probe, variants={"fate_discard": "top"})
    listing = await probe.ask("list")
    row = next(r for r in listing["tables"] if r["id"] == table)
    assert listing["total"] >= 1 and row["seated"] == 2 and row["free"] == 1, row
    joined = await sit(probe, table)
    assert joined["seat"] == 0  # the bots took the last seats
    final = await play(probe, table)
    assert final["table"]["game"] == 1 and final["dealer"] == 0
    assert probe.gaps == 0  # a seated connection hears every change of its table

    await probe.refused("game_over", "move", move={"kind": "draw", "source": "deck"})
    await probe.refused("not_started", "pause", on=True)
    await probe.refused("not_started", "end")
    rematch = await probe.ask("rematch")  # the only human asks: the next game is dealt
    assert rematch["t"] == "state" and rematch["view"]["table"]["game"] == 2
    assert rematch["view"]["dealer"] == 1  # R4: the deal passes to the left
    second = await play(probe, table)
    assert second["table"]["game"] == 2 and second["table"]["wins"]

    record = await whole_record(probe, table, game=1)
    assert record["seed"] == final["reveal"]["seed"] and record["game"] == 1
    assert record["players"][0] == "Lydia" and record["ended"] is None
    assert record["variants"]["fate_discard"] == "top"
    assert [c["id"] for c in record["cards"]] == sorted(probe.cards[table])
    assert len(record["views"]) == len(record["moves"]) + 1  # after the deal, after each move
    assert record["views"][-1]["phase"] == "over"
    for told, seen in zip(record["views"][-1]["players"], final["players"], strict=True):
        assert (told["fate"], told["scores"], told["hand"]) == (
            seen["fate"],
            seen["scores"],
            seen["hand"],
        )
    for seat, move in record["moves"]:
        assert 0 <= seat < 3 and move["kind"] in (
            "discard_fate",
            "distribute",
            "draw",
            "discard_hand",
        )
    await probe.refused("no_record", "record", table=table, game=3)
    await probe.close()


async def whole_record(probe: Probe, table: str, **fields: Any) -> dict[str, Any]:
    """`record` part by part, joined, decoded: the map `gother export` writes."""
    first = await probe.ask("record", table=table, **fields)
    assert first["t"] == "record" and first["part"] == 0 and first["parts"] >= 1, first
    data = [first["data"]]
    for part in range(1, first["parts"]):
        reply = await probe.ask("record", table=table, part=part, **fields)
        assert reply["part"] == part and len(reply["data"]) <= 48 * 1024
        data.append(reply["data"])
    await probe.refused("no_record", "record", table=table, part=first["parts"], **fields)
    record = msgpack.unpackb(b"".join(data), raw=False)
    assert record["record"] == 1 and record["table"]["id"] == table, record.keys()
    assert set(record) == {
        "record",
        "table",
        "variants",
        "players",
        "cards",
        "seed",
        "game",
        "moves",
        "chat",
        "ended",
        "views",
    }
    return dict(record)


async def test_every_request_is_answered_with_its_rid(url):
    """hello, list, create, join, watch, start, hint, pause, move, chat, leave, resume,
    rematch, end, record: each gets its documented reply (or an error), with its rid."""
    lydia = await Probe.open(url, "Lydia")
    raven = await Probe.open(url, "Raven")
    table = await new_table(lydia, bots=0)
    await sit(lydia, table)
    await sit(raven, table)
    watching = await raven.ask("watch", table=table)  # sitting there: nothing changes
    assert watching["t"] == "watching" and watching["cards"] == []
    started = await lydia.ask("start")
    assert started["t"] == "state" and started["view"]["phase"] != "lobby"

    heard = len(raven.frames)
    said = await lydia.ask("chat", text="  good evening\x1b[31m ")
    assert said == {
        "t": "chat",
        "from": "Lydia",
        "text": "good evening[31m",
        "table": table,
        "rid": said["rid"],
    }
    other = await raven.wait(lambda f: f["t"] == "chat", heard)
    assert "rid" not in other and other["text"] == said["text"]  # a broadcast to the rest
    # a newcomer hears the recent chat, the game's story so far, then the state
    wendy = await Probe.open(url, "Wendy")
    watching = await wendy.ask("watch", table=table)
    assert watching["t"] == "watching" and watching["cards"], watching
    after = await wendy.wait(lambda f: f["t"] == "state")
    told = wendy.frames[wendy.frames.index(watching) + 1 : wendy.frames.index(after)]
    assert told[0] == {"t": "chat", "from": "Lydia", "text": said["text"], "table": table}
    assert [f["t"] for f in told[1:]] == ["story"] and told[1]["start"] == 0
    story, view = told[1]["log"], after["view"]
    assert story[view.get("log_start", 0) :] == view["log"]  # the state's log ends the story
    await wendy.close()

    legal = started["view"]["legal"]  # seat 0 dealt, so it plays first (R4)
    hint = await lydia.hint()
    assert hint["t"] == "hint" and hint["move"]["kind"] == legal["kind"], hint
    await raven.refused("not_your_turn", "hint")

    paused = await lydia.ask("pause", on=True)
    assert paused["t"] == "state" and paused["view"]["table"]["pause_votes"] == [0]
    paused = await raven.ask("pause", on=True)  # every human present voted: paused
    assert paused["view"]["table"]["paused"] is True
    await lydia.refused("paused", "move", move=move_for(legal))
    going = await raven.ask("pause", on=False)  # going on is a vote alike: one is not enough
    assert going["t"] == "state" and going["view"]["table"]["paused"] is True
    going = await lydia.ask("pause", on=False)  # every voter agrees: the game goes on
    assert going["t"] == "state" and not going["view"]["table"].get("paused")

    voted = await lydia.ask("end")
    assert voted["t"] == "state" and voted["view"]["table"]["end_votes"] == [0]
    heard = len(lydia.frames)
    closed = await raven.ask("end")  # the deciding vote: the table closes
    assert closed["t"] == "closed" and closed["table"] == table and closed["reason"]
    told = await lydia.wait(lambda f: f["t"] == "closed", heard)
    assert "rid" not in told
    await lydia.refused("not_seated", "move", move={"kind": "draw", "source": "deck"})
    record = await whole_record(lydia, table)
    assert record["ended"] == "abandoned"

    # leave and resume, on a new table
    table = await new_table(lydia, bots=0)
    joined = await sit(lydia, table)
    left = await lydia.ask("leave")  # before the deal: the seat is free again
    assert left == {"t": "left", "table": table, "rid": left["rid"]}
    await lydia.refused("not_seated", "leave")
    joined = await sit(lydia, table)
    back = await Probe.open(url, "Lydia")
    resumed = await back.ask("resume", token=joined["token"])
    assert resumed["t"] == "joined" and resumed["seat"] == joined["seat"]
    async with asyncio.timeout(TIMEOUT):
        await lydia._reader
    assert lydia.ws.close_code == 4000  # the seat was resumed from another connection
    await back.refused("bad_token", "resume", token="x" * 16)
    for probe in (raven, back):
        await probe.close()


async def test_watching_another_table_never_unseats_your_moves(url):
    lydia = await Probe.open(url, "Lydia")
    show = await new_table(lydia, bots=3)  # bots only: it plays at once, for spectators
    table = await new_table(lydia, bots=1)
    raven = await Probe.open(url, "Raven")
    await sit(lydia, table, seat=0)
    await sit(raven, table, seat=1)  # the table is full: dealt
    view = await play(lydia, table, moves=0)  # our first decision, or the game's end
    watching = await lydia.ask("watch", table=show)
    assert watching["t"] == "watching" and watching["table"] == show
    await raven.ask("list")  # raven has every frame sent before this answer
    assert raven.views[table]["players"][0]["connected"] is True  # still at her seat

    # a seat's request goes to the seat's table; chat to the table watched last
    reply = await lydia.ask("move", move=move_for(view["legal"]))
    assert reply["t"] == "state" and reply["view"]["table"]["id"] == table
    assert (await lydia.ask("chat", text="hello show"))["table"] == show
    assert (await lydia.ask("chat", text="hello table", table=table))["table"] == table
    await lydia.refused("not_seated", "chat", text="nowhere", table="no-such")
    await lydia.refused("not_seated", "hint", table=show)  # no seat there
    await lydia.refused("not_seated", "move", move=move_for(view["legal"]), table=show)

    left = await lydia.ask("leave", table=show)  # stop watching; the seat stays
    assert left["t"] == "left" and left["table"] == show
    # the whole game, from the seat, on the same connection (raven plays hers meanwhile)
    await asyncio.gather(play(lydia, table), play(raven, table))
    left = await lydia.ask("leave")  # nothing watched now: the seat's table is the last
    assert left["table"] == table
    for probe in (lydia, raven):
        await probe.close()


async def test_bad_input_gets_the_documented_error_codes(url):
    probe = await Probe.open(url)
    await probe.refused("hello_first", "list")
    for version in (2, 0, "1", 1.0, True, None):
        reply = await probe.refused("bad_version", "hello", v=version, name="Future")
        assert "protocol 1" in reply["message"]
    await probe.refused("bad_version", "hello", name="Unversioned")
    await probe.refused("bad_message", "hello", v=1, name="Esc\x1b[31m")
    assert (await probe.ask("hello", v=1, name="Probe"))["t"] == "welcome"
    await probe.refused("bad_message", "hello", v=1, name="Again")

    for data in (msgpack.packb([1, 2]), b"\xc1", msgpack.packb({"t": 7})):
        start = len(probe.frames)
        await probe.ws.send(data)
        reply = await probe.wait(lambda f: f["t"] == "error", start)
        assert reply["code"] == "bad_frame" and "rid" not in reply, reply
    start = len(probe.frames)
    await probe.ws.send("a text frame")
    assert (await probe.wait(lambda f: f["t"] == "error", start))["code"] == "bad_frame"
    reply = await probe.refused("bad_message", "dance")
    assert "dance" in reply["message"]
    reply = await probe.refused("bad_message", "list", colour="mauve")
    assert "colour" in reply["message"]
    await probe.refused("bad_message", "create", name="Crypt", seats=9, bots=0)
    await probe.refused("bad_message", "create", name="Crypt", seats=3, bots=True)
    await probe.refused("bad_deck", "create", name="Crypt", seats=3, bots=0, deck="nope")

    await probe.refused("no_such_table", "join", table="no-such")
    await probe.refused("no_such_table", "watch", table="no-such")
    await probe.refused("not_seated", "move", move={"kind": "draw", "source": "deck"})
    await probe.refused("not_seated", "chat", text="anyone?")
    await probe.refused("not_seated", "leave")
    table = await new_table(probe, bots=1)
    await probe.refused("no_such_seat", "join", table=table, seat=5)
    await probe.refused("seat_taken", "join", table=table, seat=2)
    await sit(probe, table, seat=0)
    await probe.refused("seat_taken", "join", table=table)  # a second seat here
    await probe.refused("not_started", "move", move={"kind": "draw", "source": "deck"})
    await probe.refused("not_started", "pause", on=True)
    await probe.refused("not_started", "rematch")
    other = await Probe.open(url, "Other")
    await sit(other, table)
    third = await Probe.open(url, "Third")
    await third.refused("already_started", "join", table=table)  # a full table has dealt
    view = await probe.state(table, lambda v: v["phase"] != "lobby")
    await probe.refused("already_started", "start")
    await third.refused("already_started", "join", table=table, seat=0)
    await probe.refused("no_record", "record", table=table)  # in progress: it would tell all
    asked, idle = (probe, other) if view["to_act"] == 0 else (other, probe)
    view = await asked.state(table, lambda v: v["legal"] is not None)
    await idle.refused("not_your_turn", "move", move=move_for(view["legal"]))
    reply = await asked.refused(
        "bad_message", "move", move={"kind": "draw", "source": "deck", "card": 3}
    )
    assert "card" in reply["message"]
    await asked.refused("illegal_move", "move", move={"kind": "discard_hand", "card": 254})
    sent = [await probe.send("chat", text=f"line {i}") for i in range(8)]  # bursts of 5
    replies = [await probe.wait(lambda f, rid=rid: f.get("rid") == rid) for rid in sent]
    assert {r["t"] for r in replies} == {"chat", "error"}  # each answered: said, or refused
    assert {r["code"] for r in replies if r["t"] == "error"} == {"rate_limited"}
    private = await new_table(probe, password="velvet", bots=0)
    await third.refused("wrong_password", "join", table=private, password="wrong")
    await third.refused("no_spectators", "watch", table=private)
    for client in (probe, other, third):
        await client.close()
