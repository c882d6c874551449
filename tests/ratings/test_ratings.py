"""The rating core (server/ratings/): identities, places, the openskill update with its
anchors, shares and provisional mark, and the rebuild that must equal the updates."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.constants import RATING_START, RATING_STEP
from server.ratings.skill import ANCHORS, NEW, PROVISIONAL_GAMES, Ratings
from server.ratings.standings import Standings
from server.tables.outcome import Outcome, SeatResult, turn_share
from server.tables.players import PlayerId, player_id, shown

ANN, BEA, CY = PlayerId("name:Ann"), PlayerId("name:Bea"), PlayerId("name:Cy")
EASY, NORMAL, HARD = PlayerId("bot:easy"), PlayerId("bot:normal"), PlayerId("bot:hard")


def game(
    players: list[PlayerId],
    winners: tuple[int, ...] = (0,),
    goth: list[int] | None = None,
    shares: list[float] | None = None,
    n: int = 1,
    table: str = "t",
) -> Outcome:
    goth = goth or [20 - i for i in range(len(players))]
    shares = shares or [1.0] * len(players)
    seats = tuple(
        SeatResult(p, g, s, shown(p)) for p, g, s in zip(players, goth, shares, strict=True)
    )
    return Outcome(table, n, f"2026-12-01T20:{n // 60:02d}:{n % 60:02d}.000000", seats, winners)


def test_a_seat_is_its_name_or_its_bots_difficulty_and_a_person_is_never_a_bot():
    assert player_id("Ann", None) == "name:Ann"
    assert player_id("Bot 2", "gentle") == player_id("easy", "easy") == EASY
    assert player_id("x", "ismcts") == HARD and player_id("x", "random") == "bot:random"
    assert player_id("bot:easy", None) != EASY  # a person who calls themself a bot
    assert shown(ANN) == "Ann" and shown(NORMAL) == "normal bot"


def test_a_person_who_proved_a_key_is_that_identity_whatever_their_name():
    me = player_id("Ann", None, "ab12cd34")
    assert me == "id:ab12cd34" == player_id("Annie", None, "ab12cd34") != player_id("Ann", None)
    assert player_id("Ann", "gentle", "ab12cd34") == EASY  # a bot's seat: the fixed reference
    assert shown(me, "Annie") == "Annie" and shown(me) == "player ab12cd"
    assert shown(EASY, "Bot 2") == "easy bot"


def test_a_name_change_keeps_the_record_and_the_rating_and_shows_the_latest_name():
    me = PlayerId("id:ab12cd34")
    first = game([me, EASY, NORMAL], n=1)
    renamed = Outcome(
        "t", 2, "2026-12-01T21:00:00.000000",
        (SeatResult(me, 20, 1.0, "Annie"), *game([me, EASY, NORMAL], n=2).seats[1:]), (0,),
    )  # fmt: skip
    standings = Standings.rebuild([renamed, first])  # rated in the order the games ended
    (row,) = [r for r in standings.rows() if r.player == me]
    assert (row.name, row.record.games, row.rating.games) == ("Annie", 2, 2)


def test_an_outcome_stored_before_names_were_kept_shows_its_players_own():
    stored = {
        "finished": "",
        "winners": [0],
        "seats": [["name:Ann", 20, 1.0], ["bot:easy", 3, 1.0]],
    }
    read = Outcome.from_json("t", 1, json.dumps(stored))
    assert [s.name for s in read.seats] == ["Ann", "easy bot"]


def test_winners_share_first_place_and_the_rest_go_by_goth_points():
    assert game([ANN, BEA, CY, EASY], winners=(0, 2), goth=[21, 9, 21, 9]).places() == (1, 3, 1, 3)
    assert game([ANN, BEA, CY], winners=(2,), goth=[22, 5, 20]).places() == (2, 3, 1)


def test_a_turn_a_bot_played_for_the_player_counts_against_their_share():
    movers = [(0, False), (0, False), (1, False), (0, True), (0, True), (1, False), (0, False)]
    assert turn_share(movers, 0) == 2 / 3  # turns: played, covered, played
    assert turn_share([(0, False), (0, True), (1, False)], 0) == 0.5  # a turn finished by a bot
    assert turn_share(movers, 1) == 1.0 and turn_share(movers, 2) == 1.0  # no turn: nothing lost


def test_the_reference_bots_never_move_and_beating_them_raises_a_player():
    ratings = Ratings()
    for n in range(5):
        ratings.update(game([ANN, EASY, NORMAL, HARD], n=n))
    assert {p: ratings[p].mu for p in ANCHORS} == ANCHORS
    assert ratings[ANN].mu > NEW.mu and ratings[ANN].sigma < NEW.sigma
    assert not ratings[HARD].provisional


def test_a_seat_a_cover_bot_played_half_of_moves_its_player_by_half():
    whole, half, none = Ratings(), Ratings(), Ratings()
    whole.update(game([ANN, BEA, CY]))
    half.update(game([ANN, BEA, CY], shares=[0.5, 1.0, 1.0]))
    none.update(game([ANN, BEA, CY], shares=[0.0, 1.0, 1.0]))
    assert abs((half[ANN].mu - NEW.mu) - (whole[ANN].mu - NEW.mu) / 2) < 1e-9
    assert abs((half[ANN].sigma - NEW.sigma) - (whole[ANN].sigma - NEW.sigma) / 2) < 1e-9
    assert none[ANN] == NEW and none[BEA] == whole[BEA]  # the others are rated all the same


def test_a_player_who_beat_the_normal_bot_ranks_above_it():
    """The standings rank by the rating they show: a reference bot's fixed, sure rating
    never outranks a player whose shown rating is higher (issue 29 §4)."""
    standings = Standings()
    standings.add(game([ANN, NORMAL, EASY]))  # Ann first, the normal bot second
    standings.add(game([BEA, NORMAL, EASY], winners=(1,), goth=[3, 20, 9], n=2))
    rows = standings.rows()
    ranked = [r.player for r in rows]
    assert ranked.index(ANN) < ranked.index(NORMAL) < ranked.index(BEA)
    shown = [r.rating.shown for r in rows]
    assert shown == sorted(shown, reverse=True)  # the numbers read down the table


def test_one_scale_where_everyone_starts_at_the_normal_bots_rating():
    ratings = Ratings()
    assert NEW.shown == ratings[NORMAL].shown == RATING_START
    assert ratings[EASY].shown < RATING_START < ratings[HARD].shown
    assert NEW.spread == round(2 * RATING_STEP * NEW.sigma) == 500  # a newcomer: anywhere
    ratings.update(game([ANN, BEA, EASY]))
    assert ratings[ANN].shown > max(RATING_START, ratings[BEA].shown)
    assert ratings[ANN].spread < NEW.spread  # a game played: surer


def test_a_seat_a_bot_played_most_of_wins_and_loses_for_nobody():
    """A player who left at turn 1 is not credited the win their cover bot earned, nor a
    loss; half the turns played is enough (issue 29 §4)."""
    standings = Standings()
    standings.add(game([ANN, BEA, CY], shares=[0.1, 1.0, 0.5]))  # Ann's seat won
    assert ANN not in standings.records  # not her win
    assert standings.records[CY].places == [0, 0, 1]  # half of it is Cy's: a third place
    assert standings.ratings[ANN].mu > NEW.mu and standings.ratings[ANN].games == 0
    standings.add(game([BEA, ANN, CY], shares=[1.0, 0.2, 1.0], n=2))  # nor her loss
    assert ANN not in standings.records and standings.records[BEA].places == [1, 1]


def test_a_practice_game_counts_nowhere():
    """A game at a table made by `play_on` is practice: no record, no rating (issue 29 §4)."""
    standings = Standings()
    practice = dataclasses.replace(game([ANN, BEA, NORMAL]), practice=True)
    assert standings.add(practice) and not standings.add(practice)  # seen once, counted never
    assert standings.records == {} and standings.rows() == []
    assert standings.ratings[ANN] == NEW == standings.ratings[BEA]


def test_a_rating_is_provisional_until_enough_games():
    ratings = Ratings()
    for n in range(PROVISIONAL_GAMES):
        assert ratings[ANN].provisional
        ratings.update(game([ANN, BEA, EASY], n=n))
    assert not ratings[ANN].provisional and ratings[ANN].games == PROVISIONAL_GAMES


def test_a_record_counts_games_wins_places_and_the_last_game():
    standings = Standings()
    standings.add(game([ANN, BEA, CY], n=1))
    standings.add(game([BEA, ANN, CY], n=2, winners=(0, 1), goth=[20, 20, 3]))
    assert not standings.add(game([BEA, ANN, CY], n=2))  # the same game again: counted once
    ann = standings.records[ANN]
    assert (ann.games, ann.wins, ann.places) == (2, 2, [2])
    assert standings.records[CY].places == [0, 0, 2]
    assert ann.last_seen == "2026-12-01T20:00:02.000000"
    assert standings.rows()[0].player in (ANN, BEA)


PLAYERS = [ANN, BEA, CY, PlayerId("name:Di"), EASY, NORMAL, HARD]


@st.composite
def outcomes(draw: st.DrawFn) -> list[Outcome]:
    made = []
    for n in range(draw(st.integers(0, 25))):
        size = draw(st.integers(3, 5))
        players = draw(st.lists(st.sampled_from(PLAYERS), min_size=size, max_size=size))
        goth = draw(st.lists(st.integers(-5, 30), min_size=size, max_size=size))
        best = max(goth)
        winners = tuple(i for i, g in enumerate(goth) if g == best)
        share = st.sampled_from([0.0, 0.25, 0.5, 1.0])
        shares = draw(st.lists(share, min_size=size, max_size=size))
        table = draw(st.sampled_from("abc"))
        made.append(game(players, winners, goth, shares, n=n, table=table))
    return made


@settings(max_examples=60, deadline=None)
@given(outcomes(), st.randoms(use_true_random=False))
def test_ratings_rebuilt_from_the_archive_equal_ratings_updated_as_games_end(played, rnd):
    live = Standings()
    for outcome in played:  # as the games end, in their order
        live.add(outcome)
    stored = [(o.table, o.game, o.to_json()) for o in played]
    archived = [Outcome.from_json(table, n, text) for table, n, text in stored]
    rnd.shuffle(archived)  # the store hands them back in any order
    rebuilt = Standings.rebuild(archived)
    assert rebuilt.ratings.ratings == live.ratings.ratings
    assert rebuilt.records == live.records
    assert rebuilt.rows() == live.rows()
