"""A server with a password, met by the full-screen client without one (as `gother join
URL` from the command line or the start menu): the password is asked in a dialog, typed
masked, and called wrong, with the wait the server imposes, when it is wrong; Esc goes
back to a screen that offers it again (p) as well as Quit. Against a real server on
127.0.0.1, its guesses timed by a clock moved by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from gother_tui.core.options import ClientOptions
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.connecting import ConnectingScreen
from gother_tui.tui.screens.password import PasswordScreen
from server.edge.app import GotherServer, ServerConfig
from server.edge.attempts import Guessing
from tests.edge.test_guessing import FakeClock
from tests.tui.clientkit import screen_text, shown, until, widget_text

SECRET = "crypt-7"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def guarded(tmp_path, clock) -> AsyncIterator[GotherServer]:
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        db=str(tmp_path / "games.db"),
        password=SECRET,
        guessing=Guessing(clock=clock),
    )
    server = GotherServer(config)
    await server.start()
    yield server
    await server.close()


def client(server: GotherServer, store, **options: Any) -> GotherApp:
    settings: dict[str, Any] = {
        "url": f"ws://127.0.0.1:{server.port}",
        "name": "Raven",
        "first_retry": 0.05,
        "max_retry": 0.2,
        **options,
    }
    return GotherApp(ClientOptions(**settings), seat_store=store)


async def type_password(pilot: Pilot, note: str, password: str) -> None:
    """Wait for the dialog saying `note`, type `password` into it and press Enter."""
    await shown(pilot, PasswordScreen, note)
    field = pilot.app.screen.query_one("#password", Input)
    assert field.password  # typed masked
    await pilot.press(*password, "enter")


async def test_the_password_is_asked_called_wrong_with_its_wait_and_then_opens(
    guarded, store, clock
):
    app = client(guarded, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_password(pilot, "This server needs a password.", "guess-1")
        await type_password(pilot, "Wrong password.", "guess-2")  # the second free one
        clock.now += 1.0  # the wait is over
        await type_password(pilot, "Wrong password: try again in 1 s.", SECRET)
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")


async def test_a_wait_not_yet_over_says_so_and_the_password_is_asked_again(guarded, store):
    app = client(guarded, store, password="guess-0")  # --password, wrong: the first free one
    async with app.run_test(size=(80, 24)) as pilot:
        await type_password(pilot, "Wrong password.", "guess-1")
        await type_password(pilot, "Wrong password.", "guess-2")
        await type_password(pilot, "Wrong password: try again in 1 s.", SECRET)  # too soon
        await until(
            pilot,
            lambda: isinstance(app.screen, PasswordScreen) and "Too many" in screen_text(pilot),
            "the dialog again",
        )
        assert widget_text(pilot, "#password-note") == (
            "Too many wrong passwords from your address: try again in 1 s."
        )


async def test_esc_goes_back_to_a_screen_offering_the_password_again_not_only_quit(guarded, store):
    app = client(guarded, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, PasswordScreen, "This server needs a password.")
        await pilot.press("escape")
        await shown(pilot, ConnectingScreen, "This server needs a password.")
        await until(pilot, lambda: "Password" in widget_text(pilot, "KeyBar"), "the p key")
        footer = widget_text(pilot, "KeyBar")
        assert "p Password" in footer and "Quit" in footer
        await pilot.press("p")
        await type_password(pilot, "This server needs a password.", SECRET)
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")


async def test_a_password_given_on_the_command_line_is_never_asked(guarded, store):
    app = client(guarded, store, password=SECRET)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        assert not isinstance(app.screen, PasswordScreen)
