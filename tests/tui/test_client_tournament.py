"""The tournament screen against a real server: the lobby says a tournament is open, the
screen lists it and Enter registers in it (no id read out), the director seats us when the
night starts, we play the game out and hear who is first, and the status says how it
stands; create a tournament with its form (a bad field and a wrong password refused; its
creator plays unless they say not) and start it."""

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
        await shown(pilot, LobbyScreen, "Tournament open: Night (registering, 0 players): t")
        await pilot.press("t")
        await shown(pilot, TournamentScreen, "Tournaments on this server", "Enter registers")
        assert f"Night {tournament} registering 0 1 3" in widget_text(pilot, "#tournament-open")
        await pilot.press("enter")  # on the one listed: no id read out loud (issue 29 §5)
        await shown(pilot, TournamentScreen, "Registered: Night.", f"Night ({tournament})")
        assert "Raven" in widget_text(pilot, "#tournament-standings")
        assert "Registering: 1 player so far" in widget_text(pilot, "#tournament-status")
        assert "Points by place: 1st 2, 2nd 1, 3rd 0 (ties share" in widget_text(
            pilot, "#tournament-legend"
        )
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
        # back in the lobby the screen shows the standings, the winner first, and the status
        # says it is over (not the round seated long ago)
        app.switch_mode("lobby")
        await shown(pilot, TournamentScreen, "over after 1 round")
        shown_rows = widget_text(pilot, "#tournament-standings")
        places = [shown_rows.index(f"{i} {row.name} ") for i, row in enumerate(over.standings, 1)]
        assert places == sorted(places)
        leader = over.standings[0].name
        assert f"Over after 1 round: {leader} is first." in widget_text(pilot, "#tournament-status")
        # the round's tables name their players by the standings' key, with their places
        first = next(t for t in over.tables if leader in t.players)
        assert f"{leader} (1st)" in widget_text(pilot, "#tournament-tables")
        assert first.keys == tuple(
            next(r.player for r in over.standings if r.name == name) for name in first.players
        )
        # Enter on the round's other table watches it
        other = next(i for i, t in enumerate(over.tables) if "Raven" not in t.players)
        await pilot.press(*["down"] * other, "enter")
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
        await shown(pilot, TournamentScreen, "No tournament is open on this server: n makes one")
        await pilot.press("n")  # the key the footer shows does what it says (issue 29 §5)
        await shown(pilot, NewTournamentScreen, "New tournament", "Host's password")
        fields = app.screen.query("Input, Select, #new-tournament-error")
        assert all(f.region.bottom < 23 for f in fields)  # above the footer at 80x24
        # name, rounds, seats: a table of six is no tournament's
        await pilot.press("ctrl+u", *"Big Night", "tab", "ctrl+u", "2", "tab", "ctrl+u", "6")
        await pilot.press("enter")
        error = widget_text(pilot, "#new-tournament-error")
        assert "seats" in error, error
        assert isinstance(app.screen, NewTournamentScreen)
        await pilot.press("backspace", "3", "tab")  # whether we play: only run it
        await pilot.press("enter", "down", "enter")
        assert app.screen.query_one("#play", Select).value == "no"
        await pilot.press("tab", "tab")  # past how the bots play: the deals
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
        assert (made.phase, made.players) == ("registering", ())  # its creator only runs it
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
        await until(pilot, lambda: app.tournament.phase != "registering", "the first round")
        # the players' quick moves play both rounds out: each was a table with one bot
        await until(pilot, lambda: app.tournament.phase == "over", "the night's end")
        over = app.tournament
        assert over.round == 2
        [table] = over.tables
        assert (sorted(table.players), table.bots) == (["Lenore", "Vlad"], 1)
        assert {row.name: row.games for row in over.standings} == {"Lenore": 2, "Vlad": 2}
        await shown(pilot, TournamentScreen, "Big Night", "over after 2 rounds")
        await until(
            pilot, lambda: "Over after 2 rounds" in widget_text(pilot, "#tournament-status")
        )
    for player in players:
        player.task.cancel()
    await close_all(*(p.client for p in players))


async def test_the_creator_plays_in_the_tournament_they_make_unless_they_say_not(
    night_server, store
):
    url = f"ws://127.0.0.1:{night_server.port}"
    app = client(night_server, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, LobbyScreen, "Tournament")
        await pilot.press("t")
        await shown(pilot, TournamentScreen, "No tournament is open")
        await pilot.press("n")
        await shown(pilot, NewTournamentScreen, "You play")
        assert app.screen.query_one("#play", Select).value == "yes"  # asked, yes at first
        app.screen.query_one("#password", Input).focus()
        await pilot.press(*LEAVE, "enter")
        await shown(pilot, TournamentScreen, "Created: Tournament night.", "1 player so far")
        made = app.tournament
        assert isinstance(made, sm.Tournament) and made.players == ("Raven",)
        assert "Raven" in widget_text(pilot, "#tournament-standings")
        # another player's lobby lists it: one player registered
        other = await Client.connect(url, "Lenore")
        listed = await other.request("list")
        assert [(t["id"], t["players"]) for t in listed["tournaments"]] == [(made.id, 1)]
        await other.close()
