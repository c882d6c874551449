"""The table tells the story: the log keeps the whole game this client saw (not the view's
last 30 events), says what it missed, shows only your lines on request; your turn brings a
summary of what was done to you and an alert that takes no key."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.story import StoryScreen
from gother_tui.tui.screens.table import TableScreen
from protocol.view import View
from tests.tui.clientkit import at_table, shown, until, widget_text
from tests.tui.viewkit import joined, played_views, state

VIEWS = played_views(seed=7, round_cap=3)  # 38 views, 70 events: more than one log window
EVENTS = VIEWS[-1]["log_start"] + len(VIEWS[-1]["log"])
YOUR_TURN_2 = 14  # VIEWS[14] is the view whose newest event begins Raven's turn in round 2


def seat_from(views, first_seq: int = 1):
    return lambda m: [joined(m.get("rid"))] + [state(first_seq + i, v) for i, v in enumerate(views)]


async def test_the_full_log_holds_the_whole_game_and_opens_at_its_end(make_app, fake):
    assert EVENTS > 30 + 30  # the last view's log holds less than half of the game
    fake.handlers["join"] = seat_from(VIEWS)
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view and app.view.over, "the end")
        assert len(app.chronicle.lines) == EVENTS and app.chronicle.missed == 0
        assert app.chronicle.lines[0].text == "Round 1: your turn."
        await shown(pilot, GameOverScreen, "Table")
        await pilot.press("escape")  # the game-over panel
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("l")
        text = await shown(pilot, StoryScreen, "The whole game", "Game over")  # the newest
        assert "Round 1: your turn." not in text  # the top is scrolled out of sight
        body = app.screen.query_one("#viewer-body")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y > 0, "the end in sight")
        mine = [ln for ln in app.chronicle.lines if ln.mine]
        await pilot.press("m")
        text = await shown(pilot, StoryScreen, "only the lines about you")
        assert all(ln.mine for ln in app.chronicle.lines if ln.text in text)
        assert mine and mine[-1].text[:40] in text.replace("\n", " ")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "closed")


async def test_a_late_joiner_is_told_how_many_events_it_missed(make_app, fake):
    late = 20
    fake.handlers["join"] = seat_from(VIEWS[late:])
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view and app.view.over, "the end")
        first = View.from_wire(VIEWS[late])
        assert app.chronicle.missed == first.log_start > 0
        assert app.chronicle.lines[0].kind == "gap"
        assert f"{first.log_start} events not seen here" in app.chronicle.lines[0].text
        await shown(pilot, GameOverScreen, "Table")
        await pilot.press("escape", "l")
        await shown(pilot, StoryScreen, f"({first.log_start} events happened while")


async def test_your_turn_alerts_without_taking_the_keys_and_says_what_was_done_to_you(
    make_app, fake
):
    fake.handlers["join"] = seat_from(VIEWS[:YOUR_TURN_2])
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await until(pilot, lambda: app.view.round == 1 and app.view.turn != 0, "others' turns")
        assert app.terminal_title == "Gother Than Thou"
        await pilot.press("c", "h", "i")  # typing in the chat line as the turn comes
        chat = app.screen.query_one("#chat-input", Input)
        fake.conn.feed(state(YOUR_TURN_2 + 1, VIEWS[YOUR_TURN_2]))
        await until(pilot, lambda: app.view.turn == 0 and app.view.round == 2, "your turn")
        await until(
            pilot, lambda: any("Your turn (round 2)" in n.message for n in app._notifications)
        )
        assert app.terminal_title == "Your turn · Gother Than Thou"
        assert chat.has_focus and chat.value == "hi"  # the alert took neither focus nor keys
        since = widget_text(pilot, "#since")
        # the bots know round 3 is the last (H1): Vlad swoons Raven at once, and her own
        # swoon comes first (issue 29: a narrow column shows only the first few), then what
        # came before it; the standings, shown elsewhere too, give way (fit_lines)
        assert since.startswith(
            "Since your last turn Vlad: Anaemia ☥+1 ☠+2 — Goth 4 → 5, Sickness 3 → 5, you swoon"
        )
        assert "Morticia: Stomach Bug ☠+3 — Sickness 0 → 3" in since
        summary = app.screen.query_one("#since").render().plain.splitlines()
        assert not [line for line in summary if line.startswith("Goth now: ")]
        fake.conn.feed(state(YOUR_TURN_2 + 2, VIEWS[YOUR_TURN_2 + 4]))  # the next turn
        await until(pilot, lambda: app.view.turn != 0, "the next player's turn")
        await until(pilot, lambda: not app.screen.query_one("#since").display, "hidden")


@pytest.mark.parametrize("bell", [False, True])
async def test_your_turn_rings_the_bell_only_when_asked(make_app, fake, bell):
    fake.handlers["join"] = seat_from(VIEWS[:YOUR_TURN_2])
    app = make_app(table="t1", bell=bell)
    rang: list[bool] = []
    app.bell = lambda: rang.append(True)  # type: ignore[method-assign]  # no terminal to hear
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await until(pilot, lambda: app.view.round == 1 and app.view.turn != 0, "others' turns")
        fake.conn.feed(state(YOUR_TURN_2 + 1, VIEWS[YOUR_TURN_2]))
        await until(
            pilot, lambda: any("Your turn (round 2)" in n.message for n in app._notifications)
        )
        assert rang == ([True] if bell else [])
