"""The tournament screen against a real server: open it from the lobby, register by id, be
seated by the director when the night starts, play the game out, and hear who is first;
create a tournament with its form (a bad field and a wrong password refused) and start it."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.screens.new_tournament import NewTournamentScreen
from gother_tui.tui.screens.tournament import TournamentScreen
from protocol import server_messages as sm
from server.edge.app import GotherServer, ServerConfig
from tests.kits.netkit import Client, close_all
from tests.kits.tournamentkit import LEAVE, SHORT, Player
from tests.tui.clientkit import notices, shown, until, widget_text
from tests.tui.test_client_live import Answers, client, my_decision_or_over, play_one_decision

pytestmark = pytest.mark.slow


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


async def test_create_a_tournament_with_the_form_and_start_it(night_server, store):
    url = f"ws://127.0.0.1:{night_server.port}"
    app = client(night_server, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, LobbyScreen, "Tournament")
        await pilot.press("t")
        await shown(pilot, TournamentScreen, "No tournament yet")
        await pilot.press("tab", "n")
        await shown(pilot, NewTournamentScreen, "New tournament", "Host's password")
        fields = app.screen.query("Input, Select, #new-tournament-error")
        assert all(f.region.bottom < 23 for f in fields)  # above the footer at 80x24
        # name, rounds, seats: a table of six is no tournament's
        await pilot.press("ctrl+u", *"Big Night", "tab", "ctrl+u", "2", "tab", "ctrl+u", "6")
        await pilot.press("enter")
        error = widget_text(pilot, "#new-tournament-error")
        assert "seats" in error, error
        assert isinstance(app.screen, NewTournamentScreen)
        await pilot.press("backspace", "3", "tab", "tab")  # past how the bots play: the deals
        await pilot.press("enter", "down", "enter")
        assert app.screen.query_one("#deals", Select).value == "duplicate"
        # past the house rules, the round cap emptied (none), then the password
        await pilot.press("tab", "tab", "tab", "ctrl+u", "tab", *"not-the-leave", "enter")
        await until(
            pilot, lambda: "Wrong password" in widget_text(pilot, "#tournament-status"), "refusal"
        )
        assert night_server.director.tournaments == {}  # a refusal changes nothing
        # the form opens again as it was sent, but for the password
        await pilot.press("n")
        await shown(pilot, NewTournamentScreen, "New tournament")
        assert app.screen.query_one("#name", Input).value == "Big Night"
        assert app.screen.query_one("#deals", Select).value == "duplicate"
        app.screen.query_one("#password", Input).focus()
        await pilot.press(*LEAVE, "enter")
        await shown(pilot, TournamentScreen, "Created", "Big Night")
        made = app.tournament
        assert isinstance(made, sm.Tournament)
        assert (made.name, made.rounds, made.seats, made.duplicate) == ("Big Night", 2, 3, True)
        assert made.variants.round_cap is None
        assert made.phase == "registering"
        [kept] = night_server.director.tournaments.values()
        assert (kept.id, kept.rounds, kept.seats, kept.duplicate) == (made.id, 2, 3, True)
        # two players register; the creator starts it from the screen: a bot fills the table
        players = []
        for name in ("Lenore", "Vlad"):
            joining = await Client.connect(url, name)
            await joining.request("tournament_join", tournament=made.id)
            players.append(Player(joining))  # from here on it plays where it is seated
        await until(pilot, lambda: "Vlad" in widget_text(pilot, "#tournament-standings"))
        await pilot.press("s")
        await shown(pilot, TournamentScreen, "Round 1 is seated")
        # the players' quick moves play both rounds out: each was a table with one bot
        await until(pilot, lambda: app.tournament.phase == "over", "the night's end")
        over = app.tournament
        assert over.round == 2
        [table] = over.tables
        assert (sorted(table.players), table.bots) == (["Lenore", "Vlad"], 1)
        assert {row.name: row.games for row in over.standings} == {"Lenore": 2, "Vlad": 2}
        await shown(pilot, TournamentScreen, "Big Night", "over after 2 rounds")
    for player in players:
        player.task.cancel()
    await close_all(*(p.client for p in players))
