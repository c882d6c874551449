"""view(game, viewer): the one choke point for secrets (Principle 1, RULES
"Information"). Random play is covered by test_properties; these are the exact cases."""

from __future__ import annotations

import copy
import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import encode
from protocol.view import Drew, SeatInfo, TableInfo, View
from server.game import (
    REFEREE,
    SPECTATOR,
    Distribute,
    Draw,
    Game,
    Variants,
    default_deck,
    story,
    view,
)
from tests.game.enginekit import make_deck, play_random, position


def fresh() -> Game:
    """Seat 0 holds 0-4; seat 1 holds 5-9; seat 2 holds 10-12; 13, 14 in the draw pile;
    the discard pile is empty; seat 1's Fate pile holds a cure (card 13 is never used)."""
    deck = make_deck({12: (2, -1, 0)})
    return position(
        deck,
        hands=[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11]],
        fates=[[], [12], []],
        draw_pile=[13, 14],
    )


def test_a_spectator_sees_no_hand_and_has_no_decision():
    wire = view(fresh(), SPECTATOR).to_wire()
    assert wire["you"] is None and wire["legal"] is None
    assert [p["hand_count"] for p in wire["players"]] == [5, 5, 2]
    assert all("hand" not in p for p in wire["players"])
    assert wire["deck_count"] == 2
    assert "reveal" not in wire
    assert wire["players"][1]["fate"] == [12]
    assert wire["players"][1]["scores"] == {"goth": 2, "sickness": 0, "money": 0}


def test_a_seat_sees_its_own_hand_and_decision_only():
    game = fresh()
    mine = view(game, 0).to_wire()
    assert mine["you"] == {"seat": 0, "hand": [0, 1, 2, 3, 4]}
    assert mine["legal"]["kind"] == "distribute" and mine["legal"]["hand"] == [0, 1, 2, 3, 4]
    assert all("hand" not in p for p in mine["players"])
    theirs = view(game, 1).to_wire()
    assert theirs["you"] == {"seat": 1, "hand": [5, 6, 7, 8, 9]}
    assert theirs["legal"] is None
    assert view(game, 1).hand == (5, 6, 7, 8, 9)
    assert view(game, SPECTATOR).hand is None


def test_a_blind_draw_is_seen_only_by_the_drawer():
    game = fresh()
    game.apply(0, Distribute(((0, 0), (1, 1), (2, 2))))
    game.apply(0, Draw("deck"))  # card 14
    for viewer, sees in ((0, True), (1, False), (2, False), (SPECTATOR, False), (REFEREE, True)):
        entry = view(game, viewer).to_wire()["log"][-1]
        assert entry["kind"] == "draw" and entry["seat"] == 0 and entry["source"] == "deck"
        assert ("card" in entry) is sees, viewer
        if sees:
            assert entry["card"] == 14
        assert 14 not in view(game, viewer).to_wire()["players"][0]["known_hand"]


def test_a_card_taken_from_the_discard_pile_is_public():
    deck = make_deck()
    game = position(deck, hands=[[], [5, 6, 7], [8, 9, 10]], discard=[11, 12], phase="draw")
    game.apply(0, Draw("discard", 12))
    game.apply(0, Draw("deck"))
    for viewer in (0, 1, 2, SPECTATOR):
        wire = view(game, viewer).to_wire()
        assert wire["players"][0]["known_hand"] == [12]
        assert wire["log"][-2] == {"kind": "draw", "seat": 0, "source": "discard", "card": 12}
        assert ("card" in wire["log"][-1]) is (viewer == 0)


def test_a_known_card_stops_being_shown_once_it_leaves_the_hand():
    game = position(
        make_deck(),
        hands=[[3, 4, 12], [5], [6]],
        phase="distribute",
        known=[[12], [], []],
    )
    assert view(game, 1).players[0].known_hand == (12,)
    game.apply(0, Distribute(((0, 3), (1, 12), (2, 4))))
    assert view(game, 1).players[0].known_hand == ()
    assert view(game, 1).players[1].fate == (12,)


def test_the_referee_sees_everything_but_has_no_decision():
    game = fresh()
    ref = view(game, REFEREE)
    assert [p.hand for p in ref.players] == [(0, 1, 2, 3, 4), (5, 6, 7, 8, 9), (10, 11)]
    assert ref.reveal is not None and ref.reveal.draw_pile == (13, 14)
    assert ref.legal is None and ref.hand is None


def test_nothing_is_revealed_before_the_end_everything_after():
    deck = make_deck({0: (9, 0, 0), 1: (9, 0, 0), 2: (2, 0, 0)})
    game = position(
        deck,
        hands=[[4, 5, 6, 7], [8], [9]],
        fates=[[0, 1, 2], [], []],
        phase="draw",
        seed=4242,
    )
    before = view(game, 1).to_wire()
    assert "reveal" not in before and before["winner"] is None
    game.apply(0, Draw("deck"))  # seat 0 wins
    for viewer in (0, 1, 2, SPECTATOR):
        wire = view(game, viewer).to_wire()
        assert wire["phase"] == "over" and wire["winner"] == [0]
        assert wire["reveal"] == {"draw_pile": game.draw_pile, "seed": 4242}
        assert [p["hand"] for p in wire["players"]] == game.hands
        assert wire["legal"] is None
        draws = [e for e in wire["log"] if e["kind"] == "draw"]
        assert draws and all("card" in e for e in draws)
        assert wire["log"][-1] == {"kind": "over", "winners": [0], "reason": "goth"}


def test_the_log_keeps_the_most_recent_entries():
    game = Game.new(default_deck(), 3, seed=2)
    play_random(game, random.Random(2), 60)
    assert len(game.events) > 30
    wire = view(game, SPECTATOR).to_wire()
    assert len(wire["log"]) == 30
    assert wire["log"][-1]["kind"] == game.events[-1].kind
    assert view(game, SPECTATOR, log_size=5).log == view(game, SPECTATOR).log[-5:]
    assert view(game, SPECTATOR, log_size=0).log == ()


def test_the_view_says_where_its_log_starts_in_the_whole_game():
    game = Game.new(default_deck(), 3, seed=2)
    assert view(game, SPECTATOR).log_start == 0
    assert "log_start" not in view(game, SPECTATOR).to_wire()  # 0 is left out
    play_random(game, random.Random(2), 60)
    seen = view(game, SPECTATOR)
    assert seen.log_start == len(game.events) - 30 > 0
    assert seen.log[0] == game.events[seen.log_start]


def test_the_view_carries_the_table_facts():
    game = position(
        make_deck(),
        hands=[[0], [1], [2]],
        fates=[[3], [], []],
        round=7,
        variants=Variants(fate_discard="top", round_cap=50),
    )
    table = TableInfo(
        variants=game.variants,
        id="t1",
        name="Crypt",
        deck="test",
        seats=3,
        game=1,
        spectators=0,
        password=False,
    )
    seats = tuple(
        SeatInfo(s, "Morticia", bot=False, connected=True, covered=False, rematch=False)
        for s in range(3)
    )
    wire = view(game, 2, table=table, seats=seats).to_wire()
    assert wire["table"]["id"] == "t1" and wire["table"]["name"] == "Crypt"
    assert wire["table"]["variants"]["fate_discard"] == "top"
    assert (wire["phase"], wire["turn"], wire["to_act"], wire["round"]) == (
        "discard_fate",
        0,
        0,
        7,
    )
    assert wire["round_cap"] == 50
    assert wire["discard"] == []
    assert wire["players"][0]["name"] == "Morticia"
    assert wire["players"][0]["fate"] == [3]
    assert wire["players"][2]["seat"] == 2


@pytest.mark.parametrize("viewer", [0, 1, 2, SPECTATOR])
def test_the_seed_never_shows_before_the_end(viewer):
    game = Game.new(default_deck(), 3, seed=987654321)
    wire = view(game, viewer).to_wire()
    assert "987654321" not in repr(wire)
    assert "reveal" not in wire


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32), moves=st.integers(0, 120), viewer=st.sampled_from([0, 2, SPECTATOR])
)
def test_every_view_parses_back_from_its_frame(seed, moves, viewer):
    """What the engine builds is what a client reads: encode, decode, View.from_wire."""
    game = Game.new(default_deck(), 3, seed)
    play_random(game, random.Random(seed), moves)
    built = view(game, viewer)
    assert View.from_wire(msgpack.unpackb(encode(built))) == built


# -- the view's memo: entries rebuilt only when they changed, never stale ----------------

variants_st = st.builds(
    Variants,
    fate_discard=st.sampled_from(["any", "top"]),
    overflow=st.sampled_from(["draw_step", "immediate"]),
    round_cap=st.sampled_from([None, 2, 100]),
)


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=5),
    variants=variants_st,
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    play_seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_views_built_from_the_memo_equal_views_built_from_scratch(
    players, variants, seed, play_seed
):
    """After every move, for every viewer in turn (the referee's revealed entries and the
    seats' hidden ones alternate), the view equals that of a copy with nothing remembered
    (a shallow copy is enough: the memo is kept by the game object, and a view reads its
    game without changing it)."""
    game = Game.new(default_deck(), players, seed, variants)
    rng = random.Random(play_seed)
    viewers = [*range(players), SPECTATOR, REFEREE]
    while True:
        for viewer in rng.sample(viewers, len(viewers)):
            assert view(game, viewer) == view(copy.copy(game), viewer)
        if game.over:
            break
        play_random(game, rng, 1)


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    play_seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_each_viewer_reads_the_log_as_its_story_tells_it(players, seed, play_seed):
    """The log redacted once for everyone (the memo) is, for every viewer and any length
    asked in any order, the newest events as `story` tells that viewer each of them."""
    game = Game.new(default_deck(), players, seed)
    rng = random.Random(play_seed)
    asks = [(viewer, size) for viewer in (*range(players), SPECTATOR, REFEREE) for size in (30, 5)]
    while True:
        for viewer, size in rng.sample(asks, len(asks)):
            start = max(0, len(game.events) - size)
            built = view(game, viewer, size)
            assert built.log == story(game, viewer, start)
            assert built.log_start == start
        if game.over:
            break
        play_random(game, rng, 1)


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    play_seed=st.integers(min_value=0, max_value=2**32 - 1),
    size=st.sampled_from([1, 5, 30]),
)
def test_a_log_slid_along_from_view_to_view_is_each_viewers_story(players, seed, play_seed, size):
    """As a server asks (one length, after every change): the shared log slid along by the
    events since the last view, and by more than the window holds, is still each viewer's
    story of the newest events."""
    game = Game.new(default_deck(), players, seed)
    rng = random.Random(play_seed)
    viewers = [*range(players), SPECTATOR]
    while not game.over:
        for viewer in rng.sample(viewers, len(viewers)):
            start = max(0, len(game.events) - size)
            built = view(game, viewer, size)
            assert built.log == story(game, viewer, start)
            assert built.log_start == start
        play_random(game, rng, rng.choice([1, 1, 1, 2, 12]))


def test_the_log_is_redacted_once_for_every_viewer_without_a_blind_draw_in_it():
    game = fresh()
    game.apply(0, Distribute(((0, 0), (1, 1), (2, 2))))
    game.apply(0, Draw("deck"))  # seat 0's blind draw: named to seat 0 alone
    spectator = view(game, SPECTATOR).log
    assert view(game, 1).log is spectator and view(game, 2).log is spectator
    own = view(game, 0).log
    assert own != spectator and own[:-1] == spectator[:-1]
    assert own[-1] == game.events[-1] and spectator[-1] == Drew(0, "deck")


def test_a_changed_seat_is_rebuilt_and_the_others_are_reused():
    game = fresh()
    seats = tuple(
        SeatInfo(s, f"P{s}", bot=False, connected=True, covered=False, rematch=False)
        for s in range(3)
    )
    before = view(game, SPECTATOR, seats=seats).players
    game.apply(0, Distribute(((0, 0), (1, 1), (2, 2))))
    placed = view(game, SPECTATOR, seats=seats).players
    assert [p.fate for p in placed] == [(0,), (12, 1), (2,)]
    assert all(a is not b for a, b in zip(before, placed, strict=True))  # every pile changed
    game.apply(0, Draw("deck"))
    drawn = view(game, 1, seats=seats).players
    assert drawn[0].hand_count == 3 and drawn[0] is not placed[0]
    assert drawn[1] is placed[1] and drawn[2] is placed[2]  # nothing of theirs changed
    # A lobby fact of one seat changes (it went offline): only its entry is rebuilt.
    offline = (
        seats[0],
        SeatInfo(1, "P1", bot=False, connected=False, covered=False, rematch=False),
        seats[2],
    )
    moved = view(game, 2, seats=offline).players
    assert moved[1].connected is False and moved[1] is not drawn[1]
    assert moved[0] is drawn[0] and moved[2] is drawn[2]
