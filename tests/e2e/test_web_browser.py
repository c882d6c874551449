"""End to end in a real browser: a `gother serve --web` process, Debian's chromium driven
by Playwright, and the client processes the door starts.

Two browser contexts (two browsers, as far as the door can tell) give the password, type
their names, take their own seats at the same table and each play a move by keys; a
reload puts one back in its seat, and so does quitting (^x) and opening the page again; a
third without the password gets no process, nor does a websocket from a foreign page;
every request the pages make goes to 127.0.0.1; the screen is read from the page's
xterm.js buffer, its glyphs are in the door's font, and closing a tab ends its process.
Everything listens on 127.0.0.1 only; every process started here is ended here.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest
from fontTools.ttLib import TTFont
from playwright.sync_api import sync_playwright
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from protocol.constants import DEFAULT_ROUND_CAP
from protocol.lengths import how_long
from server.doors.web.door import STATIC
from tests.doors.web.browserkit import (
    HAVE_CHROMIUM,
    TIMEOUT,
    YOU_ROW,
    Requests,
    drawn,
    guarded_context,
    launch,
    screen,
    status,
    wait_screen,
)
from tests.doors.web.doorkit import children, clients_behind
from tests.e2e.e2ekit import GOTHER, create_table, gother_serve
from tests.e2e.playkit import Page, play_by_hint
from tests.kits.poll import until_blocking

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_CHROMIUM, reason="needs Debian's chromium"),
]

PASSWORD = "crypt-door"
WEB_LISTENING = re.compile(r"web: listening on http://127\.0\.0\.1:(\d+)")
GAME_TIMEOUT = 120.0  # for the game to come to both browsers


def the_serve_process() -> int:
    (pid,) = [
        p for p in children(os.getpid()) if b"serve" in Path(f"/proc/{p}/cmdline").read_bytes()
    ]
    return pid


@pytest.fixture
def door(tmp_path) -> Iterator[tuple[int, int, int]]:
    """`gother serve --web 0` with a password: (game port, web port, serve pid)."""
    secret = tmp_path / "web-password"
    secret.write_text(PASSWORD + "\n")
    with gother_serve(
        tmp_path, "--bot-delay", "0.05", "--web", "0", "--web-password-file", str(secret)
    ) as port:
        log = tmp_path / "serve.log"
        web = int(
            until_blocking("the web door", lambda: WEB_LISTENING.search(log.read_text())).group(1)
        )
        serve = the_serve_process()
        yield port, web, serve
        # the browser is closed by now: its tabs' processes end within the quit timeout
        until_blocking("every client process to end", lambda: not clients_behind(serve), 30)


def log_in(page, url: str) -> None:
    page.goto(url)
    assert page.title() == "Gother Than Thou"
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#terminal .xterm")


def sit_down(page, name: str) -> str:
    """Name, then Enter on the lobby's only table: the screen once seated."""
    wait_screen(page, "the name screen", "Your name at the table")
    page.keyboard.type(name)  # no click first: the terminal has the focus on load
    page.keyboard.press("Enter")
    wait_screen(page, "the lobby", "Web table")
    page.keyboard.press("Enter")
    return wait_screen(page, f"{name} seated", f"{name} (you)")


def test_two_browsers_play_at_one_table_and_nothing_leaks(door, tmp_path):
    port, web, serve = door
    url = f"http://127.0.0.1:{web}/"
    table = create_table(port, "Web table", seats=3, bots=1)
    requests = Requests()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            contexts = [
                guarded_context(browser, requests, viewport={"width": 900, "height": 560})
                for _ in range(3)
            ]
            lydia, raven, stranger = (c.new_page() for c in contexts)
            for page in (lydia, raven):
                log_in(page, url)
                assert page.evaluate("document.activeElement === gotherTerminal.textarea")
            seats = {name: YOU_ROW.search(sit_down(page, name)).group(1)
                     for name, page in (("Lydia", lydia), ("Raven", raven))}  # fmt: skip
            assert len(set(seats.values())) == 2  # each browser its own seat
            assert len(clients_behind(serve)) == 2

            # each plays by keys whenever the game waits for them, until both have moved
            played: set[str] = set()
            deadline = time.monotonic() + GAME_TIMEOUT
            while played != {"Lydia", "Raven"}:
                assert time.monotonic() < deadline, (
                    f"{played} played:\n{screen(lydia)}\n{screen(raven)}"
                )
                for name, page in (("Lydia", lydia), ("Raven", raven)):
                    text = wait_screen(page, "the game going on", lambda t: "Round" in status(t))
                    if "You: step" in status(text):  # a turn has steps: play them all
                        play_by_hint(Page(name, page))
                        played.add(name)
            record = export(tmp_path, table)
            movers = {seat for seat, _ in record["moves"]}
            assert {int(s) - 1 for s in seats.values()} <= movers

            # the screen, read from the page, has the glyphs, all of them in the door's font
            text = screen(lydia)
            assert {"☥", "☠", "⚙", "▶", "▏"} <= drawn(text)
            font = {chr(c) for c in TTFont(STATIC / "fonts" / "DejaVuSansMono.ttf").getBestCmap()}
            assert drawn(text) <= font
            loaded = lydia.evaluate(
                "[...document.fonts].filter(f => f.family.includes('Gother')).map(f => f.status)"
            )
            assert loaded and set(loaded) == {"loaded"}

            # the web-safe keys: ? opens help, which names the browser's own keys
            lydia.keyboard.press("?")
            pages = [wait_screen(lydia, "the help", "Help: keys and rules")]
            # scroll a line at a time until the browser's row itself shows: a page at a time,
            # a screen caught mid-scroll can be the only one read while the row went by
            deadline = time.monotonic() + TIMEOUT
            while "^q ^w F1" not in pages[-1]:
                assert time.monotonic() < deadline, "\n".join(pages)
                lydia.keyboard.press("ArrowDown")
                pages.append(wait_screen(lydia, "the help to scroll", lambda t: t != pages[-1]))
            help_text = "\n".join(pages)
            assert re.search(r"│ +\^x +quit \(your seat is kept", help_text), help_text
            assert re.search(r"│ +\? +this help", help_text), help_text
            assert "^q ^w F1" in help_text and "the browser's own" in help_text
            lydia.keyboard.press("Escape")

            # a reload resumes the same seat, under the same name, with a new process
            before = clients_behind(serve)
            lydia.reload()
            back = wait_screen(  # the whole table, footer and all, with no key pressed
                lydia, "Lydia back at the table", lambda t: "Lydia (you)" in t and "^x Quit" in t
            )
            assert YOU_ROW.search(back).group(1) == seats["Lydia"]
            until_blocking("the old process to end", lambda: len(clients_behind(serve)) == 2)
            assert clients_behind(serve) != before

            # no password: the login page, and no process for a websocket it opens itself
            stranger.goto(url)
            assert stranger.locator("#password").count() == 1
            assert stranger.locator("#terminal").count() == 0
            code = stranger.evaluate(OPEN_SOCKET, f"ws://127.0.0.1:{web}/ws")
            assert code == 1006  # the handshake was refused
            stranger.fill("#password", "not-it")
            stranger.click("button[type=submit]")
            assert "not the password" in stranger.content()
            assert len(clients_behind(serve)) == 2

            # a foreign page's websocket, even with Lydia's own cookie, starts nothing
            (cookie,) = [c for c in contexts[0].cookies() if c["name"] == "gother"]
            with pytest.raises(InvalidStatus) as refused:
                connect(
                    f"ws://127.0.0.1:{web}/ws",
                    origin="http://evil.example",
                    additional_headers={"Cookie": f"gother={cookie['value']}"},
                    open_timeout=10,
                )
            assert refused.value.response.status_code == 403
            assert len(clients_behind(serve)) == 2

            # closing a tab ends its process
            raven.close()
            until_blocking("Raven's process to end", lambda: len(clients_behind(serve)) == 1)
            lydia.close()
            until_blocking("Lydia's process to end", lambda: clients_behind(serve) == set())
        finally:
            browser.close()
    assert requests.seen and requests.foreign == [], requests.foreign
    assert any("/ws" in u for u in requests.seen)


OPEN_SOCKET = """(url) => new Promise((done) => {
  const socket = new WebSocket(url);
  socket.onclose = (event) => done(event.code);
})"""


def export(folder: Path, table: str) -> dict:
    out = folder / "game.gother"
    done = subprocess.run(
        [str(GOTHER), "export", "--db", str(folder / "games.db"), table, str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return msgpack.unpackb(out.read_bytes())


def test_a_cookie_planted_in_a_browser_is_never_the_one_that_logs_in(door):
    """Session fixation, in chromium: someone sets the door's cookie in a victim's browser
    to a value they know; the victim logs in; the door hands out a new cookie, and the
    planted one still gets only the password page."""
    _, web, _ = door
    url = f"http://127.0.0.1:{web}/"
    planted = {"name": "gother", "value": "p" * 32, "url": url}
    requests = Requests()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            victim, planter = (guarded_context(browser, requests) for _ in range(2))
            for context in (victim, planter):
                context.add_cookies([planted])  # type: ignore[list-item]
            log_in(victim.new_page(), url)
            (kept,) = [c for c in victim.cookies() if c["name"] == "gother"]
            assert kept["value"] != planted["value"] and kept["httpOnly"]
            page = planter.new_page()
            page.goto(url)
            assert page.locator("#password").count() == 1  # asked for the password
            assert page.locator("#terminal .xterm").count() == 0
        finally:
            browser.close()
    assert requests.foreign == []


def test_a_player_who_quits_and_opens_the_page_again_is_back_in_their_seat(door):
    """^x quits (the session ends, the page says so); the same page opened again, in the
    same browser, is the same player back in the same seat, with no key pressed."""
    port, web, serve = door
    url = f"http://127.0.0.1:{web}/"
    create_table(port, "Web table", seats=3, bots=2)
    requests = Requests()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            context = guarded_context(browser, requests, viewport={"width": 900, "height": 560})
            page = context.new_page()
            log_in(page, url)
            seat = YOU_ROW.search(sit_down(page, "Mina")).group(1)
            page.keyboard.press("Control+x")
            page.wait_for_selector("#ended:not([hidden])")
            until_blocking("the quit client to end", lambda: not clients_behind(serve), 30)

            began = time.monotonic()
            page.goto(url)
            back = wait_screen(
                page, "Mina back at the table", lambda t: "Mina (you)" in t and "^x Quit" in t
            )
            took = time.monotonic() - began
            assert YOU_ROW.search(back).group(1) == seat, back
            assert requests.foreign == [], requests.foreign
            print(f"\nweb door: back in seat {seat} {took:.1f} s after opening the page again")
        finally:
            browser.close()


def test_the_web_lobby_and_create_form_say_how_long_a_table_runs_and_offer_trait_and_length(
    door,
):
    """Issue 32 in the browser: the lobby says the chosen table's bots, whom they hurt and how
    long its games run; the new table form offers whom the bots hurt and the short game, and
    says how long what is chosen runs."""
    port, web, _ = door
    create_table(port, "Web table", seats=5, bots=3)
    lasts = how_long(5, "normal", "steady", DEFAULT_ROUND_CAP)
    assert lasts is not None
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = guarded_context(
                browser, Requests(), viewport={"width": 900, "height": 560}
            ).new_page()
            log_in(page, f"http://127.0.0.1:{web}/")
            wait_screen(page, "the name screen", "Your name at the table")
            page.keyboard.type("Lydia")
            page.keyboard.press("Enter")
            lobby = wait_screen(page, "the table's length", "(each plays its own game)")
            said = " ".join(lobby.split())  # as one line, however the terminal wrapped it
            assert "Web table: 3 normal bots, steady (each plays its own game)." in said
            assert f"Length: {' '.join(lasts.split())}." in said
            page.keyboard.press("n")
            form = wait_screen(page, "the new table form", "Bots aim")
            assert "as usual for the seats" in form and "the published game: 100 rounds" in form
            assert "Length: usually" in form
            page.keyboard.press("Escape")
            wait_screen(page, "the lobby again", "Web table")
        finally:
            browser.close()
