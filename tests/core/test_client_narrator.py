"""The narrator: every kind of event told to a seat, to another seat and to a spectator,
with the card's effect on the pile it went to; presence lines; the summary since your last
turn; the welcome back of a seat a bot played. (The sentences are in ASCII glyphs, G/S/$,
which stay as they are.)"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import ASCII, UNICODE
from gother_tui.core.narrator import (
    Narrator,
    covered_for_you,
    gap,
    presence,
    since_last_turn,
    summary,
)
from protocol.view import Event, View, convert
from tests.tui.viewkit import DECK, ID, distribute_game, played_views, table_view

CAT = Catalogue(DECK.catalogue())
NAMES = {0: "Raven", 1: "Morticia", 2: "Vlad"}
# Raven at Sickness 2 (Anaemia); Morticia with a banked cure (A Long Nap, -2); Vlad in debt.
PILES = {0: [ID["Anaemia"]], 1: [ID["A Long Nap"]], 2: [ID["Pet Raven"]]}


def told(event: dict, you: int | None) -> str:
    narrator = Narrator(CAT, ASCII, NAMES, you, PILES)
    return narrator.tell(convert(event, Event, "event")).text


# (event, to Raven at seat 0, to Morticia at seat 1, to a spectator)
CASES = [
    (
        {"kind": "turn", "seat": 1, "round": 3},
        "Round 3: Morticia's turn.",
        "Round 3: your turn.",
        "Round 3: Morticia's turn.",
    ),
    (
        {"kind": "place", "seat": 1, "to": 0, "card": ID["Fishnet Pneumonia"]},
        "Morticia gave you Fishnet Pneumonia G+1 S+3 - Goth 1 -> 2, Sickness 2 -> 5, you swoon.",
        "You gave Raven Fishnet Pneumonia G+1 S+3 - Goth 1 -> 2, Sickness 2 -> 5, Raven swoons.",
        "Morticia gave Raven Fishnet Pneumonia G+1 S+3 - Goth 1 -> 2, Sickness 2 -> 5, "
        "Raven swoons.",
    ),
    (
        {"kind": "place", "seat": 0, "to": 1, "card": ID["Stomach Bug"]},
        "You gave Morticia Stomach Bug S+3 - Sickness 0 (-2 banked) -> 1.",
        "Raven gave you Stomach Bug S+3 - Sickness 0 (-2 banked) -> 1.",
        "Raven gave Morticia Stomach Bug S+3 - Sickness 0 (-2 banked) -> 1.",
    ),
    (
        {"kind": "place", "seat": 2, "to": 2, "card": ID["Student Loan"]},
        "Vlad placed Student Loan $+3 on their own Fate pile - Money -3 -> 0, Vlad is out of debt.",
        "Vlad placed Student Loan $+3 on their own Fate pile - Money -3 -> 0, Vlad is out of debt.",
        "Vlad placed Student Loan $+3 on their own Fate pile - Money -3 -> 0, Vlad is out of debt.",
    ),
    (
        {"kind": "place", "seat": 1, "to": 0, "card": ID["Velvet Cape"]},
        "Morticia gave you Velvet Cape G+3 $-2 - Goth 1 -> 4, Money 0 -> -2, you are in debt.",
        "You gave Raven Velvet Cape G+3 $-2 - Goth 1 -> 4, Money 0 -> -2, Raven is in debt.",
        "Morticia gave Raven Velvet Cape G+3 $-2 - Goth 1 -> 4, Money 0 -> -2, Raven is in debt.",
    ),
    (
        {"kind": "discard_fate", "seat": 0, "card": ID["Anaemia"]},
        "You discarded Anaemia G+1 S+2 from your Fate pile - Goth 1 -> 0, Sickness 2 -> 0.",
        "Raven discarded Anaemia G+1 S+2 from their Fate pile - Goth 1 -> 0, Sickness 2 -> 0.",
        "Raven discarded Anaemia G+1 S+2 from their Fate pile - Goth 1 -> 0, Sickness 2 -> 0.",
    ),
    (
        {"kind": "swoon", "seat": 2, "cards": [1, 2, 3]},
        "Vlad SWOONS: 3 cards to the discard pile.",
        "Vlad SWOONS: 3 cards to the discard pile.",
        "Vlad SWOONS: 3 cards to the discard pile.",
    ),
    (
        {"kind": "swoon", "seat": 0, "cards": [6]},
        "You SWOON: 1 card to the discard pile.",
        "Raven SWOONS: 1 card to the discard pile.",
        "Raven SWOONS: 1 card to the discard pile.",
    ),
    (
        {"kind": "draw", "seat": 1, "source": "deck"},
        "Morticia drew a card from the draw pile.",
        "You drew a card from the draw pile.",
        "Morticia drew a card from the draw pile.",
    ),
    (
        {"kind": "draw", "seat": 0, "source": "deck", "card": ID["Pet Raven"]},
        "You drew Pet Raven G+4 $-3 from the draw pile.",
        "Raven drew Pet Raven G+4 $-3 from the draw pile.",  # (after the game: revealed)
        "Raven drew Pet Raven G+4 $-3 from the draw pile.",
    ),
    (
        {"kind": "draw", "seat": 2, "source": "discard", "card": ID["Club Night"]},
        "Vlad took Club Night G+4 $-1 from the discard pile.",
        "Vlad took Club Night G+4 $-1 from the discard pile.",
        "Vlad took Club Night G+4 $-1 from the discard pile.",
    ),
    (
        {"kind": "discard_hand", "seat": 0, "card": ID["Pastel Hoodie"]},
        "You discarded Pastel Hoodie G-2 from your hand.",
        "Raven discarded Pastel Hoodie G-2 from their hand.",
        "Raven discarded Pastel Hoodie G-2 from their hand.",
    ),
    (
        {"kind": "reshuffle", "count": 1},
        "The discard pile (1 card) was shuffled into a new draw pile.",
        "The discard pile (1 card) was shuffled into a new draw pile.",
        "The discard pile (1 card) was shuffled into a new draw pile.",
    ),
    (
        {"kind": "over", "winners": [1], "reason": "goth"},
        "Game over: Morticia wins with 20+ Goth Points.",
        "Game over: You win with 20+ Goth Points.",
        "Game over: Morticia wins with 20+ Goth Points.",
    ),
    (
        {"kind": "over", "winners": [0, 2], "reason": "round_cap"},
        "Game over at the round cap: You and Vlad win on Goth Points.",
        "Game over at the round cap: Raven and Vlad win on Goth Points.",
        "Game over at the round cap: Raven and Vlad win on Goth Points.",
    ),
]


@pytest.mark.parametrize(("event", "to_seat", "to_other", "to_spectator"), CASES)
def test_every_event_reads_for_a_seat_another_seat_and_a_spectator(
    event, to_seat, to_other, to_spectator
):
    assert told(event, 0) == to_seat
    assert told(event, 1) == to_other
    assert told(event, None) == to_spectator


def test_lines_about_the_viewer_are_marked():
    narrator = Narrator(CAT, ASCII, NAMES, 0, PILES)
    given = narrator.tell(convert({"kind": "place", "seat": 1, "to": 0, "card": 4}, Event, "e"))
    assert given.mine and given.actor == 1 and given.target == 0
    other = narrator.tell(convert({"kind": "place", "seat": 1, "to": 2, "card": 3}, Event, "e"))
    assert not other.mine
    won = narrator.tell(convert({"kind": "over", "winners": [0], "reason": "goth"}, Event, "e"))
    assert won.mine and won.loud
    spectator = Narrator(CAT, ASCII, NAMES, None, PILES)
    assert not spectator.tell(convert({"kind": "turn", "seat": 0, "round": 1}, Event, "e")).mine


def test_effects_follow_the_piles_event_by_event():
    """Each sentence reads the pile as the events before it left it: a swoon empties it."""
    narrator = Narrator(CAT, ASCII, NAMES, 0, PILES)
    events = [
        {"kind": "place", "seat": 1, "to": 0, "card": ID["Fishnet Pneumonia"]},
        {"kind": "swoon", "seat": 0, "cards": [ID["Anaemia"], ID["Fishnet Pneumonia"]]},
        {"kind": "place", "seat": 2, "to": 0, "card": ID["Stomach Bug"]},
    ]
    lines = [narrator.tell(convert(e, Event, "e")) for e in events]
    assert "swoon" in lines[0].marks and lines[1].loud
    assert lines[2].text == "Vlad gave you Stomach Bug S+3 - Sickness 0 -> 3."


def test_a_banked_cure_is_marked_when_it_soaks_up_sickness():
    narrator = Narrator(CAT, ASCII, NAMES, 0, PILES)
    soaked = narrator.tell(convert({"kind": "place", "seat": 0, "to": 1, "card": 4}, Event, "e"))
    assert "banked" in soaked.marks


def test_a_view_is_told_from_its_own_piles_whatever_its_log_holds():
    """The piles before the log's first event are found by undoing the log from the view:
    told through, the last sentence about each pile ends at the view's own scores."""
    views = played_views(seed=3, round_cap=2)
    view = View.from_wire(views[-1])
    narrator = Narrator.for_view(view, CAT, ASCII)
    lines = [narrator.tell(event) for event in view.log]
    assert lines[-1].kind == "over"
    assert {s: sorted(p) for s, p in narrator.piles.items()} == {
        p.seat: sorted(p.fate) for p in view.players
    }


def test_an_unknown_card_id_still_reads():
    assert Narrator(CAT, ASCII, NAMES).card(200) == "card #200"


def _seat(view: View, seat: int, **facts: object) -> View:
    players = tuple(replace(p, **facts) if p.seat == seat else p for p in view.players)
    return replace(view, players=players)


def test_presence_lines_say_who_came_went_and_came_back():
    here = _seat(table_view(distribute_game(), 0), 1, bot=False)
    away = _seat(here, 1, connected=False)
    covered = _seat(away, 1, covered=True)
    gone = _seat(here, 1, bot=True)
    assert [ln.text for ln in presence(here, away, 0)] == ["Morticia is away."]
    assert [ln.text for ln in presence(away, covered, 0)] == [
        "A bot plays for Morticia until they are back."
    ]
    assert [ln.text for ln in presence(away, here, 0)] == ["Morticia is back."]
    assert [ln.text for ln in presence(here, gone, 0)] == [
        "Morticia left: a bot plays for them now."
    ]
    assert presence(here, here, 0) == [] and presence(None, here, 0) == []
    lobby = _seat(here, 2, name=None)
    assert [ln.text for ln in presence(lobby, here, 0)] == ["Vlad joined."]
    assert [ln.text for ln in presence(here, lobby, 0)] == ["Vlad left."]


def test_the_summary_since_your_last_turn_holds_what_others_did_to_you():
    narrator = Narrator(CAT, ASCII, NAMES, 0, PILES)
    events = [
        {"kind": "turn", "seat": 0, "round": 1},
        {"kind": "place", "seat": 0, "to": 1, "card": ID["Pet Raven"]},
        {"kind": "turn", "seat": 1, "round": 1},
        {"kind": "place", "seat": 1, "to": 0, "card": ID["Stomach Bug"]},
        {"kind": "place", "seat": 1, "to": 2, "card": ID["Black Lipstick"]},
        {"kind": "turn", "seat": 2, "round": 1},
        {"kind": "place", "seat": 2, "to": 2, "card": ID["Fishnet Pneumonia"]},
        {"kind": "swoon", "seat": 2, "cards": [0, 3, 5]},
        {"kind": "turn", "seat": 0, "round": 2},
    ]
    lines = [narrator.tell(convert(e, Event, "e")) for e in events]
    summary = [ln.text for ln in since_last_turn(lines, 0)]
    assert summary == [
        "Morticia gave you Stomach Bug S+3 - Sickness 2 -> 5, you swoon.",
        "Vlad SWOONS: 3 cards to the discard pile.",
    ]
    assert since_last_turn(lines, None) == []
    assert since_last_turn(lines[:2], 0) == []


def test_a_gap_says_how_many_events_were_not_seen():
    assert gap(1).text.startswith("(1 event not seen here")
    assert gap(7).kind == "gap" and "7 events" in gap(7).text


def test_unicode_sentences_use_the_published_marks():
    narrator = Narrator(CAT, UNICODE, NAMES, 0, PILES)
    event = convert({"kind": "place", "seat": 1, "to": 0, "card": 5}, Event, "e")
    assert narrator.tell(event).text == (
        "Morticia gave you Fishnet Pneumonia ☥+1 ☠+3 — Goth 1 → 2, Sickness 2 → 5, you swoon."
    )


def test_a_covered_seat_that_won_hears_that_the_bot_won_for_it():
    final = View.from_wire(played_views(seed=7, round_cap=3)[-1])
    assert final.over and final.winner
    for seat in range(len(final.players)):
        seen = View.from_wire(played_views(seed=7, round_cap=3, viewer=seat)[-1])
        said = covered_for_you(2, seen).text
        assert said.startswith("While you were away a bot played for you in 2 rounds.")
        assert ("It won the game for you." in said) == (seat in final.winner)


def test_the_summary_puts_your_own_swoon_first():
    """Issue 29: at 80x24 the column shows two or three lines; your own swoon was hidden in
    "+2 more" behind what the others did to each other."""
    narrator = Narrator(CAT, ASCII, NAMES, 0, PILES)
    events = [
        {"kind": "turn", "seat": 0, "round": 1},
        {"kind": "turn", "seat": 1, "round": 1},
        {"kind": "place", "seat": 1, "to": 2, "card": ID["Black Lipstick"]},
        {"kind": "swoon", "seat": 2, "cards": [0, 3, 5]},
        {"kind": "turn", "seat": 2, "round": 1},
        {"kind": "place", "seat": 2, "to": 0, "card": ID["Stomach Bug"]},
        {"kind": "swoon", "seat": 0, "cards": [0]},
        {"kind": "turn", "seat": 0, "round": 2},
    ]
    lines = [narrator.tell(convert(e, Event, "e")) for e in events]
    view = table_view(distribute_game())
    told = summary(lines, view, CAT, ASCII)
    assert told[0].startswith("Vlad: Stomach Bug") and "you swoon" in told[0], told
    assert told[1].startswith("Vlad SWOONS"), told  # what others did to each other after
    assert told[-1].startswith("Goth now:")
