"""A person's screen and keys at any door (a tmux pane, a browser's page), and the one
driver of the end-to-end games: a decision on the full-screen client played as the
server's hint has it, by keys (h, the hint filled in, Enter, the move landed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from server.searches import SPAWN_TIME
from tests.doors.web.browserkit import screen as page_screen
from tests.e2e.e2ekit import Tmux
from tests.kits.poll import until_blocking

HINTED = "The hint; Enter plays it"  # the action panel's title once a hint is filled in
# a hint on a loaded machine: its search worker may have to start first, then think
HINT_TIMEOUT = 2 * SPAWN_TIME
STEP_TIMEOUT = 60.0  # anything else a screen waits for: a move to land, a panel to close


class Screen:
    """One person's screen and keyboard, whatever the door."""

    name: str

    def screen(self) -> str:
        raise NotImplementedError

    def press(self, *keys: str) -> None:
        raise NotImplementedError

    def type(self, text: str) -> None:
        raise NotImplementedError

    def pause(self) -> None:
        """What runs between two looks."""
        time.sleep(0.03)

    def wait(self, what: str, check: Callable[[str], Any] | str, timeout: float = STEP_TIMEOUT):
        """What `check(screen)` returns once truthy (a string: the screen, once the string
        is on it); at the deadline, fail showing the screen."""
        test = (lambda text: check in text and text) if isinstance(check, str) else check
        try:
            return until_blocking(
                f"{self.name}: {what}", lambda: test(self.screen()), timeout, pause=self.pause
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.screen()}") from None


class Pane(Screen):
    """A program in an 80x24 session of a private tmux server."""

    def __init__(self, name: str, tmux: Tmux, session: str) -> None:
        self.name, self.tmux, self.session = name, tmux, session

    def screen(self) -> str:
        return self.tmux.screen(self.session)

    def press(self, *keys: str) -> None:
        self.tmux.keys(self.session, *keys)

    def type(self, text: str) -> None:
        self.tmux.keys(self.session, "-l", text)  # literally, as typed


class Page(Screen):
    """The web door's page in a browser tab (a Playwright `Page`), read from its xterm.js."""

    def __init__(self, name: str, page: Any) -> None:
        self.name, self.page = name, page

    def screen(self) -> str:
        return page_screen(self.page)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)

    def pause(self) -> None:  # the page's own clock runs between two looks, its events too
        self.page.wait_for_timeout(30)


def play_by_hint(person: Screen) -> None:
    """The decision on `person`'s full screen, played as the server's hint has it: h, wait
    until the hint is filled in, Enter, wait until the move has landed (the screen moved
    on and the hint's panel is gone: a panel still up passed for the next decision's hint,
    Enter then played nothing new, and the next h met "a hint is on its way")."""
    person.wait("no hint's panel before h", lambda text: HINTED not in text)
    person.press("h")
    person.wait("the hint", HINTED, HINT_TIMEOUT)
    before = person.screen()
    person.press("Enter")
    person.wait("the move to land", lambda text: text != before and HINTED not in text)
