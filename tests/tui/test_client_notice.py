"""The table's state beside the game (the view's `table`: stopped, paused, the votes, a bot
about to cover a turn) is a line under the status line, shown only while it applies."""

from __future__ import annotations

import msgspec

from gother_tui.core.glyphs import ASCII, UNICODE
from gother_tui.tui.widgets.notice import notice_text
from protocol.view import CoverWarning, View
from tests.tui.clientkit import at_table, until, widget_text
from tests.tui.viewkit import distribute_game, join_with, state, table_view, wire_view


def with_table(**fields) -> View:
    view = table_view(distribute_game())  # seat 0 (Raven) is the viewer
    return msgspec.structs.replace(view, table=msgspec.structs.replace(view.table, **fields))


def said(view: View, elapsed: float = 0.0) -> str:
    text = notice_text(view, UNICODE, elapsed)
    return "" if text is None else text.plain


def test_nothing_is_said_when_all_is_well():
    assert notice_text(table_view(distribute_game()), UNICODE) is None
    assert notice_text(None, UNICODE) is None


def test_a_stopped_table_says_why_and_that_it_takes_no_moves():
    text = said(with_table(stopped="disk full"))
    assert "cannot save this table (disk full)" in text and "takes no moves" in text


def test_the_pause_and_the_votes_name_who_asks():
    names = {p.seat: p.name for p in table_view(distribute_game()).players}
    assert said(with_table(pause_votes=(1,))) == f"{names[1]} asks to pause."
    assert said(with_table(pause_votes=(0, 2))) == f"{names[2]} and you ask to pause."
    assert said(with_table(pause_votes=(0,))) == "You ask to pause."
    assert said(with_table(paused=True, pause_votes=(0, 1, 2))).endswith(
        "Paused: clocks and bots wait. Going on needs every player's vote."
    )
    end = said(with_table(end_votes=(1, 2)))
    assert end == f"{names[1]} and {names[2]} ask to end the game unfinished."


def test_the_cover_warning_counts_down_for_you_and_for_others():
    names = {p.seat: p.name for p in table_view(distribute_game()).players}
    mine = with_table(warning=CoverWarning(seat=0, seconds=42.0))
    assert "A bot plays your turn in 42 s unless you move." in said(mine)
    assert "in 30 s" in said(mine, elapsed=12.2)
    assert "in 0 s" in said(mine, elapsed=99)  # never below zero
    theirs = said(with_table(warning=CoverWarning(seat=1, seconds=9.0)))
    assert theirs == f"{names[1]} is away — a bot plays for them in 9 s."
    ascii_text = notice_text(with_table(warning=CoverWarning(seat=1, seconds=9.0)), ASCII)
    assert ascii_text is not None and ascii_text.plain.isascii()


async def test_the_table_shows_the_notice_while_it_applies(make_app, fake):
    game = distribute_game()
    stopped = wire_view(game)
    stopped["table"]["stopped"] = "disk full"
    fake.handlers["join"] = join_with(stopped)
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        notice = app.screen.query_one("#notice")
        await until(pilot, lambda: notice.display, "the notice")
        assert "cannot save this table (disk full)" in widget_text(pilot, "#notice")
        fake.conn.feed(state(2, wire_view(game)))  # a write landed: all is well again
        await until(pilot, lambda: not notice.display, "the notice gone")
