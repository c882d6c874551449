"""Whatever keys a player presses, the move a Plan builds is one the protocol takes and the
real engine accepts: the client offers only what `legal` lists (Principle 2)."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from gother_tui.core.plans import Plan, plan_for
from protocol import validate_request
from protocol.requests import Play
from protocol.view import LegalDistribute, LegalDraw
from server.game import Game, Variants
from tests.tui.viewkit import DECK, table_view


def complete(plan: Plan, picks: Iterator[int]) -> None:
    """Make every choice of the decision as a player could, with the Plan's own keys."""
    legal = plan.legal
    if isinstance(legal, LegalDistribute):
        seats = list(plan.recipients)
        for _ in range(plan.count):
            seat = seats.pop(next(picks) % len(seats))
            free = [c for c in plan.choices if c not in plan.assigned]
            plan.point_at(free[next(picks) % len(free)])
            assert plan.assign(seat) is None
    elif isinstance(legal, LegalDraw):
        if next(picks) % 2 and plan.open_discard() is None:
            plan.move_cursor(next(picks))
        elif plan.choose_deck() is not None:
            assert plan.open_discard() is None  # no draw pile: the discard pile it is
            plan.move_cursor(next(picks))
    else:
        plan.move_cursor(next(picks))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=50),
    variants=st.builds(
        Variants,
        fate_discard=st.sampled_from(["any", "top"]),
        overflow=st.sampled_from(["draw_step", "immediate"]),
        round_cap=st.just(3),
    ),
)
def test_any_plan_a_player_completes_is_a_move_the_engine_accepts(seed, picks, variants):
    game = Game.new(DECK, 3, seed, variants)
    endless = (picks[i % len(picks)] + i for i in range(10**9))
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        plan = plan_for(table_view(game, seat))
        assert plan is not None, "the seat to act is asked nothing"
        assert plan.move() is None or plan.kind != "distribute"  # nothing given yet
        complete(plan, endless)
        move = plan.move()
        assert move is not None
        validate_request(Play(move=move).to_wire())  # the shape the server checks
        game.apply(seat, move)  # and the rules: MoveError if illegal
