"""The name-first screen (`--ask-name`, what the web door starts): nothing is sent before a
name the server would take is typed; a browser that sat down before goes straight back to
its seat under the name it had."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.name import NameScreen
from tests.tui.clientkit import URL, screen_text, until
from tests.tui.viewkit import TABLE, TOKEN


async def test_no_connection_until_a_name_the_server_takes(make_app, fake):
    app = make_app(ask_name=True, name="Player")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NameScreen), "the name screen")
        assert "Your name at the table" in screen_text(pilot)
        await pilot.press("space", "enter")  # nothing visible: refused here, as in hello
        await until(pilot, lambda: "name" in str(app.screen.query_one("#name-error").content))
        assert fake.connections == []
        await pilot.press(*"Lydia", "enter")
        await until(pilot, lambda: fake.connections and fake.conn.requests("hello"), "hello")
        assert fake.conn.last("hello")["name"] == "Lydia"
        assert app.options.name == "Lydia" and app.flow.options.name == "Lydia"
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await until(pilot, lambda: "Lydia" in screen_text(pilot), "the name in the lobby")


async def test_a_browser_that_sat_down_before_resumes_without_being_asked(make_app, fake, store):
    store.save(URL, TABLE, TOKEN, "Morticia")
    app = make_app(ask_name=True, name="Player")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: fake.connections and fake.conn.requests("resume"), "resume")
        assert not isinstance(app.screen, NameScreen)
        assert fake.conn.last("hello")["name"] == "Morticia"
        assert fake.conn.last("resume")["token"] == TOKEN


def test_the_seat_store_knows_the_name_of_the_latest_seat(store):
    assert store.name(URL) is None
    store.save(URL, "t1", "a" * 32, "Raven")
    store.save(URL, "t2", "b" * 32, "Lenore")
    store.save("ws://elsewhere:1", "t3", "c" * 32, "Vlad")
    assert store.name(URL) == "Lenore"
    store.forget(URL, "t2")
    assert store.name(URL) == "Raven"


@pytest.fixture
def started(monkeypatch) -> list[GotherApp]:
    runs: list[GotherApp] = []
    monkeypatch.setattr(GotherApp, "run", lambda self, **kw: runs.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    return runs


def test_join_takes_ask_name_and_the_password_from_the_environment(started, monkeypatch):
    monkeypatch.setenv("GOTHER_PASSWORD", "from-the-env")
    cli.main(["join", "ws://127.0.0.1:8765", "--ask-name"])
    cli.main(["join", "ws://127.0.0.1:8765", "--password", "given"])
    asked, given = (app.options for app in started)
    assert asked.ask_name and asked.password == "from-the-env"
    assert not given.ask_name and given.password == "given"  # the command line wins


async def test_the_next_run_after_a_replay_proves_the_same_identity(make_app, fake, store):
    """At the web door a replay runs between two runs of the client in one process: the
    next run says hello with the key the first did, so the name its player owns is still
    theirs (the club night of issue 29 §9: "'Dee' belongs to another player" on play-on)."""
    app = make_app(ask_name=True, name="Player")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NameScreen), "the name screen")
        await pilot.press(*"Dee", "enter")
        await until(pilot, lambda: fake.connections and fake.conn.requests("hello"), "hello")
        first = fake.conn.last("hello")
    store.save(URL, TABLE, TOKEN, "Dee")  # she sat down, played, asked the replay
    next_run = replace(app.options, play_on=None)  # as the command line makes it
    again = GotherApp(next_run, transport=fake.transport, seat_store=store)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(fake.connections) == 2 and fake.conn.requests("hello"))
        assert not isinstance(again.screen, NameScreen)  # not asked again
        hello = fake.conn.last("hello")
    assert (hello["name"], hello["key"]) == ("Dee", first["key"])
