"""The seating of a round: every table 3-5 seats, everyone seated once, the top players
together, and no repeated table-mates where an arrangement without them exists."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournament.pairing import (
    SEATS,
    WINDOW,
    met_pairs,
    repeats_at,
    seat_round,
    table_sizes,
)


@st.composite
def fields(draw: st.DrawFn, most: int = 40) -> tuple[list[int], int, list[list[int]]]:
    """A field of players (ranked), the table size, and some past tables among them."""
    players = draw(st.integers(1, most))
    seats = draw(st.sampled_from(list(SEATS)))
    ranked = draw(st.permutations(list(range(players))))
    past = draw(
        st.just([])
        if players < 2
        else st.lists(
            st.lists(st.sampled_from(ranked), min_size=2, max_size=seats, unique=True),
            max_size=3 * players,
        )
    )
    return ranked, seats, past


@given(fields())
@settings(max_examples=150, deadline=None)
def test_every_table_seats_3_to_5_and_everyone_sits_once(field):
    ranked, seats, past = field
    seating = seat_round(ranked, seats, met_pairs(past))
    seated = [p for table in seating.tables for p in table]
    assert sorted(seated) == sorted(ranked)
    assert all(seating.seats == seats and 1 <= len(t) <= seats for t in seating.tables)
    assert all(seating.bots(i) >= 0 for i in range(len(seating.tables)))
    # bots fill short tables only as far as they must: one table fewer would not hold all
    assert (len(seating.tables) - 1) * seats < len(ranked)
    assert seating.repeats == sum(repeats_at(t, met_pairs(past)) for t in seating.tables)


def brute_force_fewest_repeats(ranked: list[int], seats: int, met) -> int:
    """The fewest repeated table-mates of any arrangement in tables of these sizes."""

    def best(free: list[int], sizes: list[int]) -> int:
        if not free:
            return 0
        head, rest = free[0], free[1:]
        return min(
            repeats_at((head, *mates), met)
            + best([p for p in rest if p not in mates], sizes[:at] + sizes[at + 1 :])
            for at, size in enumerate(sizes)
            for mates in combinations(rest, size - 1)
        )

    return best(ranked, table_sizes(len(ranked), seats))


@given(fields(most=WINDOW + 1))
@settings(max_examples=150, deadline=None)
def test_no_repeated_table_mates_where_they_can_be_avoided(field):
    """'Avoidable', testably: for fields the search covers whole (up to WINDOW + 1
    players), no arrangement of the same tables has fewer repeats than the one chosen."""
    ranked, seats, past = field
    met = met_pairs(past)
    assert seat_round(ranked, seats, met).repeats == brute_force_fewest_repeats(ranked, seats, met)


@given(st.integers(1, 200), st.sampled_from(list(SEATS)))
def test_the_players_are_spread_evenly_the_fuller_tables_first(players, seats):
    sizes = table_sizes(players, seats)
    assert sum(sizes) == players
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= seats
    assert sizes == sorted(sizes, reverse=True)


def test_the_first_round_cuts_the_standings_in_order():
    seating = seat_round(list("abcdefg"), 4, {})
    assert seating.tables == (tuple("abcd"), tuple("efg"))
    assert (seating.bots(0), seating.bots(1), seating.repeats) == (0, 1, 0)


def test_the_top_players_meet_again_only_with_new_table_mates():
    """Round two of 8 in tables of 4: each table of round one is split, top first."""
    ranked = list("abcdefgh")
    met = met_pairs([tuple("abcd"), tuple("efgh")])
    seating = seat_round(ranked, 4, met)
    # each new table takes at least two of one old table and two of the other: 2 repeats
    assert seating.repeats == 4 == brute_force_fewest_repeats(ranked, 4, met)
    assert "a" in seating.tables[0]


def test_a_large_field_after_three_rounds_finds_new_table_mates():
    ranked = list(range(100))
    past: list[tuple[int, ...]] = []
    for _ in range(3):
        seating = seat_round(ranked, 4, met_pairs(past))
        assert seating.repeats == 0
        past += seating.tables
        ranked = ranked[1:] + ranked[:1]  # the standings move


@pytest.mark.parametrize(
    ("players", "seats", "problem"),
    [(0, 4, "at least one player"), (5, 2, "seats 3-5"), (5, 6, "seats 3-5")],
)
def test_an_impossible_round_is_refused_with_the_reason(players, seats, problem):
    with pytest.raises(ValueError, match=problem):
        seat_round(list(range(players)), seats, {})


def test_a_player_ranked_twice_is_refused():
    with pytest.raises(ValueError, match="ranked twice"):
        seat_round([1, 2, 1], 3, {})
