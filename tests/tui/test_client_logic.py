"""The client's pure parts: composing moves from `legal`, previews (sums only), log
sentences, glyph choice, the seat-token file."""

from __future__ import annotations

import re

import pytest
from msgspec.structs import replace
from rich.cells import cell_len
from rich.style import Style

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.connection import Received, Unreadable, incoming
from gother_tui.core.glyphs import ASCII, NAME_MARKS, UNICODE, wants_ascii
from gother_tui.core.plans import keep_or_replace, plan_for
from gother_tui.core.preview import Outcome, Sums, fate_sums
from gother_tui.core.seat_store import SeatStore
from gother_tui.tui.palette import Palette
from gother_tui.tui.theme import GOTHER
from gother_tui.tui.widgets.players import player_line
from protocol import moves
from protocol.text import RESERVED_SYMBOLS, name_problem
from server.game import Variants
from tests.tui.viewkit import (
    DECK,
    ID,
    RAVEN_FATE,
    debt_game,
    distribute_game,
    draw_game,
    fate_discard_game,
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


def test_a_player_line_keeps_every_mark_and_warning_in_words():
    view = table_view(distribute_game(), names=("Raven", "A" * 24, "Vlad"), away=[2])
    raven, morticia, vlad = view.players
    players = (raven, replace(morticia, clock=151.5), replace(vlad, bot=False))
    view = replace(view, players=players)
    lines = [player_line(p, view, CAT, UNICODE, 80).plain for p in view.players]
    assert lines[0].startswith("▶ 1 Raven (you)")
    assert "☠ 4 ⚠" in lines[0] and "$ -3 DEBT" in lines[0]
    assert "6: Fog Machine Cough ☥+2 ☠+1" in lines[0]
    assert "⚙ 2:31" in lines[1] and "AAAA…" in lines[1]  # the name gives way, not the marks
    assert "Vlad (away)" in lines[2]
    ascii_line = player_line(view.players[0], view, CAT, ASCII, 80).plain
    assert ascii_line.startswith("> 1 Raven (you)") and "S 4 !" in ascii_line


def test_a_player_lines_warnings_take_the_themes_colours():
    """Near swoon in the theme's $warning, debt in its $error (the gother theme: the
    terminal's own yellow and red), bold, beside their words."""
    palette = Palette.of_theme(GOTHER.to_color_system().generate())
    view = table_view(distribute_game())
    line = player_line(view.players[0], view, CAT, UNICODE, 80, palette)
    styled = {line.plain[span.start : span.end].strip(): span.style for span in line.spans}
    near, debt = styled["☠ 4 ⚠"], styled["$ -3 DEBT"]
    assert isinstance(near, Style) and isinstance(debt, Style)
    assert (near.bold, near.color.number, debt.bold, debt.color.number) == (True, 3, True, 1)
    plain = player_line(view.players[0], view, CAT, UNICODE, 80)
    assert all(
        span.style in ("", "bold", "italic", "dim") or not span.style.color for span in plain.spans
    )


async def test_a_banked_cure_shows_on_the_players_panel(make_app, fake):
    """R6: Morticia's pile sums to Sickness -3 (A Long Nap, Early Night): it shows as 0 with
    the cure banked, on the panel and in the Fate piles viewer."""
    from gother_tui.tui.screens.viewer import TextViewer
    from tests.tui.clientkit import at_table, shown, widget_text
    from tests.tui.viewkit import join_with, position, wire_view

    game = position(
        hands=[[22, 0, 4, 11, 10], [3, 9, 12, 13, 1], [14, 16, 17, 18, 19]],
        fates=[[2], [ID["A Long Nap"], ID["Early Night"]], []],
        phase="distribute",
    )
    fake.handlers["join"] = join_with(wire_view(game))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        players = widget_text(pilot, "#players")
        assert "☠ 0 (-3 banked)" in players
        await pilot.press("f")
        await shown(pilot, TextViewer, "Every Fate pile", "☠0 (-3 banked)")
