"""A player the SSH door knows by the token it has just given them (`--door-token-file`,
issue 29): the client shows the token, with how to come back, on its first screen (the
lobby), in its help and at the game's end; a refusal to their old table says what to do.
A client the door gave no token says none of it. (Through a real door and ssh client:
tests/doors/test_ssh_person.py, tests/e2e/test_comes_back.py.)"""

from __future__ import annotations

import pytest

from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.help import HelpScreen
from tests.tui.clientkit import lobby_tables, reply, shown, until, widget_text
from tests.tui.test_client_screens import listing
from tests.tui.viewkit import joined, played_views, state

TOKEN = "Xq3_kept-by-the-door_Z9w"  # 24 characters, as the door makes them
HOW = f"ssh -o SetEnv=GOTHER_SSH_TOKEN={TOKEN} and the rest of your command"
STARTED = "the game has started: watch it, or join another table"


@pytest.mark.parametrize("token", [TOKEN, None], ids=["token", "no-token"])
async def test_the_lobby_and_help_show_the_token_and_a_refusal_says_how_to_come_back(
    make_app, fake, token
):
    fake.tables = [listing(phase="distribute", started=True, seated=4, free=0)]
    fake.handlers["join"] = lambda m: [reply(m, "error", code="already_started", message=STARTED)]
    app = make_app(door_token=token)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: lobby_tables(app), "the lobby's tables")
        door = app.screen.query_one("#lobby-door")
        assert door.display == (token is not None)
        if token is not None:
            said = widget_text(pilot, "#lobby-door")
            assert said.startswith(
                f"Your ssh client offered no key, so this door knows you by a token: {TOKEN}."
            )
            assert HOW in said
        await pilot.press("enter")  # the old table: started without them
        await until(pilot, lambda: STARTED in widget_text(pilot, "#lobby-status"), "the refusal")
        status = widget_text(pilot, "#lobby-status")
        kept = "If it was yours: your seat and your name are kept for the key or token you first"
        assert (kept in status) == (token is not None), status
        if token is not None:
            assert "SetEnv=GOTHER_SSH_TOKEN=TOKEN, TOKEN being the one the door gave you" in status
        await pilot.press("question_mark")
        text = await shown(pilot, HelpScreen, "Help: keys and rules")
        assert ("Coming back" in text) == (token is not None)
        assert (TOKEN in text) == (token is not None)


async def test_the_game_over_panel_shows_the_token_for_the_rematch(make_app, fake):
    views = played_views()
    fake.handlers["join"] = lambda m: (
        [joined(m.get("rid"))] + [state(i + 1, v) for i, v in enumerate(views)]
    )
    app = make_app(table="t1", door_token=TOKEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "Goth Points by round")
        said = widget_text(pilot, "#over-door")
        assert f"knows you by a token: {TOKEN}." in said and HOW in said
