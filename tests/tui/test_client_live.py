"""The client against a real server on 127.0.0.1 (a free port, the test's own loop): sit
down through the lobby, play with the hint key and Enter, watch, survive a restart."""

from __future__ import annotations

from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot

from gother_tui.core.options import ClientOptions
from gother_tui.core.transport import WebSocketTransport
from gother_tui.tui import messages as msg
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens import table as table_screen
from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.create_table import CreateTableScreen
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.story import StoryScreen
from gother_tui.tui.screens.table import TableScreen
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import Variants
from server.edge.app import GotherServer, ServerConfig
from server.tables import hint
from tests.tables.test_hints import COLD
from tests.tui.clientkit import shown, until, widget_text

PRESENCE = frozenset({"gap", "joined", "left", "away", "back", "covered"})  # not events


def client(server: GotherServer, store, **options: Any) -> GotherApp:
    settings: dict[str, Any] = {
        "url": f"ws://127.0.0.1:{server.port}",
        "name": "Raven",
        "first_retry": 0.05,
        "max_retry": 0.2,
        **options,
    }
    return GotherApp(ClientOptions(**settings), seat_store=store)


async def create_through_the_lobby(pilot: Pilot, *keys: str) -> None:
    """Open the new-table form, type `keys` into it, submit, and wait for the table."""
    app = pilot.app
    await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
    await pilot.press(*keys, "enter")
    await until(pilot, lambda: app.view and app.view.phase != "lobby", "the deal")


class Answers(list[msg.Answered]):
    """A message hook keeping every answer the app's screens were given."""

    def __call__(self, message: Message) -> None:
        if isinstance(message, msg.Answered):
            self.append(message)

    def to(self, kind: type[Request]) -> list[msg.Answered]:
        return [a for a in self if isinstance(a.asked, kind)]


async def play_one_decision(pilot: Pilot, answers: Answers) -> None:
    """Ask for a hint, check it is filled in, send it with Enter, and wait for the state
    that answers the move."""
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, TableScreen)
    screen.last_hint = None
    moved = len(answers.to(rq.Play))
    await pilot.press("h")
    await until(pilot, lambda: screen.last_hint is not None, "the hint", COLD)
    assert screen.plan is not None and screen.plan.move() == screen.last_hint
    await pilot.press("enter")
    await until(pilot, lambda: len(answers.to(rq.Play)) > moved, "the move's state")
    assert isinstance(answers.to(rq.Play)[-1].reply, sm.State)


async def my_decision_or_over(pilot: Pilot) -> bool:
    """Wait until the game asks this seat something (True) or is over (False)."""
    app = pilot.app
    await until(pilot, lambda: app.view.legal or app.view.phase == "over", "a decision")
    return app.view.phase != "over"


@pytest.mark.slow
async def test_sit_at_a_three_bot_table_from_the_lobby_and_play_turns(live_server, store):
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await create_through_the_lobby(pilot)  # the defaults: 4 seats, 3 bots
        view = app.view
        assert [p.bot for p in view.players] == [False, True, True, True]
        assert view.seat == 0 and len(view.hand) == 5
        decisions = 0
        while await my_decision_or_over(pilot) and app.view.round < 3:
            await play_one_decision(pilot, answers)
            decisions += 1
        assert app.view.round >= 3 or app.view.phase == "over"
        assert decisions >= 4  # two turns: at least a distribution and a draw each
        names = widget_text(pilot, "#players")
        assert all(bot in names for bot in ("Morticia", "Vlad", "Lenore"))


@pytest.mark.slow
async def test_a_whole_short_game_to_the_end(live_server, store):
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        # 3 seats, 2 bots (how they play and aim, fate discard, over the limit, length: as they
        # are), round cap 2
        keys = ("tab", "backspace", "3", "tab", "backspace", "2", *["tab"] * 6)
        await create_through_the_lobby(pilot, *keys, "backspace", "backspace", "backspace", "2")
        assert app.view.round_cap == 2
        while await my_decision_or_over(pilot):
            await play_one_decision(pilot, answers)
        assert app.view.winner
        await shown(pilot, GameOverScreen, "WINNER", "Goth Points by round")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the final table")
        assert "game over" in widget_text(pilot, "#status")
        assert "Game over" in widget_text(pilot, "#log")


async def test_watch_a_bots_only_table(live_server, store):
    request = rq.Create(name="Bot Crypt", seats=3, bots=3, variants=Variants(round_cap=3))
    table = live_server.lobby.create(request)
    table.start_if_full()  # bots only: it plays at once, for spectators
    app = client(live_server, store, name="Crow", watch=True, table=table.id)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view and app.current_mode == "table", "the table")
        assert app.view.you is None and app.seat is None
        table_screen = app.get_screen_stack("table")[0]
        # the left column shows every player's piles, not a hand (the game may be over)
        assert table_screen.query_one("#spectating").display
        assert not table_screen.query_one("#cards").display
        # the whole panel, its footer included ("Esc Table"), before looking for Rematch
        text = await shown(pilot, GameOverScreen, "WINNER", "Table")
        assert "Rematch" not in text  # a spectator cannot ask for one
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the final table")
        assert "watching" in widget_text(pilot, "#status")
        assert store.find(f"ws://127.0.0.1:{live_server.port}") is None  # no seat, no token


@pytest.mark.slow
async def test_a_server_restart_resumes_the_same_seat(tmp_path, store):
    db = str(tmp_path / "games.db")
    first = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=db, bot_delay=0.0))
    await first.start()
    port = first.port
    app = client(first, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await create_through_the_lobby(pilot)
        seat, table = app.seat, app.table_id
        hand = app.view.hand
        await first.close()
        await until(pilot, lambda: app.link == "offline", "the loss")
        assert app.screen.has_class("-offline") and app.view.hand == hand
        second = GotherServer(ServerConfig(host="127.0.0.1", port=port, db=db, bot_delay=0.0))
        await second.start()
        try:
            await until(pilot, lambda: app.link == "online" and app.view.legal, "the resume")
            assert (app.seat, app.table_id) == (seat, table)
            assert app.view.hand == hand
            assert store.find(f"ws://127.0.0.1:{port}") is not None
            await play_one_decision(pilot, answers)
        finally:
            await second.close()


async def test_p_votes_to_pause_and_again_goes_on_and_e_ends_the_game(live_server, store):
    """Issue 13's votes from the table's keys: alone with bots, one player's vote is every
    human's, so P pauses the game at once (and P again goes on), and E, once confirmed,
    ends it unfinished: the table is closed and the client is back in the lobby."""
    app = client(live_server, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await create_through_the_lobby(pilot)
        await pilot.press("P")
        await until(pilot, lambda: app.view.table.paused, "the pause")
        await until(pilot, lambda: "paused" in widget_text(pilot, "#notice").lower(), "its notice")
        await pilot.press("P")
        await until(pilot, lambda: not app.view.table.paused, "the game going on")
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby, the table closed")
        assert not live_server.lobby.tables  # closed for everyone, not only left


async def test_chat_and_the_deciding_end_vote_are_answered_to_the_table_that_asked(
    live_server, store
):
    """The sender's own copy of its chat line and the `closed` of the vote that ended the
    game carry the request's rid: each is the answer the table screen was waiting for."""
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await create_through_the_lobby(pilot)
        await pilot.press("c", *"evening", "enter")
        await until(pilot, lambda: answers.to(rq.Chat), "the chat's answer")
        (chat,) = answers.to(rq.Chat)
        assert isinstance(chat.reply, sm.Chat) and chat.reply.text == "evening"
        assert chat.reply.rid == chat.asked.rid
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await until(pilot, lambda: answers.to(rq.End), "the end vote's answer")
        (end,) = answers.to(rq.End)
        assert isinstance(end.reply, sm.Closed) and end.reply.rid == end.asked.rid


@pytest.mark.slow
async def test_coming_back_holds_the_whole_story_of_the_game(live_server, store):
    """The seat's story from the server (`story`): the log from the deal, nothing missed."""
    app = client(live_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await create_through_the_lobby(pilot)
        while await my_decision_or_over(pilot) and app.view.round < 3:
            await play_one_decision(pilot, answers)
    back = client(live_server, store)  # the same player, the same seat store: a resume
    async with back.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: back.view and back.view.legal, "the seat again")
        view, chronicle = back.view, back.chronicle
        assert view.log_start > 0  # the state alone no longer holds the deal
        told = [line for line in chronicle.lines if line.kind not in PRESENCE]
        assert chronicle.missed == 0 and len(told) == view.log_start + len(view.log)
        assert told[0].text == "Round 1: your turn."
        await pilot.press("l")
        text = await shown(pilot, StoryScreen, "The whole game")
        assert "away" not in text.splitlines()[0] and "not seen here" not in text


class Refusals(list[msg.Refused]):
    """A message hook keeping every refusal the app's screens were given, and the text of
    every toast the app put up."""

    def __init__(self) -> None:
        super().__init__()
        self.toasts: list[str] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, msg.Refused):
            self.append(message)
        elif isinstance(message, Notify):
            self.toasts.append(message.notification.message)


THINKING_LINE = "The hint: thinking"


async def test_a_hint_still_being_thought_is_asked_again_until_it_comes(
    live_server, store, monkeypatch
):
    """Issue 30 §1: past its patience (here at once) the server answers `thinking` and
    thinks on; the table asks again by itself, about every second, until the hint comes,
    which takes the place of the panel's "thinking" line."""
    monkeypatch.setattr(hint, "PATIENCE", 0.0)
    app = client(live_server, store)
    refused = Refusals()
    async with app.run_test(size=(80, 24), message_hook=refused) as pilot:
        await create_through_the_lobby(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        await until(pilot, lambda: app.view.legal and app.view.phase == "distribute", "a deal")
        await pilot.press("h")
        await until(pilot, lambda: screen.last_hint is not None, "the hint", COLD)
        thinking = [r for r in refused if r.error.code == "thinking"]
        assert thinking and all(isinstance(r.asked, rq.Hint) for r in thinking)
        assert screen.plan is not None and screen.plan.move() == screen.last_hint
        await pilot.pause()
        preview = widget_text(pilot, "#preview")
        assert THINKING_LINE not in preview and "Why:" in preview


async def test_a_hint_being_thought_is_said_in_the_action_panel_not_over_the_log(
    live_server, store, monkeypatch
):
    """Issue 30 §1: `thinking` is shown where the hint will appear, never as a toast (one
    lay over the log and hid the chat line a player had just sent). The table's next ask
    is held off here, so the line stays while the test looks."""
    monkeypatch.setattr(hint, "PATIENCE", 0.0)
    monkeypatch.setattr(table_screen, "ASK_AGAIN", 3600.0)
    sent: list[Request] = []

    class Recorded(WebSocketTransport):
        """The real connection, each request it sends kept."""

        async def send(self, request: Request) -> None:
            sent.append(request)
            await super().send(request)

    app = GotherApp(client(live_server, store).options, Recorded, store)
    refused = Refusals()
    async with app.run_test(size=(80, 24), message_hook=refused) as pilot:
        await create_through_the_lobby(pilot)
        await until(pilot, lambda: app.view.legal and app.view.phase == "distribute", "a deal")
        assert THINKING_LINE not in widget_text(pilot, "#preview")
        await pilot.press("h")
        await until(pilot, lambda: refused, "the hint's answer", COLD)
        assert [r.error.code for r in refused] == ["thinking"]
        await until(pilot, lambda: THINKING_LINE in widget_text(pilot, "#preview"), "the line")
        assert not [t for t in refused.toasts if "thinking" in t]  # nothing over the log
        await pilot.press("h")  # again, while it thinks: nothing more is asked
        await pilot.pause()
        assert [type(request) for request in sent].count(rq.Hint) == 1
