"""The new table's form in the client's core (gother_tui/core/forms.py, issue 32): the bots'
trait and the game's length are offered, the trait reaches the request (left to the
server's default when not chosen), and the form says how long such a table's games run."""

from __future__ import annotations

import pytest

from gother_tui.core.forms import BOT_AIM, LENGTHS, TRAIT_MEANS, lasts, table_request
from protocol import validate_request
from protocol.constants import DEFAULT_ROUND_CAP, DEFAULT_TRAITS, SHORT_ROUND_CAP, TRAITS
from protocol.lengths import how_long


@pytest.mark.parametrize("aim", [value for _, value in BOT_AIM])
def test_the_trait_chosen_is_sent_and_none_leaves_it_to_the_server(aim):
    request = table_request("Crypt", "5", "4", "hard", aim, "any", "draw_step", "100", "")
    assert request.trait == (aim or None)
    assert validate_request(request.to_wire()) == request


def test_every_trait_is_offered_with_what_it_means():
    assert [value for _, value in BOT_AIM] == ["", *TRAITS]
    for label, value in BOT_AIM[1:]:
        assert label == f"{value}: {TRAIT_MEANS[value]}"


def test_h1_the_short_game_is_a_preset_of_the_round_cap():
    assert [value for _, value in LENGTHS] == [str(DEFAULT_ROUND_CAP), str(SHORT_ROUND_CAP), ""]
    short = table_request("Crypt", "5", "4", "normal", "", "any", "draw_step", "20", "")
    assert short.variants is not None and short.variants.round_cap == SHORT_ROUND_CAP == 20


def test_the_form_says_how_long_what_is_typed_runs():
    assert (
        lasts("5", "normal", "", "100")
        == f"Length: {how_long(5, 'normal', DEFAULT_TRAITS[5], 100)}."
    )
    assert lasts("5", "normal", "vengeful", "20") == (
        f"Length: {how_long(5, 'normal', 'vengeful', 20)}."
    )
    assert (
        lasts("5", "normal", "vengeful", "")
        == f"Length: {how_long(5, 'normal', 'vengeful', None)}."
    )
    assert lasts("", "normal", "", "100") == lasts("5x", "normal", "", "100") == ""
    assert lasts("5", "random", "", "100") == ""  # nothing measured stands for random bots
