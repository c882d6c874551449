"""The standings of a tournament: points by place, then Goth Points, then the rating; with
duplicate deals, match points seat by seat first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.tournament.standings import Result, match_points, place_points, standings


@st.composite
def finished_games(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int]]:
    seats = draw(st.integers(3, 5))
    goth = draw(st.lists(st.integers(-10, 40), min_size=seats, max_size=seats))
    winners = tuple(draw(st.sets(st.integers(0, seats - 1), min_size=1)))
    return winners, goth


@given(finished_games())
def test_place_points_share_out_every_place_and_rank_winners_then_goth(game):
    winners, goth = game
    points = place_points(winners, goth)
    seats = len(goth)
    assert sum(points) == seats * (seats - 1) / 2  # n-1, n-2, ..., 0, shared or not
    for a in range(seats):
        for b in range(seats):
            if (a in winners, goth[a]) > (b in winners, goth[b]):
                assert points[a] > points[b]
            if (a in winners, goth[a]) == (b in winners, goth[b]):
                assert points[a] == points[b]


def test_a_shared_win_shares_the_top_two_places():
    assert place_points((0, 2), [20, 5, 20, 9]) == [2.5, 0.0, 2.5, 1.0]


def test_the_standings_order_by_points_then_goth_then_rating():
    results = [
        Result("ann", 1, 0, 3.0, 10),
        Result("bea", 1, 1, 3.0, 12),  # same points, more Goth Points
        Result("cid", 1, 0, 1.0, 30),
        Result("dee", 1, 1, 1.0, 30),  # ties cid on both: the rating decides
    ]
    rating = {"ann": 0.0, "bea": 0.0, "cid": 5.0, "dee": 9.0, "eve": 0.0}.__getitem__
    rows = standings(["ann", "bea", "cid", "dee", "eve"], results, rating, dropped=["eve"])
    assert [r.player for r in rows] == ["bea", "ann", "dee", "cid", "eve"]
    assert [(r.games, r.dropped) for r in rows][-1] == (0, True)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 40)), max_size=20))
def test_match_points_share_one_point_per_pair_of_the_same_seat(rows):
    """Of each two players who held one seat's cards in one round, one point goes to the
    better (or a half to each)."""
    results = [
        Result(i, 1, seat, float(points), goth) for i, (seat, points, goth) in enumerate(rows)
    ]
    won = match_points(results)
    per_seat = [sum(r[0] == seat for r in rows) for seat in range(4)]
    assert sum(won.values()) == sum(n * (n - 1) / 2 for n in per_seat)


def test_duplicate_standings_put_match_points_first():
    results = [
        Result("ann", 1, 0, 3.0, 25),  # better than bea, who held ann's cards
        Result("bea", 1, 0, 2.0, 20),
        Result("cid", 1, 1, 0.0, 3),  # worse at their table, but better than dee
        Result("dee", 1, 1, 0.0, 1),
    ]
    rows = standings(["ann", "bea", "cid", "dee"], results, lambda _: 0.0, duplicate=True)
    assert [(r.player, r.match_points) for r in rows] == [
        ("ann", 1.0),
        ("cid", 1.0),
        ("bea", 0.0),
        ("dee", 0.0),
    ]
