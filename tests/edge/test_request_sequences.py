"""Random sequences of requests from several clients against an in-process server
(Hypothesis `RuleBasedStateMachine`): hello, create, join, leave, resume, watch, start,
move, chat, rematch, requests naming a table, and dropped connections, in any order.

Bots move at once; absent players are never covered and present ones never time out here
(those delays are far beyond a run). So after each step, once no bot has a move due and
every client has the answer to a marker request, the server has nothing in flight and every
invariant can be checked exactly:
- no leak: no `state` before the game is over holds another seat's hand or the reveal, and
  a spectator's has no `you`;
- one seat per token, one token per seat, and a connection plays one seat and watches one
  table at most (watching never takes it from its seat);
- views consistent: each client's newest `state` of each table it is at is that table's
  current one, equal to the view the server would build for that viewer now;
- every request is answered: a reply or an `error` carrying its rid, a code of the contract.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from websockets.exceptions import ConnectionClosed

from protocol import ERROR_CODES, ProtocolError
from server.edge.app import GotherServer
from server.edge.closes import CLOSE_REPLACED
from server.edge.config import ServerConfig
from server.game import SPECTATOR
from tests.kits.netkit import Client, first_legal_move

CLIENTS = 3
NEVER = 1e6  # seconds: bots and cover wait this long, i.e. not during a run
slot = st.integers(0, CLIENTS - 1)
pick = st.integers(0, 10)  # an index into what exists, modulo its length


class RequestSequences(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        config = ServerConfig(
            host="127.0.0.1", port=0, bot_delay=0.0, grace=NEVER, idle=NEVER, announce=False
        )
        # rate limits have tests of their own; here the markers would use them up
        config.rate = config.burst = config.costly_rate = config.costly_burst = 1e9
        config.chat_rate = config.chat_burst = 1e9
        self.server = GotherServer(config)
        self.run(self.server.start())
        self.url = f"ws://127.0.0.1:{self.server.port}"
        self.clients: list[Client | None] = [None] * CLIENTS
        self.checked: list[int] = [0] * CLIENTS  # frames already checked, per client
        self.tables: list[str] = []
        self.tokens: list[str] = []

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coroutine, 20))

    def teardown(self) -> None:
        for client in self.clients:
            if client is not None:
                self.run(client.close())
        self.run(self.server.close())
        self.loop.close()

    # -- helpers ---------------------------------------------------------------------------

    def ask(self, i: int, t: str, **fields: Any) -> dict[str, Any]:
        client = self.clients[i]
        assert client is not None
        reply: dict[str, Any] = self.run(client.request(t, **fields))
        if reply["t"] == "error":
            assert reply["code"] in ERROR_CODES  # a code of the contract
        if t == "resume" and reply["t"] == "joined":
            self.settle()  # the seat's former connection is being closed
        return reply

    def settle(self) -> None:
        """Every client has every frame the server queued for it so far (a marker request
        answered last), and the connections the server closed (a seat resumed elsewhere
        closes the old one with 4000) are gone on both sides."""

        def quiet() -> bool:  # no bot move due or under way
            pacer = self.server.pacer
            soon = self.loop.time() + NEVER / 2
            return not pacer.thinking and all(t.when() > soon for t in pacer.timers.values())

        async def settled() -> None:
            while True:
                if not quiet():
                    await asyncio.sleep(0.005)
                    continue
                for i, client in enumerate(self.clients):
                    if client is not None and client._reader.done():
                        assert client.ws.close_code == CLOSE_REPLACED, client.ws.close_code
                        self.clients[i] = None
                live = [c for c in self.clients if c is not None]
                if len(self.server.connections) == len(live):
                    try:
                        for client in live:
                            await client.request("list")
                        if quiet():
                            return
                    except ConnectionClosed:
                        pass  # closed meanwhile: look again
                await asyncio.sleep(0.005)

        self.run(settled())

    def table(self, which: int) -> str:
        return self.tables[which % len(self.tables)]

    # -- rules -------------------------------------------------------------------------------

    @initialize(watch=st.booleans())
    def a_game_under_way(self, watch: bool) -> None:
        """Start where every request has something to act on: all connected, a game of two
        of them and a bot dealt, the third watching it (or not)."""
        for i in range(CLIENTS):
            self.hello(i)
        self.create(0, 3, 1)
        for seat in range(2):
            self.join(seat, 0, seat)
        if watch:
            self.watch(2, 0)

    @rule(i=slot)
    def hello(self, i: int) -> None:
        if self.clients[i] is None:
            self.clients[i] = self.run(Client.connect(self.url, f"C{i}"))
            self.checked[i] = 0
        else:
            reply = self.ask(i, "hello", v=1, name=f"C{i}")
            assert reply["t"] == "error" and reply["code"] == "bad_message"  # said already

    @rule(i=slot, seats=st.integers(3, 4), bots=st.integers(0, 2))
    def create(self, i: int, seats: int, bots: int) -> None:
        if self.clients[i] is not None:
            reply = self.ask(i, "create", name="Crypt", seats=seats, bots=bots)
            if reply["t"] == "created":
                self.tables.append(reply["table"])

    @precondition(lambda self: self.tables)
    @rule(i=slot, which=pick, seat=st.none() | st.integers(0, 4))
    def join(self, i: int, which: int, seat: int | None) -> None:
        if self.clients[i] is not None:
            fields = {} if seat is None else {"seat": seat}
            reply = self.ask(i, "join", table=self.table(which), **fields)
            if reply["t"] == "joined":
                self.tokens.append(reply["token"])

    @precondition(lambda self: self.tokens)
    @rule(i=slot, which=pick)
    def resume(self, i: int, which: int) -> None:
        if self.clients[i] is not None:
            self.ask(i, "resume", token=self.tokens[which % len(self.tokens)])

    @precondition(lambda self: self.tables)
    @rule(i=slot, which=pick)
    def watch(self, i: int, which: int) -> None:
        if self.clients[i] is not None:
            self.ask(i, "watch", table=self.table(which))

    @rule(i=slot, kind=st.sampled_from(["start", "leave", "rematch", "hint"]))
    def plain(self, i: int, kind: str) -> None:
        if self.clients[i] is not None:
            self.ask(i, kind)

    @precondition(lambda self: self.tables)
    @rule(i=slot, which=pick, kind=st.sampled_from(["start", "leave", "rematch", "hint", "chat"]))
    def named(self, i: int, which: int, kind: str) -> None:
        """A request naming its table acts there, or is refused if this connection is not
        at it (a seat for a seat's request) and changes nothing."""
        if self.clients[i] is None:
            return
        table = self.table(which)
        self.settle()  # a connection dropped before is gone from the server too
        conn = next(c for c in self.server.connections if c.name == f"C{i}")
        at = [t.id for t in (conn.seated, conn.watched) if t is not None]
        allowed = at if kind in ("leave", "chat") else at[:1] if conn.seated else []
        fields = {"text": "hi"} if kind == "chat" else {}
        reply = self.ask(i, kind, table=table, **fields)
        if table not in allowed:
            assert reply["t"] == "error" and reply["code"] == "not_seated", reply
        elif reply["t"] != "error" and kind in ("leave", "chat"):
            assert reply["table"] == table, reply

    @rule(i=slot, text=st.text(min_size=1, max_size=20))
    def chat(self, i: int, text: str) -> None:
        if self.clients[i] is not None:
            reply = self.ask(i, "chat", text=text)  # the speaker's own copy, or an error
            assert reply["t"] in ("chat", "error"), reply

    @rule(i=slot, legal=st.booleans())
    def move(self, i: int, legal: bool) -> None:
        """A legal move by whoever is asked for one (if anyone is), or any move by `i`."""
        asked = {j: view["legal"] for j, view in self.seated_views().items() if view["legal"]}
        if legal and asked:
            j = sorted(asked)[i % len(asked)]
            reply = self.ask(j, "move", move=first_legal_move(asked[j]))
            assert reply["t"] == "state", reply  # the newest view asked: it is current
        elif self.clients[i] is not None:
            self.ask(i, "move", move={"kind": "draw", "source": "deck"})

    def seated_views(self) -> dict[int, dict[str, Any]]:
        """The newest view of each client that holds a seat now (one that left or moved
        on keeps its last state, but no longer plays it)."""
        self.settle()
        views = {}
        for conn in self.server.connections:
            table = conn.seated
            if table is not None and table.seat_of(conn) is not None:
                j = int(conn.name[1:])
                client = self.clients[j]
                assert client is not None
                views[j] = newest_state(client, table.id)["view"]
        return views

    @rule(i=slot)
    def drop(self, i: int) -> None:
        client = self.clients[i]
        if client is not None:
            self.run(client.close())
            self.clients[i] = None

    # -- invariants --------------------------------------------------------------------------

    @invariant()
    def nothing_leaks(self) -> None:
        for i, client in enumerate(self.clients):
            if client is None:
                continue
            for message in client.received[self.checked[i] :]:
                if message["t"] != "state" or message["view"]["phase"] == "over":
                    continue
                view = message["view"]
                assert "reveal" not in view
                own = None if view["you"] is None else view["you"]["seat"]
                assert all("hand" not in p for p in view["players"]), view["players"]
                assert own is None or len(view["you"]["hand"]) == view["players"][own]["hand_count"]
            self.checked[i] = len(client.received)

    @invariant()
    def one_seat_per_token_and_one_table_per_connection(self) -> None:
        self.settle()
        seats = []
        for token in self.tokens:
            try:
                table, seat = self.server.lobby.find_seat(token)
            except ProtocolError as exc:
                assert exc.code == "bad_token"
                continue
            seats.append((table.id, seat))
        assert len(seats) == len(set(seats))
        hashes = [
            s.token_hash
            for t in self.server.lobby.tables.values()
            for s in t.seats
            if s is not None and s.token_hash is not None
        ]
        assert len(hashes) == len(set(hashes))
        for conn in self.server.connections:
            tables = self.server.lobby.tables.values()
            playing = [t for t in tables if t.seat_of(conn) is not None]
            watching = [t for t in tables if conn in t.spectators]
            assert playing == ([] if conn.seated is None else [conn.seated])
            assert watching == ([] if conn.watched is None else [conn.watched])
            assert not set(map(id, playing)) & set(map(id, watching))  # one role at a table

    @invariant()
    def every_view_is_current(self) -> None:
        self.settle()
        for conn in self.server.connections:
            client = self.clients[int(conn.name[1:])]
            assert client is not None
            for table in {id(t): t for t in (conn.seated, conn.watched) if t}.values():
                newest = newest_state(client, table.id)
                assert newest["seq"] == table.seq, (newest["seq"], table.seq)
                seat = table.seat_of(conn)
                expected = table.wire_view(SPECTATOR if seat is None else seat).to_wire()
                for view in (newest["view"], expected):
                    view["table"]["spectators"] = None  # watching changes it, not the state
                assert newest["view"] == expected, [
                    (k, newest["view"][k], expected[k])
                    for k in expected
                    if newest["view"].get(k) != expected[k]
                ]


def newest_state(client: Client, table_id: str) -> dict[str, Any]:
    """The newest `state` a client got of one table (a connection may be at two)."""
    return [m for m in client.states() if m["view"]["table"]["id"] == table_id][-1]


RequestSequences.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRequestSequences = RequestSequences.TestCase
