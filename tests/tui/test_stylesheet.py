"""The client's CSS (gother_tui/tui/stylesheet.py): parsed in the chosen theme's colours from
the first parse, each source once a process however often Textual re-parses, and not at
all by a client that starts after `parse_ahead` (what a door's zygote does)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import textual.css.stylesheet

from gother_tui.core.options import ClientOptions
from gother_tui.tui import stylesheet
from gother_tui.tui.client_app import ClientApp
from gother_tui.tui.screens.name import NameScreen
from tests.tui.clientkit import URL, until

Parsed = Counter[tuple[Any, ...]]  # (where, tie-breaker, scope, primary colour): parses


@pytest.fixture
def parsed(monkeypatch) -> Parsed:
    """Every source Textual's parser reads from now on, in this process's new cache."""
    monkeypatch.setattr(stylesheet, "PARSED", {})
    seen: Parsed = Counter()
    real = textual.css.stylesheet.parse

    def parse(scope: str, css: str, read_from: Any, **options: Any) -> Any:
        primary = "".join(t.value for t in options["variable_tokens"]["primary"])
        seen[(read_from, options["tie_breaker"], scope, primary)] += 1
        return real(scope, css, read_from, **options)

    monkeypatch.setattr(textual.css.stylesheet, "parse", parse)
    return seen


async def to_the_lobby(app: ClientApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await pilot.pause()


@pytest.mark.parametrize(("theme", "primary"), [("gother", "ansi_magenta"), ("nord", "#88C0D0")])
async def test_the_css_is_parsed_once_in_the_theme_s_colours(make_app, parsed, theme, primary):
    await to_the_lobby(make_app(theme=theme))
    assert parsed, "nothing parsed"
    assert {where[-1] for where in parsed} == {primary}  # never in Textual's default theme
    assert max(parsed.values()) == 1, [where for where, n in parsed.items() if n > 1]


async def test_a_client_after_parse_ahead_parses_nothing(make_app, parsed):
    assert stylesheet.parse_ahead(ClientApp(ClientOptions(url=URL))) > 50
    parsed.clear()
    await to_the_lobby(make_app())
    app = make_app(ask_name=True)  # the web door's first screen
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NameScreen), "the name screen")
        await pilot.pause()
    assert not parsed
