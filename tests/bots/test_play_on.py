"""Play on from here: the new game starts where the seat was, as it knew it, and what it
could not see is dealt from the new game's seed alone, never from the real hidden cards."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.bots.jobs import PlayOnDeal
from server.bots.play_on import play_on, start_from_view, turn_start
from server.bots.worlds import determinize
from server.game import Game, Start, View, default_deck, view
from tests.bots.test_ismcts import same_but_log
from tests.bots.test_review import played_game

DECK = default_deck()


def knowledge(seen: View) -> tuple[object, ...]:
    """What a seat knows of a position: its hand, every public pile and count, whose turn."""
    return (
        seen.hand,
        seen.discard,
        seen.deck_count,
        seen.turn,
        seen.dealer,
        seen.round,
        seen.phase,
        seen.legal,
        seen.draw_pool,
        seen.pool_draws,
        tuple((p.fate, p.hand_count, p.known_hand, p.scores) for p in seen.players),
    )


def hidden(start: Start, seat: int) -> tuple[object, ...]:
    """The part of a start the seat could not see: the other hands and the draw pile."""
    return (*(h for s, h in enumerate(start.hands) if s != seat), start.draw_pile)


@settings(max_examples=6, deadline=None)
@given(
    seat=st.integers(0, 2),
    seed=st.integers(0, 10_000),
    turn=st.integers(1, 7),
    new_seed=st.integers(0, 2**32),
)
def test_a_played_on_game_starts_where_the_seat_was_as_it_knew_it(seat, seed, turn, new_seed):
    played = played_game(seed)  # three players, two rounds
    found = turn_start(played, turn)
    dealt = play_on(played, seat, turn, new_seed)
    if isinstance(found, int) or found.over:  # past the game's turns, or its end
        assert isinstance(dealt, str)
        return
    assert not isinstance(dealt, str)
    start, game_seed = dealt
    then = view(found, seat, log_size=0)
    game = Game.new(DECK, 3, game_seed, played.variants, 0, start)
    assert knowledge(view(game, seat, log_size=0)) == knowledge(then)
    assert game.position() == start  # set up again from what is stored, it is the same
    assert dealt == PlayOnDeal(played, seat, turn, new_seed).run()  # the seed decides it all


@settings(max_examples=6, deadline=None)
@given(
    seat=st.integers(0, 2),
    seed=st.integers(0, 10_000),
    turn=st.integers(1, 6),
    redeal=st.integers(0, 2**32),
    new_seed=st.integers(0, 2**32),
)
def test_the_start_does_not_depend_on_the_real_hidden_cards(seat, seed, turn, redeal, new_seed):
    """Re-deal the cards the seat could not see, consistently with its view: the started
    position is the same, public part, hand and sampled hidden part alike."""
    found = turn_start(played_game(seed), turn)
    if isinstance(found, int) or found.over:
        return
    real = view(found, seat, log_size=0)
    other_world = determinize(real, DECK, random.Random(redeal))
    other = view(other_world, seat, log_size=0)
    assert same_but_log(other, real)
    assert start_from_view(other, DECK, random.Random(new_seed)) == start_from_view(
        real, DECK, random.Random(new_seed)
    )


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), turn=st.integers(1, 6), a=st.integers(0, 2**32))
def test_only_the_hidden_part_follows_the_new_seed(seed, turn, a):
    found = turn_start(played_game(seed), turn)
    if isinstance(found, int) or found.over:
        return
    seen = view(found, 2, log_size=0)
    one = start_from_view(seen, DECK, random.Random(a))
    two = start_from_view(seen, DECK, random.Random(a + 1))
    assert one.hands[2] == tuple(found.hands[2]) == two.hands[2]
    assert (one.fates, one.discard, one.known, one.turn, one.round) == (
        two.fates,
        two.discard,
        two.known,
        two.turn,
        two.round,
    )
    assert one.fates == tuple(tuple(f) for f in found.fates)
    unseen = sum(len(h) for h in hidden(one, 2))
    if unseen > 1:  # two seeds deal the unseen cards differently, almost always
        assert hidden(one, 2) != hidden(two, 2) or hidden(one, 2) != hidden(
            start_from_view(seen, DECK, random.Random(a + 2)), 2
        )


def test_a_turn_past_the_last_is_refused_with_the_games_turns():
    played = played_game(3)
    turns = turn_start(played, 10_000)
    assert isinstance(turns, int) and turns > 1
    assert play_on(played, 0, turns + 1, 7) == f"the game has turns 1-{turns}, not {turns + 1}"
