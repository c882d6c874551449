"""The repositories behave alike over both stores (tests/store/conftest.py runs each test on
SQLite and on PostgreSQL): people, tournaments, a live table's log, what a finished game leaves
(record, outcome, archive), a table that leaves, and what a restart reads back."""

from __future__ import annotations

import pytest

from protocol.moves import DiscardFate, Draw
from protocol.requests import Clock
from protocol.view import Variants
from server.game import Played, default_deck_text
from server.store.database import StoreError
from server.store.kinds import Store
from server.store.tables import ChatLine, SeatRecord, TableRecord
from server.store.tournaments import Entrant, TournamentRecord
from tests.store.conftest import Opener

OUTCOME = '{"finished": "2026-01-01T00:00:00+00:00", "seats": [], "winners": [0]}'


def new_table(store: Store, table_id: str = "t1", password_hash: str | None = None) -> None:
    store.tables.save_table(
        TableRecord(
            id=table_id,
            name="Crypt",
            seats=3,
            bot_kind="heuristic",
            variants=Variants(round_cap=12),
            deck_name="original",
            deck_toml=default_deck_text(),
            password_hash=password_hash,
            clock=Clock(initial=300, increment=5),
        )
    )


def seats(token: str | None = "hash0") -> list[SeatRecord]:
    return [
        SeatRecord(0, "Ann", token, None, bank=300.0, identity="id-ann"),
        SeatRecord(1, "Bot", None, "heuristic"),
        SeatRecord(2, "Cy", "hash2", None, bank=290.5, left_game=1),
    ]


def dealt(store: Store, table_id: str = "t1", moves: int = 3) -> list[Played]:
    """A table with three seats and game 1 dealt, `moves` moves into it, two chat lines."""
    new_table(store, table_id)
    store.tables.start_game(table_id, 1, seed=2**52 + 7, seats=seats())
    played = [Played(i % 3, DiscardFate(i)) for i in range(moves)]
    for idx, step in enumerate(played):
        store.tables.add_move(table_id, 1, idx, step.seat, step.move, cover=idx == 1)
    store.tables.add_chat(table_id, 1, ChatLine("Ann", "evening"))
    store.tables.add_chat(table_id, 1, ChatLine("Dee", "hi all", watching=True))
    return played


# -- people --------------------------------------------------------------------------------


def test_a_name_is_owned_under_each_of_its_keys_and_given_back(store: Store):
    people = store.people
    people.claim_name({"lydia", "1ydia"}, "Lydia", "id-1", seen=10.0)
    assert sorted(people.name_owners({"1ydia", "other"})) == [("id-1", 10.0)]
    assert people.name_of("id-1") == "Lydia"
    people.claim_name({"lydia"}, "LYDIA", "id-1", seen=20.0)  # used again: seen now
    assert people.name_of("id-1") == "LYDIA"
    assert sorted(people.name_owners({"lydia", "1ydia"})) == [("id-1", 10.0), ("id-1", 20.0)]
    assert people.name_owners(set()) == []
    assert people.release_name({"lydia", "1ydia", "never"}) == 2
    assert people.name_owners({"lydia", "1ydia"}) == [] and people.name_of("id-1") is None


# -- tournaments ---------------------------------------------------------------------------


def test_a_tournament_comes_back_with_its_players_and_rounds_in_order(store: Store):
    kept = store.tournaments
    for n, tid in enumerate(("tz", "ta"), 1):  # made second, sorted first: order is making's
        kept.save_tournament(
            TournamentRecord(tid, f"Night {n}", 3, 4, Variants(), "normal", n == 1, "org")
        )
    kept.add_tournament_player("tz", 1, "p:b")
    kept.add_tournament_player("tz", 2, "p:a", secret="hashed")
    kept.add_tournament_player("tz", 3, "p:c")
    kept.remove_tournament_players("tz", ["p:c"])
    kept.drop_tournament_player("tz", "p:a", forfeit="tab1")
    kept.save_tournament_round("tz", 1, [("tab1", ["p:b", "p:a"]), ("tab2", ["p:x"])])
    kept.save_tournament_round("tz", 2, [("tab3", ["p:b"])])
    first, second = kept.all()
    assert (first.id, first.name, first.duplicate, second.id) == ("tz", "Night 1", True, "ta")
    assert first.variants == Variants() and first.bot_kind == "normal"
    assert first.players == [
        Entrant("p:b", False, None, None),
        Entrant("p:a", True, "tab1", "hashed"),
    ]
    assert first.rounds_played == [
        [("tab1", ["p:b", "p:a"]), ("tab2", ["p:x"])],
        [("tab3", ["p:b"])],
    ]
    with pytest.raises(StoreError):
        kept.add_tournament_player("tz", 4, "p:b")  # registered already
    assert len(kept.all()[0].players) == 2


def test_a_table_s_tournament_and_round_are_read_from_the_rounds_stored(store: Store):
    kept = store.tournaments
    for tid in ("tz", "ta"):
        kept.save_tournament(TournamentRecord(tid, tid, 3, 4, Variants(), "normal", False, "org"))
    kept.save_tournament_round("tz", 1, [("tab1", ["p:b"]), ("tab2", ["p:x"])])
    kept.save_tournament_round("tz", 2, [("tab3", ["p:b"])])
    kept.save_tournament_round("ta", 1, [("tab4", ["p:c"])])
    asked = ["tab3", "tab2", "tab4", "lone", "tab1"]
    assert kept.rounds_of(asked) == {
        "tab1": ("tz", 1),
        "tab2": ("tz", 1),
        "tab3": ("tz", 2),
        "tab4": ("ta", 1),
    }
    assert kept.rounds_of(["lone"]) == {} and kept.rounds_of([]) == {}
    # a host's every table at a start, past the parameters one statement may have
    many = [f"t{n:05d}" for n in range(70_000)]
    assert kept.rounds_of([*many, "tab4"]) == {"tab4": ("ta", 1)}


# -- a live table --------------------------------------------------------------------------


def test_a_live_table_comes_back_whole_after_a_restart(opener: Opener):
    store = opener()
    played = dealt(store)
    store.tables.add_move("t1", 1, 3, 1, Draw("deck"), bank=250.25)
    store.tables.set_password_hash("t1", "salted")
    store.tables.delete_seat("t1", 2)
    store.close()
    (record,) = opener().tables.load()
    assert isinstance(record, TableRecord)
    assert (record.id, record.game_no, record.seed) == ("t1", 1, 2**52 + 7)
    assert record.moves == [*played, Played(1, Draw("deck"))]
    assert record.password_hash == "salted" and record.clock == Clock(initial=300, increment=5)
    assert record.variants == Variants(round_cap=12)
    assert [(s.seat, s.token_hash, s.bank) for s in record.seat_records] == [
        (0, "hash0", 300.0),
        (1, None, 250.25),
    ]
    assert record.seat_records[0].identity == "id-ann"
    assert record.chat == [ChatLine("Ann", "evening"), ChatLine("Dee", "hi all", True)]


def test_a_refused_change_writes_nothing_of_itself(store: Store):
    dealt(store)
    with pytest.raises(StoreError):  # the same game again: its seats go with it
        store.tables.start_game("t1", 1, seed=8, seats=[SeatRecord(1, "Bo", None, None)])
    assert store.tables.table("t1").seat_records[1].name == "Bot"
    with pytest.raises(StoreError):
        new_table(store)  # the id is taken


# -- a game over, and a table that leaves --------------------------------------------------


def test_a_finished_game_is_in_the_archive_with_its_outcome(store: Store):
    played = dealt(store)
    assert not store.outcomes.has_outcome("t1", 1)
    store.outcomes.finish_game("t1", 1, OUTCOME)
    archive = store.archive
    assert archive.has_table("t1") and store.tables.has_table("t1")
    assert archive.game("t1", 1) == (2**52 + 7, played)
    assert archive.movers("t1", 1) == [(0, False), (1, True), (2, False)]
    assert archive.start("t1", 1) is None and archive.ended("t1", 1) is None
    assert not archive.played_on("t1")
    record = archive.table("t1")
    assert record.players() == ("Ann", "Bot", "Cy") and record.game_no == 1
    assert record.chat[-1] == ChatLine("Dee", "hi all", True)
    assert store.outcomes.outcome("t1", 1) == OUTCOME
    assert store.outcomes.has_outcome("t1", 1) and store.outcomes.has_games()
    assert [tuple(o) for o in store.outcomes.all()] == [("t1", 1, OUTCOME)]
    assert store.outcomes.games_without_outcome() == []


def test_a_table_that_leaves_mid_game_keeps_its_game_as_abandoned(opener: Opener):
    store = opener()
    played = dealt(store)
    store.outcomes.finish_game("t1", 1, OUTCOME)
    store.tables.start_game("t1", 2, seed=99, seats=seats())
    store.tables.add_move("t1", 2, 0, 0, DiscardFate(9))
    store.tables.archive_table("t1", abandoned=True)
    assert store.tables.load() == []  # no longer live
    archive = store.archive
    assert archive.game("t1", 1) == (2**52 + 7, played)
    assert archive.game("t1", 2) == (99, [Played(0, DiscardFate(9))])
    assert archive.ended("t1", 2) == "abandoned" and archive.ended("t1", 1) is None
    assert [s.token_hash for s in archive.table("t1").seat_records] == [None, None, None]
    assert store.outcomes.outcome("t1", 2) is None  # an abandoned game counts for no one
    assert [o.game for o in store.outcomes.all()] == [1]
    assert store.tables.has_table("t1")  # its id stays taken
    store.close()
    assert opener().tables.load() == []


def test_a_table_that_never_dealt_leaves_no_trace(store: Store):
    new_table(store, "t9")
    assert store.tables.has_table("t9")
    store.tables.delete_table("t9")
    assert not store.tables.has_table("t9") and not store.archive.has_table("t9")
    assert store.tables.load() == [] and not store.outcomes.has_games()


def test_a_table_made_to_play_on_is_practice(store: Store):
    from server.game import Start

    new_table(store, "p1")
    start = Start(
        hands=((4,), (5,), (6,)),
        fates=((), (7,), ()),
        draw_pile=(1, 2),
        discard=(3,),
        known=((), (5,), ()),
        turn=1,
        dealer=0,
        phase="discard_fate",
        round=3,
    )
    store.tables.start_game("p1", 1, seed=5, seats=seats(), start=start)
    store.tables.add_move("p1", 1, 0, 1, DiscardFate(5))
    store.outcomes.finish_game("p1", 1, OUTCOME)
    assert store.archive.played_on("p1") and store.outcomes.practice_tables() == {"p1"}
    assert store.archive.start("p1", 1) == start
