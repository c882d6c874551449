"""Who a browser is and where (issue 18 items 1 and 5), driven as a browser drives the web
door: a login always hands out a fresh cookie (one the browser brought is never admitted:
no session fixation); sessions are capped per address; X-Forwarded-For is believed from
the trusted proxy only; and the browser's address reaches the game server as the door's
signed claim, so the server counts the browser there. Everything on 127.0.0.x."""

from __future__ import annotations

import json

import aiohttp
import pytest

from server.doors.web.identity import COOKIE, Identities
from server.tokens import hash_secret
from tests.doors.web.doorkit import (
    browser,
    door_and_server,
    open_tab,
    own_origin,
    read_screen,
    web_door,
)
from tests.kits.poll import until

NAME_SCREEN = r"Your name at the table"
PLANTED = "p" * 32  # the shape of a door's cookie, chosen by someone else


def browser_from(door, source: str) -> aiohttp.ClientSession:
    """A browser whose connections come from `source`, one of this host's 127/8."""
    return aiohttp.ClientSession(
        base_url=own_origin(door),
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        connector=aiohttp.TCPConnector(local_addr=(source, 0)),
    )


async def test_a_login_gives_a_fresh_cookie_and_the_planted_one_gets_nothing(tmp_path):
    async with web_door(tmp_path, password="crypt") as door, browser(door) as victim:
        victim.cookie_jar.update_cookies({COOKIE: PLANTED})
        login = {"Origin": own_origin(door)}
        async with victim.post(
            "/login", data={"password": "crypt"}, headers=login, allow_redirects=False
        ) as right:
            assert right.status == 303
            given = right.cookies[COOKIE].value  # what the door sets in its place
        assert given != PLANTED
        assert door.identities.admitted(given) and not door.identities.admitted(PLANTED)
        async with browser(door) as planter:  # who planted it, trying it now
            planter.cookie_jar.update_cookies({COOKIE: PLANTED})
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await planter.ws_connect("/ws", origin=own_origin(door))
            assert refused.value.status == 403
            async with planter.get("/") as page:
                assert 'type="password"' in await page.text()  # asked the password


async def test_a_browser_that_logs_in_again_keeps_its_seats_under_its_new_cookie(tmp_path):
    identities = Identities(tmp_path, "crypt")
    assert identities.log_in("a" * 32, "crypt")
    (identities.state_dir("a" * 32) / "seats.json").write_text("its seats")
    assert identities.log_in("b" * 32, "crypt")
    identities.carry("a" * 32, "b" * 32)
    assert (identities.state_dir("b" * 32) / "seats.json").read_text() == "its seats"
    assert not (tmp_path / hash_secret("a" * 32)[:32]).exists()
    assert not identities.admitted("a" * 32) and identities.admitted("b" * 32)


@pytest.mark.slow
async def test_sessions_are_capped_per_address_and_the_address_reaches_the_server(tmp_path):
    """One address's second browser is told its address is full while another address
    gets in; the browser in play is counted by the game server at its own address."""
    async with (
        door_and_server(tmp_path, max_sessions=5, per_address=1) as (door, server),
        browser_from(door, "127.0.0.2") as first,
        browser_from(door, "127.0.0.2") as second,
        browser_from(door, "127.0.0.3") as elsewhere,
    ):
        ws = await open_tab(first, door)
        await read_screen(ws, NAME_SCREEN)
        async with second.get("/") as page:
            assert page.status == 503 and "from your address" in await page.text()
        async with elsewhere.get("/") as page:
            assert page.status == 200
        await ws.send_str(json.dumps(["stdin", "Lenore\r"]))
        await read_screen(ws, r"Lenore \(join\)")
        (player,) = await until(
            "Lenore at the server", lambda: [c for c in server.connections if c.name == "Lenore"]
        )
        assert player.claimed == "127.0.0.2" and player.socket_address == "127.0.0.1"
        assert dict(server.by_address) == {"127.0.0.2": 1}
        await ws.close()


@pytest.mark.slow
async def test_forwarded_addresses_are_believed_from_the_trusted_proxy_only(tmp_path):
    forwarded = {"X-Forwarded-For": "10.9.9.9, 198.51.100.7"}  # the proxy wrote the last
    async with (
        door_and_server(tmp_path, per_address=1, trust_proxy="127.0.0.1") as (door, server),
        browser(door) as behind_proxy,
        browser(door) as same_address,
        browser_from(door, "127.0.0.4") as not_the_proxy,
    ):
        async with behind_proxy.get("/", headers=forwarded) as page:
            assert page.status == 200
        ws = await behind_proxy.ws_connect(
            "/ws?width=80&height=24", origin=own_origin(door), headers=forwarded
        )
        await read_screen(ws, NAME_SCREEN)
        (session,) = door.live
        assert session.address == "198.51.100.7"
        async with same_address.get("/", headers=forwarded) as page:  # that browser's address
            assert page.status == 503
        async with not_the_proxy.get("/", headers=forwarded) as page:  # its own: 127.0.0.4
            assert page.status == 200
        async with same_address.get("/") as page:  # the proxy's own address: room
            assert page.status == 200
        await ws.send_str(json.dumps(["stdin", "Ulalume\r"]))
        await read_screen(ws, r"Ulalume \(join\)")
        (player,) = await until(
            "Ulalume at the server", lambda: [c for c in server.connections if c.name == "Ulalume"]
        )
        assert player.address == "198.51.100.7"
        await ws.close()
