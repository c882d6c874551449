"""Nothing you need is hidden at 80x24 (issue 19): the summary since your last turn names
every player or says how many more (a real server's five-seat game); a toast covers neither
the hand nor the decision, and in ASCII mode draws no Unicode; an end vote shows players
and spectators where the game stood; a player coming back hears that a bot played for
them (whether it won for them: tests/core/test_client_narrator.py). At 140x44 (issue 29)
the room is used: the summary whole, every card's name whole, the cards as wide as their
row allows."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.widgets._toast import Toast

from gother_tui.core.narrator import since_last_turn
from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.game_over import EndedScreen
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.widgets.cells import fit_lines
from gother_tui.tui.widgets.table_cards import CARD_MAX, CARD_W, GAP, CardFan, Seats
from protocol import requests as rq
from server.edge.app import GotherServer, ServerConfig
from tests.kits.netkit import Client
from tests.tables.test_hints import COLD
from tests.tui.clientkit import at_table, notices, screen_text, shown, until, widget_text
from tests.tui.test_client_live import (
    Answers,
    client,
    create_through_the_lobby,
    my_decision_or_over,
    play_one_decision,
)
from tests.tui.test_client_story import VIEWS, YOUR_TURN_2, seat_from
from tests.tui.viewkit import state

CONSOLE = Console(width=200)
words = st.text(st.sampled_from("ab ☥Ω漢"), min_size=1, max_size=60)


@given(st.lists(words, max_size=8), st.integers(1, 40), st.integers(1, 8), words)
def test_fitted_lines_fit_their_rows_and_count_what_they_leave_out(lines, width, rows, extra):
    fitted = fit_lines(lines, width, rows, CONSOLE, extra=extra)
    height = sum(len(Text(line).wrap(CONSOLE, width)) for line in fitted)
    more = re.match(r"\+(\d+) more", fitted[-1]) if fitted else None  # words hold no "+"
    if more:
        left_out = int(more[1])
        assert left_out > 0 and fitted[:-1] == lines[: len(lines) - left_out]
    else:
        assert fitted in ([*lines, extra], lines)
    assert height <= rows or fitted == [f"+{len(lines)} more"]  # not even the count fits


async def test_since_your_last_turn_names_every_player_or_how_many_more(live_server, store):
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        keys = ("tab", "backspace", "5", "tab", "backspace", "4")  # five seats, four bots
        await create_through_the_lobby(pilot, *keys)
        assert len(app.view.players) == 5
        while await my_decision_or_over(pilot) and app.view.round < 2:
            await play_one_decision(pilot, answers)
        await until(pilot, lambda: app.screen.query_one("#since").display, "the summary")
        done = since_last_turn(app.chronicle.lines, app.view.seat)
        assert len(done) >= 4  # each of the four bots placed a card on our pile
        text = widget_text(pilot, "#since")
        named = sum(line.text.split()[0] in text for line in done)
        more = int(found[1]) if (found := re.search(r"\+(\d+) more", text)) else 0
        assert named + more >= len(done) and named >= 1, text
        since = app.screen.query_one("#since")
        rows = since.render().wrap(since.size.width)
        assert len(rows) <= since.size.height  # nothing cut off


def cards_drawn(rendered: str) -> list[tuple[str, int]]:
    """Each card box in `rendered` (rows of boxes, top-left first): its name (the lines
    above its values and its note, joined) and its width."""
    lines = rendered.splitlines()
    found = []
    for top, line in enumerate(lines):
        for left in (i for i, char in enumerate(line) if char == "\u256d"):
            right = line.index("\u256e", left)
            bottom = next(i for i in range(top + 1, len(lines)) if lines[i][left] == "\u2570")
            name = [row[left + 1 : right].strip() for row in lines[top + 1 : bottom - 2]]
            found.append((" ".join(row for row in name if row), right - left + 1))
    return found


async def test_at_140x44_the_summary_and_every_card_name_are_whole(live_server, store):
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(140, 44), message_hook=answers) as pilot:
        await create_through_the_lobby(pilot, "tab", "backspace", "5", "tab", "backspace", "4")
        screen = app.screen
        assert screen.has_class("-cards")
        while await my_decision_or_over(pilot) and app.view.round < 2:
            await play_one_decision(pilot, answers)
        await until(pilot, lambda: screen.query_one("#since").display, "the summary")
        done = since_last_turn(app.chronicle.lines, app.view.seat)
        assert len(done) >= 4  # each of the four bots placed a card on our pile
        text = widget_text(pilot, "#since")
        since, side = screen.query_one("#since"), screen.query_one("#side")
        more = int(found[1]) if (found := re.search(r"\+(\d+) more", text)) else 0
        if more:  # a busy round (swoons): it fills half the column before leaving any out
            assert since.size.height >= side.size.height // 2 - 1 > 8, text
        else:  # every line, and the standings after them
            assert "Goth now:" in text, text
        named = sum(line.text.split()[0] in text for line in done)
        assert named + more >= len(done) and named >= 4, text

        await pilot.pause()
        catalogue, view = app.catalogue, app.view
        fan = screen.query_one(CardFan)
        drawn = cards_drawn(fan.render().plain)
        assert [name for name, _ in drawn] == [catalogue.name(row.card) for row in fan.rows]
        tops = [catalogue.name(p.fate[-1]) if p.fate else "(no Fate card)" for p in view.players]
        seats = screen.query_one(Seats)
        around = cards_drawn(seats.render().plain)
        assert [name for name, _ in around] == tops
        for row, room in ((drawn[:5], fan.size.width), (around, seats.size.width)):
            used = sum(width for _, width in row) + GAP * (len(row) - 1)
            # the cards grow with the terminal: less than one card's room is left over
            assert used > room - CARD_W - GAP or all(w == CARD_MAX for _, w in row), row

        await pilot.resize_terminal(120, 36)  # the smallest card table: five seats still fit
        await until(pilot, lambda: seats.size.width < 80, "the narrower layout")
        await pilot.pause()
        rows = seats.render().plain.splitlines()
        assert len(cards_drawn("\n".join(rows))) == 5
        assert max(cell_len(row) for row in rows) <= seats.size.width, rows


@pytest.mark.parametrize("ascii", [False, True])
async def test_a_toast_covers_neither_the_hand_nor_the_decision_and_ascii_draws_ascii(
    make_app, fake, ascii
):
    fake.handlers["join"] = seat_from(VIEWS[:YOUR_TURN_2])
    app = make_app(table="t1", ascii=ascii)
    app.NOTIFICATION_TIMEOUT = 60  # a busy machine must not see the toast go before we look
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await at_table(pilot)
        await until(pilot, lambda: app.view.round == 1 and app.view.turn != 0, "others' turns")
        fake.conn.feed(state(YOUR_TURN_2 + 1, VIEWS[YOUR_TURN_2]))  # your turn: an alert
        await until(
            pilot, lambda: app.screen.query(Toast) and "Your turn" in screen_text(pilot), "a toast"
        )
        toast = app.screen.query(Toast).first()
        for covered in ("#action", "#cards", "#prompt", "#preview"):
            region = app.screen.query_one(covered).region
            assert not region.overlaps(toast.region), f"the toast covers {covered}"
        if ascii:
            text = screen_text(pilot)
            assert all(ch.isascii() for ch in text), {ch for ch in text if not ch.isascii()}


async def test_an_end_vote_shows_the_player_the_final_standings_over_the_lobby(live_server, store):
    app = client(live_server, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await create_through_the_lobby(pilot)  # alone with three bots: one vote decides
        last = app.view
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        text = await shown(pilot, EndedScreen, "Final standings", "the players ended the game")
        assert app.current_mode == "lobby" and not live_server.lobby.tables
        assert all(p.name in text for p in last.players)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


async def test_an_end_vote_shows_a_spectator_the_final_standings(live_server, store):
    request = rq.Create(name="Wake", seats=3, bots=2)
    table = live_server.lobby.create(request)
    url = f"ws://127.0.0.1:{live_server.port}"
    player = await Client.connect(url, "Lenore")
    assert (await player.ask(rq.Join(table=table.id)))["t"] == "joined"
    await player.state(lambda v: v["phase"] != "lobby")
    app = client(live_server, store, name="Crow", watch=True, table=table.id)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view and app.current_mode == "table", "the table")
        await player.tell(rq.End())  # the only human's vote decides (its reply: issue 19, 5)
        text = await shown(pilot, EndedScreen, "Final standings")
        assert "Lenore" in text and "Vlad" in text
    await player.close()


async def test_a_player_coming_back_hears_that_a_bot_played_for_them(tmp_path, store):
    config = ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "g.db"), grace=0.0)
    server = GotherServer(replace(config, bot_delay=0.0))
    await server.start()
    try:
        app = client(server, store)
        async with app.run_test(size=(80, 24)) as pilot:
            await create_through_the_lobby(pilot)  # and away at once: a bot covers the seat
            table = app.table_id
        assert table is not None
        watcher = await Client.connect(f"ws://127.0.0.1:{server.port}", "Crow")
        assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
        await watcher.state(lambda v: v["round"] >= 3 or v["phase"] == "over")
        await watcher.close()
        back = client(server, store)
        async with back.run_test(size=(80, 24), notifications=True) as pilot:
            await until(pilot, lambda: back.view and back.current_mode == "table", "the seat")
            said = re.compile(r"While you were away a bot played for you in (\d+) rounds\.")
            heard = await until(pilot, lambda: [m for n in notices(pilot) if (m := said.match(n))])
            rounds = int(heard[0][1])
            assert rounds >= 2
            (welcome,) = [ln.text for ln in back.chronicle.lines if ln.kind == "welcome"]
            assert welcome.startswith(f"While you were away a bot played for you in {rounds}")
            if "It won the game for you." in welcome:  # it may have: the game goes on
                assert back.view.over and back.seat in back.view.winner
    finally:
        await server.close()


async def test_the_hint_preview_shows_every_seat_or_says_pgdn_shows_the_rest(live_server, store):
    app = client(live_server, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await create_through_the_lobby(pilot, "tab", "backspace", "5", "tab", "backspace", "4")
        screen = app.screen
        await until(pilot, lambda: app.view.legal and app.view.phase == "distribute", "a deal")
        await pilot.press("h")
        await until(pilot, lambda: screen.last_hint is not None, "the hint", COLD)
        names = [f"{p.seat + 1} {p.name}:" for p in app.view.players]
        seen = set()
        for _ in names:  # a page at least a line long: as many pages as seats at most
            await until(pilot, lambda: "Enter plays it" in widget_text(pilot, "#preview-title"))
            title = widget_text(pilot, "#preview-title")
            box = screen.query_one("#preview-box").region
            shown = "\n".join(screen_text(pilot).splitlines()[box.y : box.bottom])
            seen |= {name for name in names if name in shown}
            if "PgDn" not in title:
                break
            await pilot.press("pagedown")
            await until(pilot, lambda t=title: widget_text(pilot, "#preview-title") != t)
        assert seen == set(names)
