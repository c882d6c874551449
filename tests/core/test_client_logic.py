"""The client's pure parts: composing moves from `legal`, previews (sums only), a log
event this client does not know, glyph choice, the seat-token file, the Goth history."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.connection import Received, Unreadable, incoming
from gother_tui.core.glyphs import ASCII, NAME_MARKS, UNICODE, wants_ascii
from gother_tui.core.history import ASCII_LEVELS, GothHistory, levels
from gother_tui.core.plans import keep_or_replace, plan_for
from gother_tui.core.preview import Outcome, Sums, fate_sums
from gother_tui.core.seat_store import SeatStore
from protocol import moves
from protocol.text import RESERVED_SYMBOLS, name_problem
from protocol.view import View
from server.game import Variants
from tests.tui.viewkit import (
    DECK,
    ID,
    RAVEN_FATE,
    debt_game,
    distribute_game,
    draw_game,
    fate_discard_game,
    played_views,
    state,
    table_view,
    wire_view,
)

CAT = Catalogue(DECK.catalogue())


# -- plans --------------------------------------------------------------------------------


def test_a_distribute_plan_gives_one_card_per_seat_and_builds_pairs():
    plan = plan_for(table_view(distribute_game()))
    assert plan is not None and plan.kind == "distribute" and plan.count == 3
    assert plan.move() is None
    assert plan.assign(2) is None  # Consumption Chic -> seat 2; cursor moves on
    assert plan.current == ID["Pet Raven"]
    assert plan.assign(2) is None  # Pet Raven to seat 2 instead: Chic is free again
    assert plan.assigned == {ID["Pet Raven"]: 2}
    assert plan.assign(7) == "seat 8 cannot receive a card"
    plan.point_at(ID["Student Loan"])
    plan.assign(0)
    plan.point_at(ID["Khaki Shorts"])
    plan.assign(1)
    assert plan.move() == moves.Distribute(((0, 11), (1, 10), (2, 0)))


def test_a_plan_offers_only_the_cards_legal_lists():
    top_only = plan_for(table_view(fate_discard_game(Variants(fate_discard="top"))))
    assert top_only is not None and top_only.choices == [ID["Chamomile Tea"]]
    anything = plan_for(table_view(fate_discard_game()))
    assert anything is not None
    assert anything.choices == [ID["Chamomile Tea"], ID["Fishnet Pneumonia"], ID["Anaemia"]]


def test_a_draw_plan_needs_a_source_and_refuses_the_discard_pile_in_debt():
    plan = plan_for(table_view(draw_game()))
    assert plan is not None and plan.move() is None
    assert plan.open_discard() is None
    assert plan.move() == moves.Draw("discard", ID["Sunburn"])
    assert plan.choose_deck() is None
    assert plan.move() == moves.Draw("deck")
    debt = plan_for(table_view(debt_game()))
    assert debt is not None
    assert "in debt" in (debt.open_discard() or "")
    assert debt.move() is None


def test_a_hint_prefills_only_when_it_fits_the_decision():
    plan = plan_for(table_view(draw_game()))
    assert plan is not None
    assert not plan.prefill(moves.Distribute(((0, 1),)))
    assert not plan.prefill(moves.Draw("discard", 4))  # not in the pile
    assert plan.prefill(moves.Draw("discard", ID["Club Night"]))
    assert plan.move() == moves.Draw("discard", ID["Club Night"])


def test_choices_survive_a_state_that_asks_the_same_decision():
    game = distribute_game()
    plan = plan_for(table_view(game))
    assert plan is not None
    plan.assign(1)
    assert keep_or_replace(plan, table_view(game, away=[2])) is plan
    assert keep_or_replace(plan, table_view(draw_game())) is not plan
    assert keep_or_replace(plan, None) is None


def test_a_spectator_or_a_waiting_player_has_no_plan():
    game = distribute_game()
    assert plan_for(table_view(game, "spectator")) is None
    assert plan_for(table_view(game, 1)) is None


# -- previews -----------------------------------------------------------------------------


def test_the_preview_sums_fate_values_and_names_a_swoon():
    outcome = Outcome.placing("Raven", RAVEN_FATE, ID["Consumption Chic"], CAT)
    assert outcome.before == Sums(14, 4, -3)
    assert outcome.describe(UNICODE) == "Raven: Goth 14 → 17, Sickness 4 → 5: SWOON"
    assert outcome.describe(ASCII) == "Raven: Goth 14 -> 17, Sickness 4 -> 5: SWOON"


def test_sickness_is_floored_at_zero_in_previews_and_the_cure_is_banked():
    banked = fate_sums([ID["A Long Nap"], ID["Early Night"]], CAT)
    assert banked == Sums(-1, -3, 0) and banked.sickness == 0 and banked.banked == 3
    outcome = Outcome.removing("Vlad", [ID["A Long Nap"], ID["Stomach Bug"]], ID["A Long Nap"], CAT)
    assert outcome.describe(UNICODE) == "Vlad: Sickness 1 → 3: 2 from swoon"


def test_the_preview_flags_debt_and_leaving_it():
    into = Outcome.placing("Vlad", [], ID["Pet Raven"], CAT)
    assert into.describe(UNICODE) == "Vlad: Goth 0 → 4, Money 0 → -3: DEBT"
    out = Outcome.placing("Vlad", [ID["Pet Raven"]], ID["Student Loan"], CAT)
    assert out.describe(UNICODE) == "Vlad: Money -3 → 0: out of debt"
    same = Outcome.placing("Vlad", [], ID["Khaki Shorts"], CAT)
    assert same.describe(UNICODE) == "Vlad: Goth 0 → -3, Money 0 → 1"


def test_the_preview_explains_a_banked_cure():
    """R6: a cure on a healthy pile is banked, and a later Sickness card soaks into it."""
    bank = Outcome.placing("Vlad", [], ID["Chamomile Tea"], CAT)
    assert bank.describe(UNICODE) == (
        "Vlad: Sickness 0 → 0 (-1 banked): the cure is banked against later Sickness"
    )
    soak = Outcome.placing("Vlad", [ID["A Long Nap"], ID["Early Night"]], ID["Stomach Bug"], CAT)
    assert soak.describe(UNICODE) == (
        "Vlad: Sickness 0 (-3 banked) → 0: the banked cure soaks up 3 Sickness"
    )


# -- the log on the wire ------------------------------------------------------------------


def test_a_log_event_of_a_kind_this_client_does_not_know_makes_the_state_unreadable():
    """Parsed on arrival (the protocol's View): an unknown event is a malformed view, shown
    as a notice, never guessed at."""
    wire = wire_view(distribute_game())
    frame = state(1, {**wire, "log": [{"kind": "comet", "seat": 1}]})
    message = incoming(frame)
    assert isinstance(message, Unreadable)
    assert message.problem == "state.view.log[0].kind: Invalid value 'comet'"
    assert isinstance(incoming(state(1, wire)), Received)
    assert incoming({"t": "comet"}) is None  # a message type it does not know: dropped


# -- glyphs and the seat file -------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM": "linux", "LANG": "en_GB.UTF-8"}, True),
        ({"TERM": "xterm-256color", "LANG": "en_GB.UTF-8"}, False),
        ({"TERM": "xterm", "LC_ALL": "C", "LANG": "en_GB.UTF-8"}, True),
        ({"TERM": "xterm", "LC_CTYPE": "C.utf8"}, False),
        ({"TERM": "xterm"}, True),
    ],
)
def test_ascii_is_chosen_on_a_linux_console_or_without_utf8(env, expected):
    assert wants_ascii(env) is expected


def test_ascii_glyphs_are_ascii_and_unicode_ones_are_one_cell_each():
    symbols = [f for f in ASCII.__dataclass_fields__ if f != "ascii_only"]
    assert all(getattr(ASCII, f).isascii() for f in symbols)
    assert ASCII.ascii_only and not UNICODE.ascii_only
    assert all(cell_len(getattr(UNICODE, f)) == len(getattr(UNICODE, f)) for f in symbols)


def test_every_mark_drawn_beside_a_name_is_one_no_name_may_hold():
    """protocol.text reserves the marks: a player named "Vlad ⚙" or "Eve (rematch)" would
    fake them on everyone's screen. (ASCII's single characters, G > * !, cannot be kept out
    of names: the ASCII set is the fallback for terminals without Unicode.)"""
    for glyphs in (UNICODE, ASCII):
        for field in NAME_MARKS:
            mark = getattr(glyphs, field)
            symbols = [c for c in mark if not c.isascii()]
            assert all(c in RESERVED_SYMBOLS for c in symbols), (field, mark)
            for tag in re.findall(r"[(\[][^)\]]*[)\]]", mark):
                assert name_problem(f"Eve {tag}") is not None, (field, tag)
    assert UNICODE.goth == "☥" and UNICODE.sickness == "☠" and UNICODE.money == "$"
    assert (ASCII.goth, ASCII.sickness, ASCII.money) == ("G", "S", "$")


def test_the_seat_file_keeps_the_latest_seat_per_server(tmp_path):
    store = SeatStore(tmp_path / "state" / "seats.json")
    assert store.find("ws://a:1") is None
    store.save("ws://a:1", "t1", "token-one-0123456789")
    store.save("ws://a:1", "t2", "token-two-0123456789")
    store.save("ws://b:1", "t1", "token-bbb-0123456789")
    assert store.find("ws://a:1") == ("t2", "token-two-0123456789")
    assert store.find("ws://a:1", "t1") == ("t1", "token-one-0123456789")
    store.forget("ws://a:1", "t2")
    assert store.find("ws://a:1") == ("t1", "token-one-0123456789")
    assert SeatStore(store.path).find("ws://b:1") == ("t1", "token-bbb-0123456789")


def test_an_unreadable_seat_file_is_ignored(tmp_path):
    path = tmp_path / "seats.json"
    path.write_text("{not json", encoding="utf-8")
    store = SeatStore(path)
    assert store.find("ws://a:1") is None
    store.save("ws://a:1", "t1", "token-one-0123456789")
    assert store.find("ws://a:1") == ("t1", "token-one-0123456789")


def test_a_seat_is_only_resumed_under_the_name_it_was_taken_with(tmp_path):
    store = SeatStore(tmp_path / "seats.json")
    store.save("ws://a:1", "t1", "token-raven-0123456789", "Raven")
    assert store.find("ws://a:1", name="Raven") == ("t1", "token-raven-0123456789")
    assert store.find("ws://a:1", name="Lydia") is None
    assert store.find("ws://a:1", "t1", "Lydia") is None


# -- the Goth history ---------------------------------------------------------------------


def test_history_starts_afresh_on_a_new_game_and_levels_share_one_scale():
    history = GothHistory()
    views = played_views()
    for v in views:
        history.record(View.from_wire(v))
    assert history.rounds == [1, 2, 3]
    history.record(View.from_wire({**views[0], "table": {**views[0]["table"], "game": 2}}))
    assert history.rounds == [1]
    assert levels([0, 5, 10], 0, 10, UNICODE, 10) == "▁▅█"
    assert levels([0, 5, 10], 0, 20, ASCII, 10) == "_-="
    assert levels([-3, 0], -3, 0, ASCII, 10) == ASCII_LEVELS[0] + ASCII_LEVELS[-1]
    assert levels([1, 2, 3, 4], 0, 4, UNICODE, 2) == levels([3, 4], 0, 4, UNICODE, 2)
