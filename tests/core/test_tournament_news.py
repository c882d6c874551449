"""What a player hears of a tournament's change (gother_tui/core/tournament_words.py `news`):
all that changed between the message it knew and the new one, which may be several changes
apart (a tournament run at another process of the host is told by its news as it stands at
each read: issue 34 §2)."""

from __future__ import annotations

from msgspec.structs import replace

from gother_tui.core.tournament_words import news
from protocol import server_messages as sm
from protocol.view import Variants


def standing(name: str, dropped: bool = False) -> sm.TournamentStanding:
    return sm.TournamentStanding(
        player=f"id:{name.lower()}", name=name, games=0, points=0.0, goth=0, rating=0.0,
        match_points=0.0, dropped=dropped,
    )  # fmt: skip


REGISTERING = sm.Tournament(
    id="night1", name="Night", rounds=2, seats=3, duplicate=False, variants=Variants(),
    phase="registering", round=0, players=("Bea", "Cal"), tables=(),
    standings=(standing("Bea"), standing("Cal")),
)  # fmt: skip
SEATED = replace(REGISTERING, phase="playing", round=1)
BEA_OUT = replace(SEATED, standings=(standing("Bea", dropped=True), standing("Cal")))


def test_each_change_is_said_as_it_comes():
    assert news(REGISTERING, SEATED) == "Night: round 1 of 2 is seated."
    assert news(SEATED, BEA_OUT) == "Night: Bea dropped out."
    assert news(BEA_OUT, BEA_OUT) is None  # the same news again: nothing new


def test_a_drop_is_said_beside_the_round_seated_before_it_when_both_come_at_once():
    assert news(REGISTERING, BEA_OUT) == "Night: round 1 of 2 is seated. Bea dropped out."


def test_nothing_is_said_of_a_first_tournament_or_another_one():
    assert news(None, BEA_OUT) is None
    assert news(replace(REGISTERING, id="other"), BEA_OUT) is None
