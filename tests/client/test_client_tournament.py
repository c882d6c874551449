"""The tournament screen against a real server: open it from the lobby, register by id, be
seated by the director when the night starts, play the game out, and hear who is first."""

from __future__ import annotations

import pytest

from gother_tui.screens.lobby import LobbyScreen
from gother_tui.screens.tournament import TournamentScreen
from protocol import server_messages as sm
from server.app import GotherServer, ServerConfig
from tests.client.clientkit import notices, shown, until, widget_text
from tests.client.test_client_live import Answers, client, my_decision_or_over, play_one_decision
from tests.server.netkit import Client, close_all
from tests.server.tournamentkit import LEAVE, SHORT, Player


@pytest.fixture
async def night_server(tmp_path):  # a host that allows tournaments, on a free port
    server = GotherServer(
        ServerConfig(
            host="127.0.0.1",
            port=0,
            db=str(tmp_path / "games.db"),
            bot_delay=0.0,
            tournament_password=LEAVE,
        )
    )
    await server.start()
    yield server
    await server.close()


async def test_register_on_the_tournament_screen_and_play_the_round(night_server, store):
    url = f"ws://127.0.0.1:{night_server.port}"
    host = await Client.connect(url, "Host")
    made = await host.request(
        "tournament_create", name="Night", rounds=1, seats=3, variants=SHORT, password=LEAVE
    )
    tournament = made["id"]
    app = client(night_server, store)
    answers = Answers()
    async with app.run_test(size=(80, 24), message_hook=answers) as pilot:
        await shown(pilot, LobbyScreen, "Tournament")
        await pilot.press("t")
        await shown(pilot, TournamentScreen, "No tournament yet")
        await pilot.press("enter")  # no id typed: nothing is sent
        assert "Type the tournament's id first" in widget_text(pilot, "#tournament-status")
        await pilot.press(*"nope", "enter")
        await until(
            pilot, lambda: "no tournament 'nope'" in widget_text(pilot, "#tournament-status")
        )
        await pilot.press(*["backspace"] * 4, *tournament, "enter")
        await shown(pilot, TournamentScreen, "Registered: Night.", f"Night ({tournament})")
        assert "Raven" in widget_text(pilot, "#tournament-standings")
        players = []
        for name in ("Lenore", "Vlad", "Siouxsie"):  # four in all: two tables of three
            player = Player(await Client.connect(url, name))
            players.append(player)
            await player.client.request("tournament_join", tournament=tournament)
        await until(pilot, lambda: "Siouxsie" in widget_text(pilot, "#tournament-standings"))
        started = await host.request("tournament_start", tournament=tournament)
        assert started["t"] == "tournament", started
        # the director seats us: the client goes to the table as for any `joined`
        await until(pilot, lambda: app.current_mode == "table" and app.view, "the table")
        assert app.view.table.name in ("Night r1 t1", "Night r1 t2")
        while await my_decision_or_over(pilot):
            await play_one_decision(pilot, answers)
        await until(pilot, lambda: any("Night is over" in n for n in notices(pilot)), "the news")
        over = app.tournament
        assert isinstance(over, sm.Tournament) and over.phase == "over"
        assert {row.name for row in over.standings} == {"Raven", "Lenore", "Vlad", "Siouxsie"}
        # back in the lobby the screen shows the standings, the winner first
        app.switch_mode("lobby")
        await shown(pilot, TournamentScreen, "over after 1 round")
        shown_rows = widget_text(pilot, "#tournament-standings")
        places = [shown_rows.index(f"{i} {row.name} ") for i, row in enumerate(over.standings, 1)]
        assert places == sorted(places)
        # Enter on the round's other table watches it
        other = next(i for i, t in enumerate(over.tables) if "Raven" not in t.players)
        await pilot.press("tab", *["down"] * other, "enter")
        await until(pilot, lambda: app.current_mode == "table" and app.view.you is None, "watching")
        assert app.view.table.id == over.tables[other].table
    for player in players:
        player.task.cancel()
    await close_all(host, *(p.client for p in players))
