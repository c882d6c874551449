"""The ISMCTS bot: always legal, blind to everything its view hides, and searching worlds that
agree with what it sees. (Its strength is measured on the ladder, not here.)"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.bots.evaluate import Evaluator
from server.bots.heuristic import HeuristicBot, scored_moves
from server.bots.ismcts import IsmctsBot, rewards, root_candidates
from server.bots.position import Position, seed_of
from server.bots.worlds import determinize, reproduces, unseen_cards
from server.game import (
    DiscardFate,
    Draw,
    Game,
    Phase,
    Variants,
    View,
    default_deck,
    view,
)
from tests.bots.botkit import (
    CREPT,
    NAP,
    SCENARIO_DECK,
    placements,
    stomach_bug_in_plain_sight,
)

DECK = default_deck()
ITERATIONS = 4  # enough to build a tree and run rollouts; small enough to be quick
WORLDS = 3  # and to weigh its best moves


def ismcts(seed: int = 0, iterations: int = ITERATIONS) -> IsmctsBot:
    """The search at a small budget (its randomness is the position's: `seed` is the bot's
    own, which it does not use)."""
    return IsmctsBot(DECK, random.Random(seed), iterations=iterations, worlds=WORLDS)


def same_but_log(a: View, b: View) -> bool:
    """Views equal in everything but the log and its place (a sampled world has no history)."""
    plain = {"log": (), "log_start": 0}
    return msgspec.structs.replace(a, **plain) == msgspec.structs.replace(b, **plain)


def positions(players: int, variants: Variants, seed: int, every: int = 3):
    """Positions of a real game between heuristic bots, every few decisions: (game, seat)."""
    bots = [HeuristicBot(DECK, random.Random(seed + s)) for s in range(players)]
    game = Game.new(DECK, players, seed, variants)
    step = 0
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        if step % every == 0:
            yield game, seat
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))
        step += 1


VARIANTS = [Variants(round_cap=3), Variants(fate_discard="top", overflow="immediate", round_cap=3)]


# -- always legal ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("variants", VARIANTS, ids=["default", "top+immediate"])
def test_always_legal(players, variants):
    """R10-R13 under both variants (H2): every move it makes is legal, two of it at the
    table with heuristic bots, over short games (H1 caps them at three rounds)."""
    for seed in range(3):
        bots = [
            ismcts(seed + s) if s in (seed % players, players - 1) else HeuristicBot(DECK)
            for s in range(players)
        ]
        game = Game.new(DECK, players, seed, variants)
        while not game.over:
            seat = game.to_act()
            assert seat is not None
            move = bots[seat].choose(view(game, seat))
            assert game.can(seat, move), (seed, move)
            game.apply(seat, move)


def test_the_search_runs_its_budget_whatever_the_clock():
    """Principle 11: a fixed budget, never a clock: the tree grows exactly its iterations
    and the weighing plays out its worlds, however long that takes."""
    game = Game.new(DECK, 4, 3)
    seen = view(game, 0)
    bot = IsmctsBot(DECK, iterations=7, worlds=2)
    verdict = bot.judge(seen)
    assert game.can(0, verdict.move)
    assert bot.last_root is not None and bot.last_root.visits == 7
    assert bot.last_iterations == 7 + sum(len(w.outcomes) for w in verdict.weighed)


def test_the_tree_grows():
    """Every iteration passes through one root move; the root's moves are all tried, and
    moves below them are expanded too (the opponents' answers)."""
    first, _ = two_worlds("distribute", 0)
    bot = ismcts(iterations=40)
    bot.choose(view(first, 0))
    root = bot.last_root
    assert root is not None and root.visits == 40
    assert len(root.children) > 1
    assert sum(child.visits for child in root.children.values()) == 40
    assert any(child.children for child in root.children.values())
    for child in root.children.values():
        assert child.avail >= child.visits >= 1 and 0 <= child.reward <= child.visits


# -- blind to the hidden cards -----------------------------------------------------------


def two_worlds(phase: Phase, seed: int) -> tuple[Game, Game]:
    """Two games that differ only in what seat 0 cannot see: the other hands and the order
    of the draw pile."""
    rng = random.Random(seed)
    cards = list(range(len(DECK)))
    rng.shuffle(cards)
    calm = [c for c in cards if DECK.sickness[c] == 0][:9]  # no swoon, a full hand limit
    cards = [c for c in cards if c not in calm]
    fates = [calm[0:3], calm[3:6], calm[6:8], calm[8:9]]
    held = 3 if phase == "draw" else 5  # a draw step with cards still to draw
    mine, discard, hidden = cards[:held], cards[held : held + 6], cards[held + 6 :]

    def world(order: list[int]) -> Game:
        others = [order[0:5], order[5:10], order[10:15]]
        return Game.from_position(
            DECK,
            hands=[mine, *others],
            fates=fates,
            draw_pile=order[15:],  # ... and the two cards seat 0 does not hold, in a draw
            discard=discard,
            phase=phase,
            seed=seed,
        )

    shuffled = hidden[:]
    random.Random(seed + 1).shuffle(shuffled)
    return world(hidden), world(shuffled)


@pytest.mark.parametrize("phase", ["discard_fate", "distribute", "draw"])
def test_same_view_same_move(phase):
    """It reads only its view: two games that look the same from its seat get the same
    move, however the hidden cards lie."""
    for seed in range(2):
        first, second = two_worlds(phase, seed)
        assert first.hands[1:] != second.hands[1:] and first.draw_pile != second.draw_pile
        seen_first, seen_second = view(first, 0), view(second, 0)
        assert seen_first == seen_second
        move = ismcts(seed, iterations=12).choose(seen_first)
        assert move == ismcts(seed, iterations=12).choose(seen_second)
        assert first.can(0, move) and second.can(0, move)


# -- determinization ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("variants", VARIANTS, ids=["default", "top+immediate"])
def test_sampled_worlds_agree_with_the_view(players, variants):
    """Each sample keeps every card the viewer can see where it is (its hand, Fate piles,
    discard pile, cards others took in plain sight), deals hidden hands of the right sizes
    and a draw pile of `deck_count` cards, and asks the viewer the same decision."""
    rng = random.Random(players)
    known_seen = False
    for game, seat in positions(players, Variants(**{**variants.to_wire(), "round_cap": 12}), 5):
        seen = view(game, seat)
        world = determinize(seen, DECK, rng)
        assert reproduces(world, seen)
        assert same_but_log(view(world, seat), seen)
        assert sorted(c for pile in (*world.hands, world.draw_pile) for c in pile) == sorted(
            [*unseen_cards(seen, len(DECK)), *(seen.hand or ())]
            + [c for p in seen.players if p.seat != seat for c in p.known_hand]
        )
        for player in seen.players:
            assert len(world.hands[player.seat]) == player.hand_count
            assert set(player.known_hand) <= set(world.hands[player.seat])
            known_seen |= player.seat != seat and bool(player.known_hand)
    assert known_seen  # the games did exercise cards known to be in another hand


def test_samples_vary_only_the_hidden_cards():
    game, seat = next(p for i, p in enumerate(positions(4, Variants(), 8)) if i == 10)
    seen = view(game, seat)
    rng = random.Random(0)
    worlds = [determinize(seen, DECK, rng) for _ in range(10)]
    assert len({tuple(w.draw_pile) for w in worlds}) > 1  # really sampled
    for world in worlds:
        assert world.fates == game.fates and world.discard == game.discard
        assert world.hands[seat] == game.hands[seat]


# -- no search when there is no choice ---------------------------------------------------


def test_a_single_option_is_answered_at_once():
    first, _ = two_worlds("draw", 0)
    # R12: with an empty discard pile the only source is the draw pile.
    game = Game.from_position(
        DECK,
        hands=[first.hands[0][:3], *first.hands[1:]],
        fates=first.fates,
        draw_pile=[*first.draw_pile, *first.discard, *first.hands[0][3:]],
        phase="draw",
    )
    bot = ismcts(iterations=50)
    assert bot.choose(view(game, 0)) == Draw("deck")
    assert bot.last_iterations == 0
    # R10 with one card on the Fate pile.
    fates = [first.fates[0][:1], *first.fates[1:]]
    rest = [*first.draw_pile, *first.fates[0][1:]]
    game = Game.from_position(
        DECK, hands=first.hands, fates=fates, draw_pile=rest, discard=first.discard
    )
    assert bot.choose(view(game, 0)) == DiscardFate(fates[0][0])
    assert bot.last_iterations == 0


def test_rewards_are_win_estimates():
    game, _ = next(p for i, p in enumerate(positions(4, Variants(), 2)) if i == 12)
    estimates = rewards(game, 0)
    assert all(0.0 <= r <= 1.0 for r in estimates)
    assert sum(estimates) == pytest.approx(1.0)


# -- the bugs of issue 12 ------------------------------------------------------------------


def test_the_saving_move_is_searched_and_chosen():
    """Issue 12: all four root moves of the old search put the +4 card on itself, so the
    cure against the Stomach Bug seat 1 was seen to take was never searched."""
    game = stomach_bug_in_plain_sight()
    seen = view(game, 0)
    position = Position.of_view(seen, SCENARIO_DECK)
    assert seen.legal is not None
    scored = scored_moves(Evaluator(position, after_placing=True), seen.legal)
    roots = [move for _, move in root_candidates(position, seen.legal, scored)]
    assert len(roots) > 4
    assert any(placements(move)[0] == NAP for move in roots)
    assert any(placements(move)[0] == CREPT for move in roots)
    bot = IsmctsBot(SCENARIO_DECK)
    for seed in range(2):  # the position's own seed, and another
        assert placements(bot.judge(seen, seed=seed_of(seen, SCENARIO_DECK) + seed).move)[0] == NAP


def redealt(game: Game, seat: int, rng: random.Random) -> Game:
    """The same position with every card `seat` cannot see dealt again: the other hands'
    hidden cards and the draw pile shuffled among themselves, hand sizes and known cards
    kept."""
    hidden = [sorted(set(game.hands[s]) - game.known[s]) for s in range(game.players)]
    pool = [c for s in range(game.players) if s != seat for c in hidden[s]] + game.draw_pile
    rng.shuffle(pool)
    hands = []
    for s in range(game.players):
        if s == seat:
            hands.append(list(game.hands[s]))
        else:
            count = len(hidden[s])
            hands.append(sorted(game.known[s]) + pool[:count])
            del pool[:count]
    return Game.from_position(
        DECK,
        hands=hands,
        fates=game.fates,
        draw_pile=pool,
        discard=game.discard,
        turn=game.turn,
        phase=game.phase,
        round=game.round,
        variants=game.variants,
        known=game.known,
        dealer=game.dealer,
    )


@settings(max_examples=12, deadline=None)
@given(
    players=st.integers(3, 5),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    shuffle=st.integers(0, 10_000),
)
def test_the_move_is_unchanged_when_the_hidden_cards_are_dealt_again(players, seed, steps, shuffle):
    """The search reads only its view: re-dealing what it cannot see, consistently with
    what it sees, never changes its move."""
    game = next(
        (
            g
            for i, (g, _) in enumerate(positions(players, Variants(round_cap=12), seed, 1))
            if i == steps
        ),
        None,
    )
    if game is None:  # the game ended sooner
        return
    seat = game.to_act()
    assert seat is not None
    original = redealt(game, seat, random.Random(-1))  # both without a log, as equals
    other = redealt(game, seat, random.Random(shuffle))
    seen = view(original, seat)
    assert view(other, seat) == seen
    move = ismcts(seed, iterations=6).choose(seen)
    assert move == ismcts(seed, iterations=6).choose(view(other, seat))
    assert original.can(seat, move) and other.can(seat, move)
