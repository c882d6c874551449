"""The new table's form in the client's core (gother_tui/core/forms.py, issue 32): the bots'
trait and the game's length are offered, the trait reaches the request (left to the
server's default when not chosen), and the form says how long such a table's games run."""

from __future__ import annotations

import pytest

from gother_tui.core.forms import BOT_AIM, TRAIT_MEANS, lasts, table_request
from protocol import validate_request
from protocol.constants import DEFAULT_ROUND_CAP, DEFAULT_TRAITS, SHORT_ROUND_CAP, TRAITS
from protocol.house_rules import ROUND_CAP
from protocol.lengths import how_long

# the form's fields as it opens, by their ids
TYPED = {"name": "Crypt", "seats": "5", "bots": "4", "bot": "normal", "aim": "", "password": ""}


@pytest.mark.parametrize("aim", [value for _, value in BOT_AIM])
def test_the_trait_chosen_is_sent_and_none_leaves_it_to_the_server(aim):
    request = table_request(TYPED | {"bot": "hard", "aim": aim, "fate": "any", "cap": "100"})
    assert request.trait == (aim or None)
    assert validate_request(request.to_wire()) == request


def test_every_trait_is_offered_with_what_it_means():
    assert [value for _, value in BOT_AIM] == ["", *TRAITS]
    for label, value in BOT_AIM[1:]:
        assert label == f"{value}: {TRAIT_MEANS[value]}"


def test_h1_the_short_game_is_a_preset_of_the_round_cap():
    presets = [preset.value for preset in ROUND_CAP.presets]
    assert presets == [DEFAULT_ROUND_CAP, SHORT_ROUND_CAP, None]
    assert [preset.word for preset in ROUND_CAP.presets if preset.word] == ["short"]
    short = table_request(TYPED | {"cap": "20"})
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
