"""Principle 3 (event-sourced games) and Principle 4 (determinism): a game is (deck,
variants, seed, ordered moves), and replaying the moves rebuilds it exactly."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import (
    SPECTATOR,
    Draw,
    Game,
    Move,
    MoveError,
    Played,
    Variants,
    default_deck,
    legal,
    view,
)
from tests.game.enginekit import play_random, random_move, snapshot

DECK = default_deck()

players_st = st.integers(min_value=3, max_value=5)
seed_st = st.integers(min_value=0, max_value=2**32 - 1)
variants_st = st.builds(
    Variants,
    fate_discard=st.sampled_from(["any", "top"]),
    overflow=st.sampled_from(["draw_step", "immediate"]),
    round_cap=st.sampled_from([None, 2, 100]),
)


def state_of(game: Game) -> dict:
    """The snapshot without the record itself (moves), for comparing positions."""
    state = snapshot(game)
    del state["moves"]
    return state


@settings(max_examples=40, deadline=None)
@given(players=players_st, variants=variants_st, seed=seed_st, play_seed=seed_st)
def test_replay_rebuilds_every_position_exactly(players, variants, seed, play_seed):
    game = Game.new(DECK, players, seed, variants)
    rng = random.Random(play_seed)
    seen = [snapshot(game)]
    for _ in range(250):
        if game.over:
            break
        game.apply(*random_move(game, rng))
        seen.append(snapshot(game))
    again = Game.replay(DECK, players, seed, list(game.moves), variants)
    assert snapshot(again) == snapshot(game)
    assert again.winners == game.winners and again.events == game.events
    for cut in sorted(rng.sample(range(len(seen)), min(4, len(seen)))):
        prefix = Game.replay(DECK, players, seed, game.moves[:cut], variants)
        assert snapshot(prefix) == seen[cut]


def test_replay_from_the_wire_record():
    """What the server stores is each move's seat and its wire map; that is enough."""
    game = Game.new(DECK, 4, seed=77, variants=Variants(overflow="immediate"))
    play_random(game, random.Random(77), 400)
    record = [(seat, msgspec.msgpack.encode(move)) for seat, move in game.moves]
    moves = [Played(seat, msgspec.msgpack.decode(wire, type=Move)) for seat, wire in record]
    rebuilt = Game.replay(DECK, 4, 77, moves, game.variants)
    assert snapshot(rebuilt) == snapshot(game)
    for viewer in (0, 1, 2, 3, SPECTATOR):
        assert view(rebuilt, viewer).to_wire() == view(game, viewer).to_wire()


def test_a_whole_game_replays_to_the_same_winners():
    game = Game.new(DECK, 3, seed=5)
    play_random(game, random.Random(5), 10_000)
    assert game.over and game.winners
    again = Game.replay(DECK, 3, 5, game.moves)
    assert again.over and again.winners == game.winners
    assert again.events == game.events
    assert again.draw_pile == game.draw_pile and again.discard == game.discard


def test_different_seeds_deal_differently():
    deals = {
        seed: (tuple(map(tuple, game.hands)), tuple(game.draw_pile))
        for seed in range(30)
        for game in [Game.new(DECK, 3, seed)]
    }
    assert len(set(deals.values())) == 30


def test_the_same_moves_do_not_fit_another_seed():
    game = Game.new(DECK, 3, seed=1)
    play_random(game, random.Random(1), 60)
    with pytest.raises(MoveError):
        Game.replay(DECK, 3, 2, game.moves)


def test_reshuffles_are_part_of_the_determinism():
    # A long game reshuffles several times; the replay must draw the same cards after it.
    game = Game.new(DECK, 5, seed=31, variants=Variants(round_cap=None))
    play_random(game, random.Random(31), 1500)
    assert sum(e.kind == "reshuffle" for e in game.events) >= 2
    assert snapshot(Game.replay(DECK, 5, 31, game.moves, game.variants)) == snapshot(game)


@settings(max_examples=30, deadline=None)
@given(players=players_st, variants=variants_st, seed=seed_st, steps=st.integers(0, 200))
def test_from_position_of_a_reached_position_asks_the_same_decision(players, variants, seed, steps):
    game = Game.new(DECK, players, seed, variants)
    play_random(game, random.Random(seed), steps)
    copy = Game.from_position(
        DECK,
        hands=game.hands,
        fates=game.fates,
        draw_pile=game.draw_pile,
        discard=game.discard,
        turn=game.turn,
        phase=game.phase,
        round=game.round,
        variants=variants,
        known=game.known,
    )
    mine, theirs = state_of(game), state_of(copy)
    for key in ("events", "rng", "winners", "end_reason"):  # history, not position
        del mine[key], theirs[key]
    assert mine == theirs
    assert copy.to_act() == game.to_act()
    for seat in range(players):
        assert legal(copy, seat) == legal(game, seat)


def test_a_refused_move_is_not_recorded():
    game = Game.new(DECK, 3, seed=12)
    with pytest.raises(MoveError):
        game.apply(0, Draw("deck"))  # seat 0 is at the distribute step
    assert game.moves == []
    assert snapshot(Game.replay(DECK, 3, 12, game.moves)) == snapshot(game)
