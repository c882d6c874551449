"""The lobby's standings against a real server: the host's players under the tables, with
their ratings on the one scale with what the marks mean, and a lobby that does without them when an
older server does not know the request."""

from __future__ import annotations

from textual.message import Message

from gother_tui.core.options import ClientOptions
from gother_tui.tui import messages as msg
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.widgets.standings import StandingsPanel
from protocol import requests as rq
from protocol import server_messages as sm
from tests.kits.standingskit import finished_game
from tests.tui.clientkit import shown, until, widget_text
from tests.tui.test_client_live import Answers


async def test_the_lobby_shows_the_hosts_standings_under_the_tables(live_server, store):
    url = f"ws://127.0.0.1:{live_server.port}"
    await finished_game(url, "Ann")
    app = GotherApp(ClientOptions(url=url, name="Raven"), seat_store=store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await shown(pilot, LobbyScreen, "Ann's", "Standings:")
        await until(pilot, lambda: answers.to(rq.Standings), "the standings' answer")
        reply = answers.to(rq.Standings)[-1].reply
        assert isinstance(reply, sm.Standings) and reply.total == 2
        # the answer comes before the panel draws its rows: wait for them, not for the legend
        await until(pilot, lambda: "Ann " in widget_text(pilot, "#standings"), "the rows drawn")
        text = widget_text(pilot, "#standings")
        assert "easy bot 1350 = 2" in text  # two easy bots sat at Ann's table
        ann = next(row for row in reply.rows if row.name == "Ann")
        assert f"Ann {ann.rating} ±{ann.spread} 1 {ann.wins}" in text  # the one scale
        assert "Ratings start at 1500, the normal bot's; ±: how far off" in text
        assert "Places: how many games finished 1st/2nd/3rd…" in text
        assert app.focused is not None and app.focused.id == "tables"  # the keys stay there


async def test_a_server_without_standings_leaves_the_lobby_without_them(make_app, fake):
    fake.handlers["standings"] = lambda m: [
        {"t": "error", "rid": m["rid"], "code": "bad_message", "message": "unknown type"}
    ]
    app = make_app()
    refused: list[msg.Refused] = []
    answers = Answers()

    def hook(message: Message) -> None:
        answers(message)
        if isinstance(message, msg.Refused):
            refused.append(message)

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await shown(pilot, LobbyScreen, "No tables yet")
        await until(pilot, lambda: refused, "the refusal")
        assert not app.screen.query_one(StandingsPanel).display
        assert "unknown type" not in widget_text(pilot, "#lobby-status")
        await pilot.press("r")  # the tables again, but no more asking for standings
        await until(pilot, lambda: len(answers.to(rq.List)) >= 2, "the second list's answer")
        await pilot.pause()  # the lobby has handled it
        assert len(fake.conn.requests("standings")) == 1
