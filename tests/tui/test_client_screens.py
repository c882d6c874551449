"""Every screen at 80x24: connecting, lobby (list, create, join, watch, errors), table,
help, the pile viewers, too small; spectators; untrusted text shown literally."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from gother_tui.tui.screens.create_table import CreateTableScreen
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.help import HelpScreen
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.screens.table import TableScreen
from gother_tui.tui.screens.too_small import TooSmallScreen
from gother_tui.tui.screens.viewer import TextViewer
from protocol import validate_request
from protocol.constants import DEFAULT_ROUND_CAP, DEFAULT_TRAITS, NAME_MAX, SHORT_ROUND_CAP
from protocol.lengths import how_long
from protocol.view import Variants
from tests.tui.clientkit import (
    at_table,
    lobby_tables,
    notices,
    reply,
    screen_text,
    shown,
    until,
    widget_text,
)
from tests.tui.viewkit import (
    CATALOGUE,
    TABLE,
    distribute_game,
    draw_game,
    join_with,
    lobby_view,
    spectator_view,
    state,
    wire_view,
)

MARKUP = "[bold]x[/]"  # must show as typed, never as bold "x"


def listing(**overrides: Any) -> dict[str, Any]:
    row = {
        "id": "ab12",
        "name": "The Crypt",
        "seats": 4,
        "seated": 2,
        "free": 2,
        "bots": 1,
        "players": ["Morticia", "Lenore", None, None],
        "phase": "lobby",
        "started": False,
        "spectators": 3,
        "password": False,
        "variants": Variants().to_wire(),
        "deck": "original",
    }
    return {**row, **overrides}


async def test_connecting_says_where_and_why_it_keeps_trying(make_app, fake):
    fake.refusals = 10**6
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link_detail, "a failed attempt")
        text = screen_text(pilot)
        assert "Connecting to ws://fake.invalid:8765 as Raven" in text
        assert "connection refused; retrying in" in text
        assert app.current_mode == "connecting"


async def test_the_lobby_lists_tables_with_names_shown_literally(make_app, fake):
    fake.tables = [
        listing(),
        listing(
            id="cd34", name=MARKUP, phase="draw", started=True, seated=4, password=True, bot="hard"
        ),
    ]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 2, "the table list")
        await pilot.pause()
        text = screen_text(pilot)
        assert "Table" in text and "Watching" in text
        first = next(line for line in text.splitlines() if "ab12" in line).split()
        assert first == ["ab12", "The", "Crypt", "2/4", "1", "waiting", "3"]  # an older server
        second = next(line for line in text.splitlines() if "cd34" in line).split()
        assert second == ["cd34", MARKUP, "4/4", "1", "hard", "playing", "3", "yes"]  # its bots


async def test_the_lobby_says_the_chosen_tables_bots_and_how_long_it_runs(make_app, fake):
    lasts = "usually 5 to 10 rounds; about one game in 12 runs past 14"
    fake.tables = [
        listing(bots=2, bot="hard", trait="steady", lasts=lasts),
        listing(id="cd34", name="Old Crypt"),  # an older server: neither trait nor length
        listing(id="ef56", name="Short Crypt", variants=Variants(round_cap=20).to_wire()),
    ]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 3, "the table list")
        said = "The Crypt: 2 hard bots, steady (each plays its own game). Length: " + lasts + "."
        await until(pilot, lambda: widget_text(pilot, "#lobby-table") == said, "the first")
        await pilot.press("down")
        await until(pilot, lambda: widget_text(pilot, "#lobby-table") == "Old Crypt.", "older")
        await pilot.press("down")
        short = "Short Crypt. Round cap: 20."
        await until(pilot, lambda: widget_text(pilot, "#lobby-table") == short, "its cap")


async def test_the_lobby_says_every_house_rule_the_chosen_table_plays(make_app, fake):
    """Issue 33 §4's rules, every one that is not the published game's, not the cap alone."""
    rules = Variants(fate_discard="top", overflow="immediate", round_cap=None)
    fake.tables = [listing(name="House Crypt", variants=rules.to_wire())]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 1, "the table list")
        said = (
            "House Crypt. Fate discard: the top card only. Over the limit: immediately, any"
            " turn. No round cap."
        )
        await until(pilot, lambda: widget_text(pilot, "#lobby-table") == said, "its rules")
        # the row counts them, whole at 80 columns; the line above says each
        row = next(line for line in screen_text(pilot).splitlines() if "ab12" in line)
        assert row.split()[-2:] == ["3", "rules"]


async def test_a_lobby_row_stays_whole_at_80_columns(make_app, fake):
    """The longest row a table makes (a name of NAME_MAX, bots by name, a password, every
    house rule) fits in 80 columns: its name cut, its rules counted; the line on the chosen
    table says both in full."""
    several = Variants(fate_discard="top", overflow="immediate", round_cap=None, two_or_six=True)
    long_name = "A Crypt Named At Length!"
    assert len(long_name) == NAME_MAX
    fake.tables = [
        listing(name="Cap Crypt", variants=Variants(round_cap=None).to_wire()),
        listing(
            id="cd34",
            name=long_name,
            seats=6,
            bots=5,
            bot="normal",
            phase="draw",
            started=True,
            spectators=100,
            password=True,
            variants=several.to_wire(),
        ),
    ]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 2, "the table list")
        await pilot.pause()
        lines = screen_text(pilot).splitlines()
        assert next(line for line in lines if "Table" in line).split()[-1] == "Rules"
        one = next(line for line in lines if "ab12" in line)
        assert one.split()[-2:] == ["1", "rule"]
        many = next(line for line in lines if "cd34" in line)
        assert many.split()[-3:] == ["yes", "4", "rules"]
        assert "A Crypt Named A…" in many
        await pilot.press("down")
        said = (
            f"{long_name}: 5 normal bots. Fate discard: the top card only. Over the limit:"
            " immediately, any turn. No round cap. Allow 2 or 6 players."
        )
        await until(pilot, lambda: widget_text(pilot, "#lobby-table") == said, "in full")


async def test_create_a_table_by_keyboard_then_join_it(make_app, fake):
    fake.handlers["create"] = lambda m: [reply(m, "created", table="new1")]
    fake.handlers["join"] = join_with(lobby_view())
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
        await pilot.press("tab", "backspace", "3")  # seats 3
        await pilot.press("tab", "backspace", "2")  # bots 2
        # how long such a table runs, from measured games, as the fields change
        normal = f"Length: {how_long(3, 'normal', DEFAULT_TRAITS[3], DEFAULT_ROUND_CAP)}."
        await until(pilot, lambda: widget_text(pilot, "#create-lasts") == normal, "its length")
        await pilot.press("tab", "enter", "down", "enter")  # bots play: hard (after normal)
        await pilot.press("tab", "enter", "down", "down", "enter")  # bots aim: steady
        await pilot.press("tab", "enter", "down", "enter")  # fate discard: top card only
        await pilot.press("tab")  # past "over the limit"
        await pilot.press("tab", "enter", "down", "enter")  # length: the short game (H1)
        await until(pilot, lambda: app.screen.query_one("#cap", Input).value == "20", "cap 20")
        await pilot.press("tab", "tab", *"pw", "enter")
        await until(pilot, lambda: fake.conn.requests("join"), "the join")
        create = fake.conn.last("create")
        del create["rid"]
        assert create == {
            "t": "create",
            "name": "Raven's table",
            "seats": 3,
            "bots": 2,
            "bot": "hard",
            "trait": "steady",
            "variants": {
                "fate_discard": "top",
                "overflow": "draw_step",
                "round_cap": SHORT_ROUND_CAP,
                "two_or_six": False,
            },
            "password": "pw",
        }
        assert fake.conn.last("join")["table"] == "new1"
        assert fake.conn.last("join")["password"] == "pw"
        await at_table(pilot)
        assert "Waiting for players (1 of 3 seats taken)" in widget_text(pilot, "#prompt")
        await pilot.press("s")
        await until(pilot, lambda: fake.conn.requests("start"), "start")


async def test_the_create_form_refuses_bad_numbers_and_sends_nothing(make_app, fake):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
        await pilot.press("tab", "backspace", "7", "enter")
        await pilot.pause()
        assert "create.seats: must be between 2 and 6, got 7" in screen_text(pilot)
        await pilot.press("backspace", "4", "tab", "backspace", "5", "enter")  # 5 bots, 4 seats
        await pilot.pause()
        assert "create.bots: must be at most seats (4), got 5" in screen_text(pilot)
        assert not fake.conn.requests("create")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CreateTableScreen), "cancel")


async def test_join_errors_are_shown_plainly_in_the_lobby(make_app, fake):
    fake.tables = [listing()]
    fake.handlers["join"] = lambda m: [
        reply(m, "error", code="table_full", message="table ab12 has no free seat")
    ]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the table list")
        await pilot.press("enter")
        await until(pilot, lambda: "no free seat" in widget_text(pilot, "#lobby-status"), "why")
        assert "Table full: table ab12 has no free seat" in widget_text(pilot, "#lobby-status")
        assert fake.conn.last("join")["table"] == "ab12"
        await until(pilot, lambda: any("no free seat" in n for n in notices(pilot)), "a notice")


async def test_a_password_table_asks_for_it_before_joining(make_app, fake):
    fake.tables = [listing(password=True)]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the table list")
        await pilot.press("enter")
        await until(pilot, lambda: "Password for The Crypt" in screen_text(pilot), "the prompt")
        await pilot.press(*"s3cret", "enter")
        await until(pilot, lambda: fake.conn.requests("join"), "the join")
        asked_before = [
            m["rid"] for m in fake.conn.sent[: fake.conn.sent.index(fake.conn.last("join"))]
        ]
        assert fake.conn.last("join") == {
            "t": "join",
            "rid": max(asked_before) + 1,  # a fresh one, after the lobby's own requests
            "table": "ab12",
            "password": "s3cret",
        }


async def test_watch_from_the_lobby_shows_the_table_without_hand_or_moves(make_app, fake):
    fake.tables = [listing(phase="distribute", started=True)]
    wire = spectator_view(distribute_game())
    fake.handlers["watch"] = lambda m: [
        reply(m, "watching", table=m["table"], cards=CATALOGUE),
        state(1, wire),
    ]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the table list")
        await pilot.press("w")
        await at_table(pilot)
        assert fake.conn.last("watch")["table"] == "ab12"
        text = screen_text(pilot)
        assert "watching" in widget_text(pilot, "#status")
        assert "Your hand" not in text and "Give" not in text
        assert not app.screen.query_one("#cards").display  # no hand, no card list
        spectating = widget_text(pilot, "#spectating")  # the left column: everyone's piles
        assert "2 Morticia ☥0 ☠0 $0 Fate: empty" in spectating
        await pilot.press("1", "2", "3", "enter", "d", "h")
        await pilot.pause()
        assert not fake.conn.requests("move") and not fake.conn.requests("hint")
        assert "Morticia" in widget_text(pilot, "#players")


async def test_help_opens_with_f1_and_question_mark(make_app, fake):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        for key in ("f1", "question_mark"):
            await pilot.press(key)
            await shown(pilot, HelpScreen, "Help: keys and rules", "give the highlighted card")
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, HelpScreen), "closed")


async def test_the_help_text_carries_the_rules_summary(make_app, fake):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        body = app.screen.query_one("#help-body")
        body.scroll_end(animate=False)
        await pilot.pause()
        text = screen_text(pilot)
        assert "20 or more Goth Points wins" in text or "WHO SEES WHAT" in text


async def test_too_small_says_the_size_needed_and_recovers(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(79, 23)) as pilot:
        await until(pilot, lambda: app.view is not None, "the first state")
        await shown(pilot, TooSmallScreen, "needs at least 80x24", "this terminal is 79x23")
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: not isinstance(app.screen, TooSmallScreen), "recovered")
        await pilot.pause()
        assert "Give each player one card" in widget_text(pilot, "#prompt")
        await pilot.resize_terminal(80, 23)
        await until(pilot, lambda: isinstance(app.screen, TooSmallScreen), "too small again")


async def test_untrusted_names_and_chat_show_literally(make_app, fake):
    names = (MARKUP, "[red]Mort[/red]", "Vlad")
    fake.handlers["join"] = join_with(wire_view(distribute_game(), names=names))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.conn.feed({"t": "chat", "from": "[link=http://x]me[/link]", "text": "[blink]hi[/]"})
        await until(pilot, lambda: app.chat, "the chat line")
        await pilot.pause()
        assert f"1 {MARKUP} (you)" in widget_text(pilot, "#players")
        assert "2 [red]Mort[/red]" in widget_text(pilot, "#players")
        assert "[link=http://x]me[/link]: [blink]hi[/]" in widget_text(pilot, "#chat")


async def test_a_spectators_chat_line_is_marked_as_watching(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game(), names=("Lydia", "B", "C")))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.conn.feed(
            {"t": "chat", "from": "Lydia", "text": "I am Lydia", "watching": True},
            {"t": "chat", "from": "Lydia", "text": "no, I am"},
        )
        await until(pilot, lambda: len(app.chat) == 2, "both chat lines")
        await pilot.pause()
        chat = widget_text(pilot, "#chat")
        assert "Lydia (watching): I am Lydia Lydia: no, I am" in chat  # the lines, joined


async def test_chat_is_typed_after_c_and_escape_returns_to_the_table(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("c", *"d1 gg", "enter")
        await until(pilot, lambda: fake.conn.requests("chat"), "the chat request")
        assert fake.conn.last("chat")["text"] == "d1 gg"
        assert not fake.conn.requests("move")  # the keys went into the chat line
        await pilot.press("escape", "1")
        assert app.screen.plan.assigned  # keys are the table's again


async def test_keys_typed_faster_than_the_screen_updates_go_where_they_were_meant(make_app, fake):
    """Keys batched in one read (fast typing, SSH): after "c" they are chat, after Esc
    they are the table's again."""
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        for key, char in [*((c, c) for c in "chi"), ("space", " "), ("d", "d"), ("h", "h")]:
            app.post_message(events.Key(key, char))
        chat = app.screen.query_one("#chat-input", Input)
        await until(pilot, lambda: chat.value == "hi dh", "the chat line")
        for key, char in (("escape", None), ("1", "1")):
            app.post_message(events.Key(key, char))
        await until(pilot, lambda: app.screen.plan.assigned, "the card given")
        assert chat.value == "hi dh" and not fake.conn.requests("hint")


async def test_the_pile_viewers_show_every_card(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(draw_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert "Discard pile 3, top: Sunburn" in widget_text(pilot, "#piles")
        await pilot.press("x")
        await shown(pilot, TextViewer, "Sunburn", "Club Night", "Consumption Chic")
        await pilot.press("escape", "f")
        await until(pilot, lambda: "Every Fate pile" in screen_text(pilot), "the fate viewer")
        text = screen_text(pilot)
        assert "Student Loan" in text and "Darkwave Mixtape" in text
        await pilot.press("f")  # the same key closes it
        await until(pilot, lambda: not isinstance(app.screen, TextViewer), "closed")
        await pilot.press("l")
        await until(pilot, lambda: "The whole game" in screen_text(pilot), "the log viewer")


async def test_ascii_mode_draws_no_unicode_symbols(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("1")
        text = screen_text(pilot)
        assert "Raven: Goth 14 -> 17, Sickness 4 -> 5: SWOON" in text
        assert "> 1 Raven (you)" in text
        assert "S 4 !" in widget_text(pilot, "#players") and "$ -3 DEBT" in text
        assert text.isascii(), sorted({c for c in text if not c.isascii()})


async def test_game_over_offers_a_rematch(make_app, fake):
    over = wire_view(distribute_game())
    over.update(phase="over", winner=[1], to_act=None, legal=None)
    fake.handlers["join"] = join_with(over)
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over panel")
        await pilot.press("escape")  # back to the final table, where r works too
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert "game over: Morticia won" in widget_text(pilot, "#status")
        await pilot.press("r")
        await until(pilot, lambda: fake.conn.requests("rematch"), "rematch")


async def test_a_spectators_enter_watches_from_the_lobby(make_app, fake):
    fake.tables = [listing()]
    app = make_app(watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the table list")
        await pilot.pause()
        assert "Join" not in widget_text(pilot, "KeyBar")
        await pilot.press("enter")
        await until(pilot, lambda: fake.conn.requests("watch"), "the watch")
        assert not fake.conn.requests("join")


async def test_a_server_that_refuses_the_hello_says_why(make_app, fake):
    fake.handlers["hello"] = lambda m: [
        reply(m, "error", code="bad_version", message="this server speaks protocol v1")
    ]
    app = make_app(password="guess")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "speaks protocol v1" in screen_text(pilot), "the reason")
        assert fake.conn.last("hello")["password"] == "guess"
        assert "The server refused us: this server speaks protocol v1" in screen_text(pilot)
        assert app.current_mode == "connecting"


async def test_a_table_given_on_the_command_line_that_is_gone_lands_in_the_lobby(make_app, fake):
    fake.handlers["join"] = lambda m: [
        reply(m, "error", code="no_such_table", message="there is no table 'zz'")
    ]
    app = make_app(table="zz")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await until(pilot, lambda: "no table 'zz'" in widget_text(pilot, "#lobby-status"), "why")
        assert "No such table" in widget_text(pilot, "#lobby-status")


@pytest.mark.parametrize(("seats", "bots"), [("2", "1"), ("6", "5")])
async def test_the_create_form_offers_the_2_and_6_seat_house_rule(make_app, fake, seats, bots):
    """R2: 2 or 6 seats only as the labelled house rule, which the server accepts; the form
    used to refuse them with its own copy of the 3-5 range."""
    fake.handlers["create"] = lambda m: [reply(m, "created", table="new1")]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
        await pilot.press("tab", "backspace", seats, "tab", "backspace", bots, "enter")
        await until(pilot, lambda: fake.conn.requests("create"), "the create request")
        create = fake.conn.last("create")
        assert (create["seats"], create["bots"]) == (int(seats), int(bots))
        assert create["variants"]["two_or_six"] is True
        assert validate_request(create).to_wire() == create  # as the server will check it


async def test_the_lobby_refreshes_its_list_by_itself(make_app, fake, monkeypatch):
    monkeypatch.setattr(LobbyScreen, "REFRESH_EVERY", 0.05)
    fake.tables = [listing()]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the first list")
        fake.tables = [listing(), listing(id="cd34", name="The Attic")]
        await until(pilot, lambda: len(lobby_tables(app)) == 2, "the list, refreshed")
        assert len(fake.conn.requests("list")) >= 2
        assert "The Attic" in screen_text(pilot)  # no key was pressed


def test_the_rules_in_help_reflow_to_the_width_and_say_what_the_published_rules_say():
    """At 80 columns (76 inside the box) every word of the rules is there, no line is cut;
    the turn's steps are the four the header counts (RULES.md: "four steps"), and cures
    bank."""
    from rich.console import Console

    from gother_tui.core.glyphs import ASCII, UNICODE
    from gother_tui.core.prompts import STEPS
    from gother_tui.tui.screens.help import rules_text, rules_view

    text = rules_text(UNICODE)
    console = Console(width=76, record=True, color_system=None)
    console.print(rules_view(text))
    shown = console.export_text()
    assert all(len(line) <= 76 for line in shown.splitlines())
    assert shown.split() == [w for line in text.splitlines() for w in line.split()]
    steps = re.findall(r"^  (\d)\. ([^.]+)\.", text, re.MULTILINE)
    assert steps == [(str(n), label) for n, label in STEPS.values()]
    assert "four steps" in text
    assert "soaks up Sickness" in text and "☠0 (-3 banked)" in text
    assert "☥" not in rules_text(ASCII) and "S0 (-3 banked)" in rules_text(ASCII)
    # what the standings' marks and a tournament's points mean (issue 29 §4)
    assert "A rating starts at 1500, the normal bot's; ± is how far off" in text
    assert "+/- is how far off" in rules_text(ASCII) and "±" not in rules_text(ASCII)
    assert "1st scores 3, 2nd 2, 3rd 1 and 4th 0" in text and "drop out of scores you" in text
