"""The table core (server/tables/table.py) and its fan-out (fanout.py), without a network:
the core changes and records, sends nothing and arms nothing; a change is written to the
store before it is applied (Principle 6); one publish tells everyone."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import msgpack
import pytest

from protocol import ProtocolError, encode, server_messages
from server.game import REFEREE, SPECTATOR, Draw, Game, MoveError, Played, view
from server.store.sqlite import SqliteStore
from server.store.tables import ChatLine
from server.tables.fanout import publish
from server.tables.table import StoreFailed
from tests.kits.netkit import first_legal_move
from tests.kits.tablekit import (
    FakeClock,
    Keeper,
    first_legal,
    make_table,
    play_one,
    seat_players,
)
from tests.test_layering import ROOT, imported_modules


@pytest.mark.parametrize("module", ["table.py", "pace.py"])
def test_the_core_and_the_pace_know_no_event_loop_and_no_socket(module):
    imported = imported_modules(ROOT / "server" / "tables" / module)
    assert not imported & {"asyncio", "websockets", "socket", "threading"}


def test_states_and_chat_lines_are_built_in_the_fanout_only():
    """Fan-out in one place: no other server module makes a `state` or a `chat` frame."""
    makers = {
        path.name
        for path in sorted((ROOT / "server").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"State", "Chat"}
    }
    assert makers == {"fanout.py"}


def test_changes_send_nothing_until_published_and_each_is_one_state_number():
    clock = FakeClock()
    table = make_table(clock, bots=1)
    p0, p1 = seat_players(table)
    watcher = Keeper("Watcher")
    table.watch(watcher)
    assert table.seq == 2  # two joins
    assert table.start_if_full() and table.seq == 3
    play_one(table)
    assert table.seq == 4
    table.say(p0, "hello")
    assert table.seq == 4 and table.chat[-1] == ChatLine("P0", "hello")  # chat is not a state
    assert not table.disconnected(watcher) and not table.leave(watcher)  # a spectator
    assert table.seq == 4
    assert p0.received == p1.received == watcher.received == []


def test_publish_builds_each_seats_view_shares_one_with_spectators_and_answers_the_mover():
    clock = FakeClock()
    table = make_table(clock, bots=1)
    p0, p1 = seat_players(table)
    watchers = [Keeper("W1"), Keeper("W2")]
    for watcher in watchers:
        table.watch(watcher)
    table.start_if_full()
    publish(table, mover=p0, rid=7)
    (own,), (other,) = p0.received, p1.received
    assert isinstance(own, server_messages.State) and isinstance(other, server_messages.State)
    assert (own.seq, own.rid, other.seq, other.rid) == (table.seq, 7, table.seq, None)
    assert own.view.you is not None and own.view.you.seat == 0
    assert other.view.you is not None and other.view.you.seat == 1
    assert own.view.you.hand != other.view.you.hand
    (first,), (second,) = (w.received for w in watchers)
    assert first == second and first.rid is None and first.view.you is None
    assert first.seq == table.seq


@dataclass(eq=False)
class Framed:
    """A connection as the table sees it, keeping the frames it is sent as they are."""

    name: str
    frames: list[bytes] = field(default_factory=list)

    def send(self, message: bytes) -> None:
        self.frames.append(message)


def test_spectators_share_one_frame_and_every_frame_is_its_whole_state_encoded():
    """Each seat's frame is byte for byte its whole state encoded, and every spectator gets
    the one same frame: through a game to its end, blind draws (a log only their drawer
    reads) and the revealed end included."""
    table = make_table(FakeClock(), seats=4, table_id="framed")
    players = [Framed(f"P{seat}") for seat in range(4)]
    for seat, player in enumerate(players):
        table.join(player, seat)
    watchers = [Framed("W1"), Framed("W2")]
    for watcher in watchers:
        table.watch(watcher)
    assert table.start_if_full() and table.game is not None
    while True:
        mover = players[table.game.to_act() or 0]
        publish(table, mover=mover, rid=table.seq)
        for seat, player in enumerate(players):
            rid = table.seq if player is mover else None
            whole = server_messages.State(seq=table.seq, view=table.wire_view(seat), rid=rid)
            assert player.frames[-1] == encode(whole)
        (first, *_), (second, *_) = (reversed(w.frames) for w in watchers)
        assert first is second  # one frame for every spectator
        assert first == encode(server_messages.State(table.seq, table.wire_view(SPECTATOR)))
        if table.game.over:
            break
        play_one(table)


def file_store(tmp_path) -> SqliteStore:
    return SqliteStore(str(tmp_path / "games.db"))


def test_a_move_is_written_to_the_store_before_it_is_applied(tmp_path):
    clock = FakeClock()
    store = file_store(tmp_path)
    table = make_table(clock, store=store)
    seat_players(table)
    table.start_if_full()
    assert table.game is not None
    legal = table.wire_view(0).legal
    assert legal is not None
    move = first_legal(legal)
    before = (view(table.game, REFEREE), len(table.game.moves))

    db = store.database.connection
    db.execute("PRAGMA query_only = ON")  # every write now fails, as on a full disk
    with pytest.raises(StoreFailed) as refused:
        table.move(0, move)
    assert refused.value.code == "store_failed" and refused.value.table is table
    assert (view(table.game, REFEREE), len(table.game.moves)) == before
    assert table.stopped is not None and table.wire_view(0).table.stopped == table.stopped
    with pytest.raises(ProtocolError) as stopped:  # until a write lands, the table waits
        table.move(0, move)
    assert stopped.value.code == "table_stopped"
    assert not table.try_reopen() and table.stopped is not None

    db.execute("PRAGMA query_only = OFF")
    assert table.try_reopen() and table.stopped is None
    table.move(0, move)
    seed, moves = store.tables.game(table.id, table.game_no)
    assert seed is not None and moves == [Played(0, move)]
    replayed = Game.replay(table.deck, 3, seed, moves, table.variants)
    assert view(replayed, REFEREE) == view(table.game, REFEREE)  # memory is what disk says


def test_a_move_is_stored_as_the_wires_map_byte_for_byte(tmp_path):
    """The store keeps a move as it always did, msgpack of its wire map: a database of an
    older server replays here, and one of this server replays there."""
    store = file_store(tmp_path)
    table = make_table(FakeClock(), store=store)
    seat_players(table)
    table.start_if_full()
    wire = first_legal_move(table.wire_view(0).to_wire()["legal"]).to_wire()  # a client's map
    legal = table.wire_view(0).legal
    assert legal is not None
    table.move(0, first_legal(legal))
    (blob,) = store.database.connection.execute("SELECT move FROM moves WHERE idx = 0").fetchone()
    assert blob == msgpack.packb(wire)


def test_an_illegal_move_is_not_written(tmp_path):
    clock = FakeClock()
    store = file_store(tmp_path)
    table = make_table(clock, store=store)
    seat_players(table)
    table.start_if_full()
    with pytest.raises(MoveError) as refused:
        table.move(1, Draw("deck"))
    assert refused.value.code == "not_your_turn"
    assert store.tables.game(table.id, table.game_no)[1] == []


def test_a_deal_is_written_before_it_is_dealt(tmp_path):
    clock = FakeClock()
    store = file_store(tmp_path)
    table = make_table(clock, store=store)
    seat_players(table)
    seats = list(table.seats)
    store.database.connection.execute("PRAGMA query_only = ON")
    with pytest.raises(StoreFailed):
        table.start_if_full()
    assert table.game is None and table.game_no == 0 and table.seats == seats
    assert table.stopped is not None  # and the table says why it waits
