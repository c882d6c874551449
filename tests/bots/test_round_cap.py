"""Every bot knows the round cap (H1, issue 32 §4): the evaluator counts the turns left, so
near the cap only the players still to place can hurt a pile, and what Sickness, a banked
cure and Money do for later turns counts for less, until at the cap a pile's Goth is all
that counts (the highest wins)."""

from __future__ import annotations

from server.bots.evaluate import UNTOUCHED, Evaluator, pile_value
from server.bots.position import Position
from server.game import Game, Variants, view
from tests.bots.botkit import (
    ABSINTHE,
    BOOTS,
    BROODING,
    FANGS,
    KHAKI,
    LIPSTICK,
    MIXTAPE,
    NAP,
    NOVEL,
    PASTEL,
    PICNIC,
    SCENARIO_DECK,
    bot,
    placements,
    position,
)

CAP = 20


def last_turn_but(rounds_before: int, cap: int | None = CAP, turn: int = 0) -> Game:
    """Seat 0 places; seat 1 deals, so seat 0 ends each round: in round CAP its turn is the
    game's last. Seat 0 holds a cure, Brooding (+1 Goth) and two cards that cost Goth; it
    trails every opponent by one Goth."""
    return position(
        hands=[[NAP, BROODING, PASTEL, KHAKI], [PICNIC], [FANGS], [BOOTS]],
        fates=[[LIPSTICK], [MIXTAPE], [NOVEL], [ABSINTHE]],
        round=CAP - rounds_before,
        dealer=1,
        turn=turn,
        variants=Variants(round_cap=cap),
    )


def test_h1_every_bot_knows_the_turns_the_cap_leaves():
    def left(game: Game, seat: int = 0) -> int | None:
        known = Position.of_view(view(game, seat), SCENARIO_DECK).turns_left
        assert known == Position.of_game(game, seat).turns_left  # a world agrees with the view
        return known

    assert left(last_turn_but(0)) == 0
    assert left(last_turn_but(1)) == 4  # a round of four turns still to come
    assert left(last_turn_but(0, turn=2), seat=2) == 2  # seats 3 and 0 still to play
    assert left(last_turn_but(0, cap=None)) is None


def test_h1_at_the_cap_a_piles_goth_is_all_that_counts():
    sick_and_poor, cured_and_rich = (12, 3, -2), (12, -4, 3)
    assert pile_value(*sick_and_poor) < pile_value(*cured_and_rich)  # before: they differ
    at_cap = [pile_value(*pile, future=0.0) for pile in (sick_and_poor, cured_and_rich)]
    assert at_cap == [pile_value(12, 0, 0, future=0.0)] * 2 == [12.0, 12.0]
    halfway = pile_value(*cured_and_rich, future=0.5)
    assert pile_value(12, 0, 0) < halfway < pile_value(*cured_and_rich)


def test_h1_only_the_players_still_to_place_can_swoon_a_pile_before_the_cap():
    def tails(game: Game) -> tuple[tuple[float, ...], ...]:
        return Evaluator(Position.of_game(game, 0), after_placing=True).tail

    last = last_turn_but(0)
    assert tails(last) == (UNTOUCHED,) * 4  # nobody places again: no pile is in danger
    assert Evaluator(Position.of_game(last, 0), after_placing=True).future == (0.0,) * 4
    assert any(tail != UNTOUCHED for tail in tails(last_turn_but(0, cap=None)))


def test_h1_in_the_games_last_turn_a_bot_takes_a_goth_point_over_banking_a_cure():
    """Any round before, a cure banked on its own pile is worth more than one Goth; in the
    last turn it is worth nothing: Brooding ties seat 0 for the win instead."""
    for rounds_before in (5, 1):
        assert placements(bot().choose(view(last_turn_but(rounds_before), 0)))[0] == NAP
    assert placements(bot().choose(view(last_turn_but(0, cap=None), 0)))[0] == NAP
    last = last_turn_but(0)
    move = bot().choose(view(last, 0))
    assert placements(move)[0] == BROODING
    last.apply(0, move)
    while not last.over:  # its draw step ends the turn, and with it the game
        last.apply(0, bot().choose(view(last, 0)))
    assert last.end_reason == "round_cap" and last.winners is not None and 0 in last.winners
