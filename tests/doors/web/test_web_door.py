"""The web door in front of a real server, driven as a browser drives it: the page, its
cookie, the terminal's websocket, real client processes. Who gets a process (the Host,
the Origin, the cookie, the password, the cap), and when it ends (tab closed, quit, idle,
another tab)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import stat
import time

import aiohttp
import pytest

from server.doors.web import door as web
from server.doors.web.child import client_argv, client_env
from server.doors.web.identity import COOKIE, Identities, cookie_of
from server.edge.attempts import Guessing
from server.tokens import hash_secret
from tests.doors.web.doorkit import (
    alive,
    browser,
    clients_of_this_test,
    closed,
    open_tab,
    own_origin,
    read_screen,
    web_door,
)
from tests.kits.poll import until

NAME_SCREEN = r"Your name at the table"


def cookie(session: aiohttp.ClientSession) -> str:
    (morsel,) = [m for m in session.cookie_jar if m.key == COOKIE]
    return morsel.value


@pytest.mark.slow
async def test_a_tab_gets_its_own_client_which_ends_when_the_tab_closes(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        pid = session.process.pid
        assert pid in clients_of_this_test()
        await ws.close()
        await until("the client to end", lambda: not alive(pid))
        await until("the session to be gone", lambda: not door.live)


@pytest.mark.slow
async def test_over_tls_the_door_is_https_and_its_clients_trust_their_servers_pin(tmp_path):
    async with web_door(tmp_path, server_password="pw", tls=True) as door, browser(door) as tab:
        async with tab.get("/") as page:
            assert page.url.scheme == "https"
            assert "Secure" in page.headers["Set-Cookie"]  # never sent over plain http
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        assert door.tls_pin is not None and door.url.startswith("wss://127.0.0.1:")
        assert session.process.argv[-2:] == ["--fingerprint", door.tls_pin]
        await ws.send_str(json.dumps(["stdin", "Vlad\r"]))
        await read_screen(ws, r"Vlad \(join\)")  # in the lobby: wss:// by the pin, and the password
        await ws.close()


async def test_a_websocket_from_a_foreign_origin_is_refused_and_starts_no_process(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        async with tab.get("/") as page:  # a real cookie: only the Origin is wrong
            assert page.status == 200
        for origin in ("http://evil.example", f"http://127.0.0.1:{door.port + 1}", None):
            headers = {} if origin is None else {"Origin": origin}
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await tab.ws_connect("/ws", headers=headers)
            assert refused.value.status == 403
        assert not door.live and clients_of_this_test() == set()


async def test_a_page_for_another_host_name_is_refused(tmp_path):
    """DNS rebinding: a site that points its own name at this machine has a matching
    Origin, but the Host names it, not this door."""
    async with web_door(tmp_path) as door, browser(door) as tab:
        evil = {"Host": f"evil.example:{door.port}"}
        async with tab.get("/", headers=evil) as page:
            assert page.status == 421
            assert COOKIE not in page.cookies
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await tab.ws_connect("/ws", headers={**evil, "Origin": f"http://{evil['Host']}"})
        assert refused.value.status == 421
        assert not door.live and clients_of_this_test() == set()


@pytest.mark.slow
async def test_the_password_is_asked_before_any_process_starts(tmp_path):
    async with web_door(tmp_path, password="crypt") as door, browser(door) as tab:
        async with tab.get("/") as page:
            text = await page.text()
            assert page.status == 200 and 'type="password"' in text and "xterm" not in text
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await tab.ws_connect("/ws", origin=own_origin(door))
        assert refused.value.status == 403
        tab.cookie_jar.update_cookies({COOKIE: "x" * 32})  # a cookie the door never admitted
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await tab.ws_connect("/ws", origin=own_origin(door))
        login = {"Origin": own_origin(door)}
        async with tab.post("/login", data={"password": "bat"}, headers=login) as wrong:
            assert wrong.status == 403 and "not the password" in await wrong.text()
        assert not door.live and clients_of_this_test() == set()
        async with tab.post(
            "/login", data={"password": "crypt"}, headers=login, allow_redirects=False
        ) as right:
            assert right.status == 303
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        await ws.close()


async def test_a_login_from_a_foreign_page_is_refused(tmp_path):
    async with web_door(tmp_path, password="crypt") as door, browser(door) as tab:
        headers = {"Origin": "http://evil.example"}
        async with tab.post("/login", data={"password": "crypt"}, headers=headers) as posted:
            assert posted.status == 403
        assert not any(m.key == COOKIE for m in tab.cookie_jar)


async def test_guessing_the_password_is_slowed_per_address(tmp_path):
    """The same rules as the server's and the SSH door's (server/edge/attempts.py): a few wrong
    ones are free, then the address waits, and a try while it waits is not even read."""
    rules = Guessing(free=2, first_wait=60.0)
    async with web_door(tmp_path, password="crypt", guessing=rules) as door, browser(door) as tab:
        login = {"Origin": own_origin(door)}
        for _ in range(rules.free + 1):
            async with tab.post("/login", data={"password": "nope"}, headers=login) as guess:
                assert guess.status == 403
        async with tab.post("/login", data={"password": "crypt"}, headers=login) as late:
            assert late.status == 429 and "wait" in await late.text()
        assert not any(m.key == COOKIE for m in tab.cookie_jar)  # the right one, unread
        door.guesses.succeeded("127.0.0.1", web.WEB_SECRET)  # the wait is over
        async with tab.post("/login", data={"password": "crypt"}, headers=login) as right:
            assert right.status == 200 and "xterm" in await right.text()


@pytest.mark.slow
async def test_the_cookie_is_random_httponly_strict_and_only_its_hash_is_kept(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        async with tab.get("/") as page:
            header = page.headers["Set-Cookie"]
        assert "HttpOnly" in header and "SameSite=Strict" in header and "Path=/" in header
        value = cookie(tab)
        assert cookie_of(value) == value
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        await ws.close()
        folder = tmp_path / "data" / "web-players" / hash_secret(value)[:32]
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        kept = [p for p in (tmp_path / "data").rglob("*")]
        assert all(value not in p.name for p in kept)
        assert all(value.encode() not in p.read_bytes() for p in kept if p.is_file())
    async with web_door(tmp_path) as door, browser(door) as other, other.get("/"):
        assert cookie(other) != value  # each browser its own


def test_only_browsers_that_gave_the_password_are_admitted(tmp_path):
    identities = Identities(tmp_path, "crypt")
    assert not identities.admitted("a" * 32) and not identities.admitted(None)
    assert not identities.log_in("a" * 32, "bat")
    assert identities.log_in("a" * 32, "crypt")
    assert identities.admitted("a" * 32) and not identities.admitted("b" * 32)
    assert Identities(tmp_path, None).admitted("b" * 32)


@pytest.mark.slow
async def test_when_the_door_is_full_another_browser_is_told_so(tmp_path):
    async with (
        web_door(tmp_path, max_sessions=1) as door,
        browser(door) as first,
        browser(door) as second,
    ):
        async with second.get("/") as early:  # the page came while there was room
            assert early.status == 200
        ws = await open_tab(first, door)
        await read_screen(ws, NAME_SCREEN)
        async with second.get("/") as page:
            assert page.status == 503 and "full" in await page.text()
        async with first.get("/") as own:  # a reload of the browser that is in
            assert own.status == 200
        refused = await second.ws_connect("/ws", origin=own_origin(door))
        code, why = await closed(refused)
        assert code == web.CLOSE_FULL and "full" in why
        assert len(door.live) == 1
        await ws.close()


@pytest.mark.slow
async def test_a_second_tab_of_the_same_browser_takes_the_session_over(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        old = await open_tab(tab, door)
        await read_screen(old, NAME_SCREEN)
        (before,) = door.live
        old_pid = before.process.pid
        new = await tab.ws_connect("/ws", origin=own_origin(door))
        code, why = await closed(old)
        assert code == web.CLOSE_MOVED and "another tab" in why
        await read_screen(new, NAME_SCREEN)
        assert not alive(old_pid)
        (after,) = door.live
        assert after.process.pid != old_pid
        await new.close()


@pytest.mark.slow
async def test_an_idle_session_is_ended_and_its_process_goes(tmp_path):
    async with web_door(tmp_path, idle=1.0) as door, browser(door) as tab:
        ws = await open_tab(tab, door)
        (session,) = door.live
        code, why = await closed(ws)
        assert code == web.CLOSE_IDLE and why.startswith("Ended after 1 s without a key")
        await until("the client to end", lambda: not alive(session.process.pid))


@pytest.mark.slow
async def test_resizing_is_no_key_and_keeps_no_session_past_its_idle_time(tmp_path):
    """A resize every 20 s kept a web session past `--web-idle` ("without a key")."""
    async with web_door(tmp_path, idle=1.0) as door, browser(door) as tab:
        ws = await open_tab(tab, door)

        async def resize() -> None:
            with contextlib.suppress(ConnectionError, RuntimeError):  # once it is closed
                while not ws.closed:
                    await ws.send_str(json.dumps(["resize", {"width": 80, "height": 24}]))
                    await asyncio.sleep(0.2)  # the attack's pace, not a wait for anything

        resizing = asyncio.create_task(resize())
        code, why = await closed(ws)
        resizing.cancel()
        assert code == web.CLOSE_IDLE and why.startswith("Ended after 1 s without a key")


@pytest.mark.slow
async def test_one_address_starts_a_few_sessions_then_is_told_to_wait(tmp_path):
    """8 addresses starting and ending sessions reached 44.9 a second (a client process
    each), and an honest table ran 5 times slower. Starts are a budget now."""
    async with web_door(tmp_path) as door, browser(door) as tab:
        began, started, refused = time.monotonic(), 0, None
        while refused is None and started < 30:
            ws = await open_tab(tab, door)
            first = await ws.receive(timeout=10.0)  # the client's screen, or the refusal
            if first.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                refused = (ws.close_code, str(first.extra))
            else:
                started += 1
            await ws.close()
        took = time.monotonic() - began
        assert refused is not None, "never told to wait"
        assert refused[0] == web.CLOSE_FULL and refused[1].startswith("Too many games started")
        rate = door.options.starts_per_minute / 60
        assert started <= web.STARTS_BURST + rate * took + 1, (started, took)


@pytest.mark.slow
async def test_the_web_quit_key_ends_the_session_and_says_the_seat_is_kept(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        ws = await open_tab(tab, door)
        await read_screen(ws, r"\^x Quit")  # the footer shows the web-safe key
        (session,) = door.live
        await ws.send_str(json.dumps(["stdin", "\x18"]))  # Ctrl+X
        code, why = await closed(ws)
        assert code == web.CLOSE_QUIT and "seat is kept" in why
        await until("the client to end", lambda: not alive(session.process.pid))


@pytest.mark.slow
async def test_the_name_typed_in_the_tab_reaches_the_server_and_odd_input_is_ignored(tmp_path):
    async with web_door(tmp_path) as door, browser(door) as tab:
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        for junk in ("not json", "{}", "[]", '["stdin", 5]', '["resize", {"width": 1e9}]'):
            await ws.send_str(junk)
        await ws.send_bytes(b"\x00binary")
        await ws.send_str(json.dumps(["resize", {"width": 10**9, "height": -3}]))
        await ws.send_str(json.dumps(["resize", {"width": 90, "height": 30}]))
        await ws.send_str(json.dumps(["stdin", "Lenore\r"]))
        await read_screen(ws, r"Lenore \(join\)")  # the lobby's header names us
        await ws.close()


def test_a_terminal_size_from_a_tab_is_bounded():
    assert web._size("90", "30") == (90, 30)
    assert web._size(10**9, -3) == (web.MAX_COLUMNS, 1)
    assert web._size(None, "x") == (80, 24)


def test_the_client_is_started_with_no_secret_and_its_own_folders(tmp_path):
    argv = client_argv("ws://127.0.0.1:8765", None)
    assert argv[-3:] == ["join", "ws://127.0.0.1:8765", "--ask-name"]
    pinned = client_argv("wss://127.0.0.1:8765", "SHA256:AB")
    assert pinned[-2:] == ["--fingerprint", "SHA256:AB"]  # it trusts its server's own only
    base = {"PATH": "/bin", "LC_ALL": "de_DE.ISO-8859-1", "GOTHER_WEB_PASSWORD": "door"}
    env = client_env(base, tmp_path, 100, 30)
    assert not any(key.startswith("GOTHER_") for key in env)  # no door's secret
    assert env["LANG"] == "C.UTF-8" and "LC_ALL" not in env
    assert env["XDG_STATE_HOME"] == str(tmp_path)
    assert env["XDG_CONFIG_HOME"].startswith(str(tmp_path))
    assert (env["COLUMNS"], env["ROWS"]) == ("100", "30")


@pytest.mark.slow
async def test_the_client_process_holds_no_secret_on_its_command_line(tmp_path):
    async with web_door(tmp_path, server_password="s3cret-server") as door, browser(door) as tab:
        ws = await open_tab(tab, door)
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        pid = session.process.pid
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:  # what `ps` shows anyone
            assert b"s3cret-server" not in cmdline.read()
        with open(f"/proc/{pid}/environ", "rb") as environ:  # a pipe, as at the SSH door
            assert b"s3cret-server" not in environ.read()
        await ws.send_str(json.dumps(["stdin", "Vlad\r"]))
        await read_screen(ws, r"Vlad \(join\)")  # the server let it in: the password came
        await ws.close()


async def test_every_page_asks_this_door_only_and_may_not_be_framed(tmp_path):
    async with web_door(tmp_path, password="crypt") as door, browser(door) as tab:
        async with tab.get("/") as login_page:
            pages = [await login_page.text()]
            headers = login_page.headers
        login = {"Origin": own_origin(door)}
        async with tab.post("/login", data={"password": "crypt"}, headers=login) as terminal:
            pages.append(await terminal.text())
        for text in pages:
            links = re.findall(r'(?:src|href|action)="([^"]*)"', text)
            assert links and all("//" not in link for link in links), links
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Cache-Control"] == "no-store"
        async with tab.get("/static/fonts/DejaVuSansMono.ttf") as font:
            assert font.status == 200
            assert await font.read() == (web.STATIC / "fonts" / "DejaVuSansMono.ttf").read_bytes()
        async with tab.get("/static/") as listing:
            assert listing.status in (403, 404)  # no index of the folder
