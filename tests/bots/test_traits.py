"""A bot's trait (issue 32 §1): whom it hurts. A vengeful bot weighs an opponent the more
the nearer it is to the leader; a steady one weighs every opponent alike, in the
heuristic's scores and in the search's reward, so a steady search is steady in its
play-outs too. Vengeful at the published cap plays as every bot played before traits."""

from __future__ import annotations

import random

import pytest

from protocol.constants import DEFAULT_TRAITS, SEATS, TRAITS
from server.bots.evaluate import Evaluator
from server.bots.heuristic import HeuristicBot
from server.bots.ismcts import IsmctsBot, estimates, rewards
from server.bots.position import Position
from server.bots.registry import KINDS, make_bot, named, trait_for, trait_of
from server.game import Game, default_deck, view
from tests.bots.botkit import (
    ANAEMIA,
    ANKH,
    BOOTS,
    BROODING,
    CHILL,
    CREPT,
    DEATHROCK,
    DYE,
    FANGS,
    GLOVES,
    HANGOVER,
    LIPSTICK,
    MIXTAPE,
    NOVEL,
    PICNIC,
    POETRY,
    SCENARIO_DECK,
    SMILING,
    placements,
    position,
)

DECK = default_deck()


def leader_and_a_weak_pile() -> Game:
    """Seat 1 leads at 12 Goth, healthy; seat 2 sits at 6 Goth with Sickness 3. Seat 0
    holds one sickening card (+2), which would swoon seat 2 or sicken the leader."""
    leader = [CREPT, DEATHROCK, MIXTAPE, BROODING]  # 12 Goth
    weak = [LIPSTICK, POETRY, ANAEMIA, CHILL]  # 6 Goth, Sickness 3
    return position(
        hands=[[HANGOVER, GLOVES, ANKH, NOVEL], [PICNIC], [FANGS], [BOOTS]],
        fates=[[DYE], leader, weak, [SMILING]],
    )


def test_a_vengeful_bot_sickens_the_leader_and_a_steady_one_the_pile_it_hurts_most():
    game = leader_and_a_weak_pile()
    seen = view(game, 0)
    vengeful = HeuristicBot(SCENARIO_DECK, random.Random(0), trait="vengeful").choose(seen)
    steady = HeuristicBot(SCENARIO_DECK, random.Random(0), trait="steady").choose(seen)
    assert placements(vengeful)[1] == HANGOVER  # the leader, though it swoons nobody
    assert placements(steady)[2] == HANGOVER  # a swoon: the most Goth taken from anyone
    game.apply(0, steady)
    assert game.fates[2] == []


def test_a_steady_bot_counts_every_opponent_alike_and_a_vengeful_one_the_leader_most():
    game = leader_and_a_weak_pile()
    me = Position.of_game(game, 0)
    steady = Evaluator(me, after_placing=True, trait="steady").stake
    vengeful = Evaluator(me, after_placing=True, trait="vengeful")
    assert steady == (1.0, -1.0, -1.0, -1.0)
    assert vengeful.stake[0] == 1.0 and vengeful.stake[1] == -1.0  # seat 1 leads
    for seat in (2, 3):  # behind the leader: worth less to hurt, and less the further behind
        assert -1.0 < vengeful.stake[seat] < 0.0
    assert (vengeful.values[2] < vengeful.values[3]) == (vengeful.stake[2] > vengeful.stake[3])


def test_the_steady_reward_gains_alike_from_any_opponent_lowered_the_vengeful_most_from_the_top():
    values = (10.0, 20.0, 8.0, 8.0, 4.0)
    for trait in TRAITS:
        chances = estimates(values, trait)
        assert all(0.0 < c < 1.0 for c in chances)
        for a in range(4):  # the richer pile, the better its chance
            b = a + 1
            assert (chances[a] > chances[b]) == (values[a] > values[b])
    gain = {}
    for trait in TRAITS:
        before = estimates(values, trait)[0]
        gain[trait] = [
            estimates(tuple(v - 2.0 * (s == hurt) for s, v in enumerate(values)), trait)[0] - before
            for hurt in range(1, 5)
        ]
    assert max(gain["steady"]) - min(gain["steady"]) == pytest.approx(0.0, abs=1e-12)
    assert gain["vengeful"][0] == max(gain["vengeful"]) > 2 * gain["vengeful"][3]  # the top


def test_rewards_of_a_finished_game_are_its_winners_whatever_the_trait():
    game = Game.new(DECK, 3, 5)
    bots = [HeuristicBot(DECK, random.Random(s)) for s in range(3)]
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, bots[seat].choose(view(game, seat)))
    assert game.winners is not None
    for trait in TRAITS:
        assert rewards(game, 0, trait) == [1.0 if s in game.winners else 0.0 for s in range(3)]


def test_every_kind_plays_with_the_trait_it_is_made_with():
    for kind in KINDS:
        for trait in TRAITS:
            assert make_bot(kind, DECK, random.Random(0), trait=trait).trait == trait
    searching = make_bot("ismcts", DECK, random.Random(0), iterations=4, trait="steady")
    assert isinstance(searching, IsmctsBot) and searching.trait == "steady"


@pytest.mark.parametrize("trait", TRAITS)
def test_a_search_of_either_trait_plays_legal_moves(trait):
    game = Game.new(DECK, 5, 11)
    bot = IsmctsBot(DECK, random.Random(1), iterations=6, worlds=4, trait=trait)
    for _ in range(12):
        seat = game.to_act()
        assert seat is not None
        move = bot.choose(view(game, seat, log_size=0))
        assert game.can(seat, move), move
        game.apply(seat, move)


def test_names_carry_a_trait_or_take_the_seat_counts_default():
    assert named("hard:steady", 3) == ("ismcts", "steady")
    assert named("normal", 5) == ("heuristic", trait_for(5))
    assert [trait_for(seats) for seats in SEATS] == [DEFAULT_TRAITS[s] for s in SEATS]
    with pytest.raises(ValueError, match="unknown bot trait 'kind'; choose from vengeful, steady"):
        trait_of("kind")
    with pytest.raises(ValueError, match="unknown bot trait"):
        named("normal:kind", 4)
