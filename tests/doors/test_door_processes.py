"""The doors in processes of their own (server/doors/door.py, server/doors/supervisor.py): `gother
serve --ssh/--web` starts each as a child and starts it again when it dies, while the game
port goes on serving; `gother door ssh|web --server URL` runs one alone, in front of any
server that shares its door key; and a slowloris at the web door never reaches the game
port (server/doors/web/slow.py)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
from pathlib import Path

import aiohttp
import asyncssh
import pytest
from websockets.asyncio.client import connect

from protocol import PROTOCOL_VERSION, decode, encode
from server.doors.supervisor import FIRST_WAIT
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.doorkey import kept_key
from server.edge.tls import certificate_fingerprint, self_signed
from tests.doors.web.doorkit import alive, clients_of, closed, read_screen
from tests.doors.web.test_web_door import NAME_SCREEN
from tests.kits.poll import until
from tests.kits.prockit import ServerProcess, run_cli
from tests.kits.sshkit import close, open_session, read_until

pytestmark = pytest.mark.slow

STARTED = {kind: re.compile(rf"{kind} door started \(pid (\d+)\)") for kind in ("ssh", "web")}
SSH_LISTENING = re.compile(r"ssh: listening on ssh://127\.0\.0\.1:(\d+)")
WEB_LISTENING = re.compile(r"web: listening on http://127\.0\.0\.1:(\d+)")
WAIT = 60.0  # seconds: a cold Python start on two busy cores


def parent_of(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1])


async def says_hello(url: str) -> bool:
    """A terminal player's first exchange with the game port: welcomed or not."""
    async with connect(url, open_timeout=WAIT) as ws:
        await ws.send(encode({"t": "hello", "v": PROTOCOL_VERSION, "name": "Crow", "rid": 1}))
        reply = decode(await asyncio.wait_for(ws.recv(), WAIT))
        return reply.get("t") == "welcome"


async def page_status(port: int) -> int:
    async with aiohttp.ClientSession() as browser, browser.get(f"http://127.0.0.1:{port}/") as page:
        return page.status


async def test_serve_runs_each_door_as_a_child_started_again_when_it_dies(tmp_path):
    server = await ServerProcess.start(
        *("--db", str(tmp_path / "games.db"), "--ssh", "0", "--ssh-open", "--web", "0")
    )
    try:
        pids = {kind: int((await server.log_line(STARTED[kind]))[1]) for kind in STARTED}
        for pid in pids.values():
            assert pid != server.proc.pid and parent_of(pid) == server.proc.pid
        web_port = int((await server.log_line(WEB_LISTENING))[1])
        origin = f"http://127.0.0.1:{web_port}"
        jar = aiohttp.CookieJar(unsafe=True)  # cookies for an IP address, as a browser keeps
        async with aiohttp.ClientSession(base_url=origin, cookie_jar=jar) as browser:
            async with browser.get("/") as page:
                assert page.status == 200
            tab = await browser.ws_connect("/ws?width=80&height=24", origin=origin)
            await read_screen(tab, NAME_SCREEN)  # a client process runs for this tab
            (client,) = clients_of(pids["web"])
            os.kill(pids["web"], signal.SIGKILL)
            assert await says_hello(server.url)  # the game port never noticed
            await closed(tab)  # the tab hears that its door is gone…
        await until("the killed door's client to end", lambda: not alive(client))
        again = int((await server.log_line(STARTED["web"], nth=2))[1])
        assert again != pids["web"] and parent_of(again) == server.proc.pid
        web_port = int((await server.log_line(WEB_LISTENING, nth=2))[1])
        assert await page_status(web_port) == 200
        assert await says_hello(server.url)
        assert Path(f"/proc/{pids['ssh']}").exists()  # the other door went on as it was
    finally:
        code = await server.terminate()
    assert code == 0
    assert "ssh door stopped" in server.stderr and "web door stopped" in server.stderr
    assert re.search(r"web door ended \(-9\): starting it again in [\d.]+ s", server.stderr)


async def test_a_door_stops_when_its_server_is_killed(tmp_path):
    server = await ServerProcess.start("--web", "0")
    try:
        door = int((await server.log_line(STARTED["web"]))[1])
        await server.log_line(WEB_LISTENING)
    finally:
        await server.kill()  # no clean-up at all: the door reads the end of its stdin
    await until("the door to stop", lambda: not alive(door))


async def test_a_door_that_cannot_start_is_tried_again_ever_later_and_the_game_goes_on(
    tmp_path,
):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = await ServerProcess.start("--web", str(port))
        try:
            ended = re.compile(r"web door ended \(1\): starting it again in ([\d.]+) s")
            waits = [float((await server.log_line(ended, nth=n))[1]) for n in (1, 2, 3)]
            assert waits == [FIRST_WAIT * 2**n for n in range(3)]  # doubling
            assert "address already in use" in server.stderr.lower()
            assert "Traceback" not in server.stderr
            assert await says_hello(server.url)
        finally:
            assert await server.terminate() == 0


async def test_a_door_alone_lets_its_players_in_to_a_server_that_shares_its_key(tmp_path):
    key_file = tmp_path / "door.key"
    config = ServerConfig(host="127.0.0.1", port=0, door_key_file=str(key_file), announce=False)
    server = GotherServer(config)
    await server.start()
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert server.door_key.text == kept_key(key_file).text  # the same key at every start
    door = None
    try:
        door = await ServerProcess.run(
            *("door", "ssh", "--server", f"ws://127.0.0.1:{server.port}"),
            *("--door-key-file", str(key_file), "--ssh", "0", "--ssh-open"),
            *("--data-dir", str(tmp_path / "door")),
            ready=SSH_LISTENING,
        )
        player = asyncssh.generate_private_key("ssh-ed25519")
        conn, process = await open_session(int(door.url), player)
        try:
            # past hello: the server took the door's word for where Raven is
            await read_until(process, re.compile(r"(?i)tables yet"))
            assert {c.claimed for c in server.connections} == {"127.0.0.1"}
        finally:
            await close(conn, process)
    finally:
        if door is not None:
            assert await door.terminate() == 0
        await server.close()


@pytest.mark.parametrize(
    ("server_password", "door_password", "same_key", "error"),
    [
        (None, None, False, "does not know this door key: copy its --door-key-file"),
        ("crypt", None, True, "refused the door: this server needs a password"),
        ("crypt", "coffin", True, "refused the door: wrong password"),
    ],
)
async def test_a_door_alone_refused_by_its_server_says_why_and_does_not_start(
    tmp_path, server_password, door_password, same_key, error
):
    server_key, door_key = tmp_path / "server.key", tmp_path / "door.key"
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        door_key_file=str(server_key),
        password=server_password,
        announce=False,
    )
    server = GotherServer(config)
    await server.start()
    (tmp_path / "pw").write_text(f"{door_password}\n")
    try:
        kept_key(server_key if same_key else door_key)
        key = server_key if same_key else door_key
        code, _, err = await run_cli(
            *("door", "web", "--server", f"ws://127.0.0.1:{server.port}"),
            *("--door-key-file", str(key), "--web", "0"),
            *(("--password-file", str(tmp_path / "pw")) if door_password else ()),
        )
    finally:
        await server.close()
    assert code == 1 and error in err and "Traceback" not in err, err
    assert "web: listening" not in err


@pytest.mark.parametrize("right_pin", [True, False])
async def test_a_door_alone_dials_a_wss_server_by_its_pin_and_by_no_other(tmp_path, right_pin):
    cert, key = self_signed(tmp_path / "tls", "gother.lan")
    pin = certificate_fingerprint(str(cert)) if right_pin else "SHA256:" + ":".join(["00"] * 32)
    key_file = tmp_path / "door.key"
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        certfile=str(cert),
        keyfile=str(key),
        door_key_file=str(key_file),
        announce=False,
    )
    server = GotherServer(config)
    await server.start()
    argv = (
        *("door", "ssh", "--server", f"wss://127.0.0.1:{server.port}", "--fingerprint", pin),
        *("--door-key-file", str(key_file), "--ssh", "0", "--ssh-open"),
        *("--data-dir", str(tmp_path / "door")),
    )
    try:
        if right_pin:
            door = await ServerProcess.run(*argv, ready=SSH_LISTENING)
            assert await door.terminate() == 0
        else:
            code, _, err = await run_cli(*argv)
            assert code == 1 and "shows another certificate: SHA256:" in err, err
    finally:
        await server.close()


async def test_serve_refuses_a_door_key_file_that_holds_no_key(tmp_path):
    key_file = tmp_path / "door.key"
    key_file.write_text("not a key\n")
    code, _, err = await run_cli("serve", "--port", "0", "--door-key-file", str(key_file))
    assert code == 1 and f"gother serve: {key_file}: not a door key" in err, err
    assert "Traceback" not in err and "listening" not in err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "key_mode", "error"),
    [
        (["--server", "http://127.0.0.1:1"], 0o600, "an address starts with ws://"),
        ([], 0o600, "the following arguments are required: --server"),
        (["--server", "ws://127.0.0.1:1", "--no-key"], None, "No such file"),
        (["--server", "ws://127.0.0.1:1"], 0o644, "is readable by others"),
        (["--server", "ws://127.0.0.1:PORT"], 0o600, "cannot reach the game server at"),
        (["--server", "ws://127.0.0.1:1", "--fingerprint", "AB:CD"], 0o600, "not a SHA-256"),
    ],
)
async def test_a_door_alone_says_what_is_wrong_and_does_not_start(tmp_path, args, key_mode, error):
    key_file = tmp_path / "door.key"
    kept_key(key_file)
    if key_mode is not None:
        key_file.chmod(key_mode)
    given = [a.replace("PORT", str(free_port())) for a in args if a != "--no-key"]
    key = str(tmp_path / "missing.key") if "--no-key" in args else str(key_file)
    code, _, err = await run_cli(
        *("door", "ssh", *given, "--door-key-file", key, "--ssh", "0", "--ssh-open")
    )
    assert code != 0
    assert error in err and "Traceback" not in err
    assert "ssh: listening" not in err


async def hold_half_open(port: int, count: int) -> list[tuple[asyncio.StreamReader, object]]:
    """`count` connections that each send half a request's headers and then nothing."""
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")
        held.append((reader, writer))
    return held


async def cut(reader: asyncio.StreamReader) -> bytes:
    """What the door answered before it ended the connection (a close with our bytes
    still unread is a reset)."""
    try:
        return await reader.read()
    except ConnectionResetError:
        return b""


async def test_a_slowloris_at_the_web_door_is_cut_and_the_game_port_serves_throughout(tmp_path):
    timeout, per_address, sent = 5, 6, 30
    server = await ServerProcess.start(
        *("--web", "0", "--web-header-timeout", str(timeout)),
        *("--web-half-open-per-address", str(per_address), "--web-body-timeout", str(timeout)),
    )
    try:
        port = int((await server.log_line(WEB_LISTENING))[1])
        held = await hold_half_open(port, sent)
        ends = [asyncio.create_task(cut(reader)) for reader, _ in held]
        # beyond the address's share, each is closed as soon as it is accepted…
        async with asyncio.timeout(WAIT):
            while sum(end.done() for end in ends) < sent - per_address:
                await asyncio.wait([e for e in ends if not e.done()], return_when="FIRST_COMPLETED")
        open_now = sum(not end.done() for end in ends)
        assert open_now == per_address  # the share waits (a page load's connections do)
        for _ in range(4):  # terminal players meanwhile: every one is let in
            assert await says_hello(server.url)
        # …and the share is cut at the header timeout, unanswered
        done, pending = await asyncio.wait(ends, timeout=timeout + WAIT)
        assert not pending and all(end.result() == b"" for end in done)
        # a body sent as slowly is answered 408 at its own timeout
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-"
            b"form-urlencoded\r\nContent-Length: 100\r\n\r\npassword=sl"
        )
        answer = await asyncio.wait_for(cut(reader), timeout + WAIT)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        writer.close()
        assert await page_status(port) == 200  # and the door serves its page as before
        for _, w in held:
            w.close()  # type: ignore[attr-defined]
    finally:
        await server.terminate()
