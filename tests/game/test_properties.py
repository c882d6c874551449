"""Properties of random legal play (Hypothesis): 3-5 players, both variants of each rule,
random seeds, up to MAX_MOVES moves a game. Each example is a whole game (or its start).

Invariants checked after every move:
- the 55 cards are each in exactly one place (hands, Fate piles, draw pile, discard pile);
- R5/R6: each player's scores are the sums of their own Fate pile, Sickness floored in the view;
- R7: once a move settles nobody has an effective Sickness of 5 or more;
- R8/R12/R13: whenever a turn ends, that player's hand is exactly at their limit, or short of
  it because both piles are empty; never over it;
- R13/H2: with overflow = "immediate" an over-full hand is always the decision being waited on;
- R15: a turn that ends without a win ends below 20 Goth Points; a goth win is the active
  player's, a round-cap win the leaders';
- the cards known to be in a hand are exactly those taken from the discard pile and still held;
- every view hides what it must (see check_view).
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import (
    SPECTATOR,
    SWOON_AT,
    WIN_GOTH,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Drew,
    Game,
    GameOver,
    HandDiscarded,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Placed,
    TurnBegan,
    Variants,
    default_deck,
    legal,
    view,
)
from server.game.view import LOG_SIZE
from tests.game.enginekit import all_cards, random_move

MAX_MOVES = 300
DECK = default_deck()

players_st = st.integers(min_value=3, max_value=5)
seed_st = st.integers(min_value=0, max_value=2**32 - 1)
variants_st = st.builds(
    Variants,
    fate_discard=st.sampled_from(["any", "top"]),
    overflow=st.sampled_from(["draw_step", "immediate"]),
    round_cap=st.sampled_from([None, 1, 3, 100]),
)


# -- invariants ------------------------------------------------------------------------


def check_state(game: Game) -> None:
    assert all_cards(game) == list(range(len(DECK)))
    spectator = view(game, SPECTATOR)
    for seat in range(game.players):
        fate = game.fates[seat]
        goth = sum(DECK.goth[c] for c in fate)
        sickness = sum(DECK.sickness[c] for c in fate)
        money = sum(DECK.money[c] for c in fate)
        assert (game.goth[seat], game.sickness_sum[seat], game.money[seat]) == (
            goth,
            sickness,
            money,
        )
        shown = spectator.players[seat]
        assert (shown.goth, shown.sickness, shown.money) == (goth, max(0, sickness), money)
        assert shown.hand_limit == 5 - max(0, sickness)
        assert max(0, sickness) < SWOON_AT
        assert game.known[seat] <= set(game.hands[seat])
    if game.over:
        assert game.to_act() is None
        assert all(legal(game, s) is None for s in range(game.players))
        return
    actor = game.to_act()
    assert actor is not None
    assert legal(game, actor) is not None
    assert all(legal(game, s) is None for s in range(game.players) if s != actor)
    over_limit = [
        (s - game.turn) % game.players
        for s in range(game.players)
        if len(game.hands[s]) > game.hand_limit(s)
    ]
    if game.variants.overflow == "immediate" and over_limit:
        assert actor == (game.turn + min(over_limit)) % game.players
        assert isinstance(legal(game, actor), LegalDiscardHand)
    # R13 has one home: the predicate says exactly when legal() asks for a discard-down.
    assert game.must_discard_down(actor) == isinstance(legal(game, actor), LegalDiscardHand)
    if game.variants.overflow != "immediate":
        must = [s for s in range(game.players) if game.must_discard_down(s)]
        assert must == ([game.turn] if game.phase == "draw" and 0 in over_limit else [])


def check_turn_ends(game: Game, new_events: list[Any]) -> None:
    ended = [(e.seat - 1) % game.players for e in new_events if isinstance(e, TurnBegan)]
    if game.over:
        ended.append(game.turn)
    for seat in ended:
        held, limit = len(game.hands[seat]), game.hand_limit(seat)
        assert held == limit or (held < limit and not game.draw_pile and not game.discard)
    for event in new_events:
        if isinstance(event, TurnBegan):
            assert game.goth[(event.seat - 1) % game.players] < WIN_GOTH
        if isinstance(event, GameOver):
            assert game.winners == event.winners
            if event.reason == "goth":
                assert event.winners == (game.turn,)
                assert game.goth[game.turn] >= WIN_GOTH
            else:
                assert game.round == game.variants.round_cap
                best = max(game.goth)
                assert event.winners == tuple(
                    s for s in range(game.players) if game.goth[s] == best
                )


def track_known(known: list[set[int]], new_events: list[Any]) -> None:
    """The public-knowledge model: a card is known to be in a hand from the moment it is
    taken from the discard pile until it leaves that hand."""
    for event in new_events:
        if isinstance(event, Drew) and event.source == "discard":
            known[event.seat].add(event.card)
        elif isinstance(event, Placed | HandDiscarded):
            known[event.seat].discard(event.card)


def play_checked(game: Game, rng: random.Random, *, each_move=None) -> None:
    known: list[set[int]] = [set() for _ in range(game.players)]
    check_state(game)
    for _ in range(MAX_MOVES):
        if game.over:
            break
        seen = len(game.events)
        new_events = game.apply(*random_move(game, rng))
        assert new_events == game.events[seen:]  # apply returns what it recorded, all of it
        check_state(game)
        check_turn_ends(game, new_events)
        track_known(known, new_events)
        assert game.known == known
        if each_move is not None:
            each_move(game)


@settings(max_examples=60, deadline=None)
@given(players=players_st, variants=variants_st, seed=seed_st, play_seed=seed_st)
def test_invariants_over_random_legal_play(players, variants, seed, play_seed):
    game = Game.new(DECK, players, seed, variants)
    play_checked(game, random.Random(play_seed))


# -- views never leak ------------------------------------------------------------------


def _cards(value: Any) -> set[int]:
    return set(value) if isinstance(value, list) else set()


def check_view(game: Game, viewer: Any) -> None:
    wire = view(game, viewer).to_wire()
    msgpack.packb(wire)  # plain data only: it must go on the wire as it is
    over = game.over
    seat = viewer if isinstance(viewer, int) else None
    assert ("reveal" in wire) == over
    if over:
        assert wire["reveal"] == {"draw_pile": game.draw_pile, "seed": game.seed}
    # What is shown outside the log, by structure.
    shown = set(wire["discard"])
    for player in wire["players"]:
        s = player["seat"]
        assert player["fate"] == game.fates[s]
        assert player["hand_count"] == len(game.hands[s])
        assert player["known_hand"] == sorted(game.known[s])
        assert ("hand" in player) == over
        shown |= set(player["fate"]) | set(player["known_hand"]) | set(player.get("hand", ()))
    if seat is None:
        assert wire["you"] is None and wire["legal"] is None
    else:
        assert wire["you"] == {"seat": seat, "hand": game.hands[seat]}
        choice = legal(game, seat)
        assert wire["legal"] == (None if choice is None else choice.to_wire())
        shown |= set(wire["you"]["hand"])
        if wire["legal"] is not None:
            for key in ("cards", "hand", "discard"):
                shown |= _cards(wire["legal"].get(key))
    if not over:
        assert not shown & set(game.draw_pile)
        for other in range(game.players):
            if other != seat:
                assert not shown & (set(game.hands[other]) - game.known[other])
    # The log: the events, with a blind draw's card only for its drawer (or once over).
    events = game.events[-LOG_SIZE:]
    assert len(wire["log"]) == len(events)
    for entry, event in zip(wire["log"], events, strict=True):
        expected = {"kind": event.kind}
        for name in event.__struct_fields__:
            value = getattr(event, name)
            expected[name] = list(value) if isinstance(value, tuple) else value
        if isinstance(event, Drew) and event.source == "deck" and event.seat != seat and not over:
            del expected["card"]
            assert "card" not in entry
        assert entry == expected


@settings(max_examples=40, deadline=None)
@given(players=players_st, variants=variants_st, seed=seed_st, play_seed=seed_st)
def test_views_hide_hands_draw_pile_and_blind_draws(players, variants, seed, play_seed):
    game = Game.new(DECK, players, seed, variants)
    viewers = [*range(players), SPECTATOR]

    def check_all_views(game: Game) -> None:
        for viewer in viewers:
            check_view(game, viewer)

    check_all_views(game)
    play_checked(game, random.Random(play_seed), each_move=check_all_views)


# -- legal() and can() agree -----------------------------------------------------------


def check_legal_matches_can(game: Game, rng: random.Random) -> None:
    cards = range(len(DECK))
    for seat in range(game.players):
        choice = legal(game, seat)
        for card in cards:
            assert game.can(seat, DiscardFate(card)) == (
                isinstance(choice, LegalDiscardFate) and card in choice.cards
            )
            assert game.can(seat, DiscardHand(card)) == (
                isinstance(choice, LegalDiscardHand) and card in choice.cards
            )
            assert game.can(seat, Draw("discard", card)) == (
                isinstance(choice, LegalDraw) and card in choice.discard
            )
            assert not game.can(seat, Draw("deck", card))  # a deck draw names no card
        assert game.can(seat, Draw("deck")) == (isinstance(choice, LegalDraw) and choice.deck)
        if isinstance(choice, LegalDistribute):
            picked = rng.sample(choice.hand, choice.count)
            to = rng.sample(choice.recipients, choice.count)
            assert game.can(seat, Distribute(tuple(zip(to, picked, strict=True))))
            if choice.count > 1:  # one card short, or two cards to one seat: refused
                assert not game.can(seat, Distribute(tuple(zip(to, picked, strict=True))[1:]))
                doubled = [to[0], to[0], *to[2:]]
                assert not game.can(seat, Distribute(tuple(zip(doubled, picked, strict=True))))
        else:
            hand = game.hands[seat][: game.players]
            give = tuple(zip(range(game.players), hand, strict=False))
            assert not game.can(seat, Distribute(give))


@settings(max_examples=25, deadline=None)
@given(players=players_st, variants=variants_st, seed=seed_st, play_seed=seed_st)
def test_legal_offers_exactly_the_moves_the_engine_accepts(players, variants, seed, play_seed):
    game = Game.new(DECK, players, seed, variants)
    rng = random.Random(play_seed)
    check_legal_matches_can(game, rng)
    for step in range(MAX_MOVES):
        if game.over:
            break
        game.apply(*random_move(game, rng))
        if step % 5 == 0:
            check_legal_matches_can(game, rng)
