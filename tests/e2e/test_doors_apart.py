"""The doors on a second machine (docs/hosting.md, "The doors on a second machine"): two
hosts this test makes, network namespaces joined by a veth pair. "game" runs `gother serve
--tls` with a password and a door key file; "door" runs `gother door ssh` and `gother door
web` against it, by its wss:// URL and its certificate's fingerprint, with a copy of the
key. From a player's address beside the door, the system `ssh` reaches the lobby and sits
at the table a terminal player on the game host made, who plays its first move; meanwhile
a browser there logs in at the web door, and its tab reaches the same lobby. The game
server counts each door player at that player's address (the door's claim), not at the
door's.

Nothing leaves the namespaces; every process started here is stopped here.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import ssl
import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from websockets.sync.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from tests.doors.web.doorkit import read_screen
from tests.doors.web.test_web_door import NAME_SCREEN
from tests.e2e.e2ekit import HAND, PLAYER_ROW, Tmux, gother_running, gother_serve, terminal_env
from tests.e2e.netnskit import Host, inside, needs_netns, two_hosts
from tests.kits.netkit import first_legal_move
from tests.kits.poll import until_blocking

MISSING = [name for name in ("ssh", "ssh-keygen", "tmux") if shutil.which(name) is None]
pytestmark = [
    pytest.mark.slow,
    needs_netns,
    pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}"),
]
PASSWORD = "nevermore"
FINGERPRINT = re.compile(r"fingerprint (SHA256:[0-9A-F:]+)")
SSH_OPTIONS = (
    *("-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"),
    *("-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"),
)


def last(pattern: re.Pattern[str], text: Callable[[], str]) -> re.Match[str] | None:
    """The last match of `pattern` in `text()`, if any."""
    *_, found = (None, *pattern.finditer(text()))
    return found


def listening(kind: str, host: str) -> re.Pattern[str]:
    """A door's line once it listens: `ssh: listening on ssh://HOST:PORT`."""
    scheme = {"ssh": "ssh", "web": "http"}[kind]
    return re.compile(rf"{kind}: listening on {scheme}://{re.escape(host)}:(\d+)")


@contextmanager
def door(kind: str, host: Host, folder: Path, *args: str) -> Iterator[int]:
    """`gother door KIND … ARGS` on `host`, listening on its address; yields the port."""
    argv = ("door", kind, "--host", host.address, "--data-dir", str(folder / kind), *args)
    ready = listening(kind, host.address)
    with gother_running(folder / f"{kind}.log", *argv, ready=ready, prefix=host.command()) as m:
        yield int(m.group(1))


def trusting(cert: Path) -> ssl.SSLContext:
    """TLS that trusts the game server's own certificate, as its CA (it is pinned)."""
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False
    return context


class TerminalPlayer:
    """A player on the wire, welcomed with the server's password."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.rid = 0
        welcome = self.ask(t="hello", v=PROTOCOL_VERSION, name=name, password=PASSWORD)
        assert welcome["t"] == "welcome", welcome

    def ask(self, **request: Any) -> dict[str, Any]:
        self.rid += 1
        self.ws.send(encode({**request, "rid": self.rid}))
        return self.until(lambda m: m.get("rid") == self.rid)

    def until(self, wanted: Any, timeout: float = 60.0) -> dict[str, Any]:
        while True:
            message = decode(self.ws.recv(timeout=timeout))
            if wanted(message):
                return message


def dealt_with(name: str) -> Any:
    """Whether a message is the state of a dealt game where `name` sits, connected."""

    def check(message: dict[str, Any]) -> bool:
        if message.get("t") != "state" or message["view"]["phase"] == "lobby":
            return False
        players = message["view"]["players"]
        return any(p["name"] == name and p["connected"] for p in players)

    return check


async def browse(origin: str, player: str) -> str:
    """A browser at `player`'s address: the password page, the door's page, then a tab
    that names itself Wren and reaches the lobby; returns the tab's screen there."""
    connector = aiohttp.TCPConnector(local_addr=(player, 0))
    jar = aiohttp.CookieJar(unsafe=True)  # cookies for an IP address, as a browser keeps
    async with aiohttp.ClientSession(origin, connector=connector, cookie_jar=jar) as browser:
        login = {"password": PASSWORD}
        async with browser.post("/login", data=login, headers={"Origin": origin}) as page:
            assert page.status == 200 and page.history[0].status == 303, page.history
        tab = await browser.ws_connect("/ws?width=80&height=24", origin=origin)
        await read_screen(tab, NAME_SCREEN)
        await tab.send_str(json.dumps(["stdin", "Wren\r"]))
        screen = await read_screen(tab, r"Wren \(join\)")  # in the lobby, through wss://
        await tab.close()
        return screen


def test_doors_on_a_second_machine_let_their_players_in_at_their_own_addresses(tmp_path):
    game_dir, door_dir, home = tmp_path / "game", tmp_path / "door", tmp_path / "home"
    for folder in (game_dir, door_dir, home):
        folder.mkdir()
    (tmp_path / "pw").write_text(PASSWORD + "\n")
    key_file = game_dir / "door.key"
    secrets = ("--password-file", str(tmp_path / "pw"))
    serve_args = ("--tls", "--door-key-file", str(key_file), *secrets, "--bot-delay", "0.05")
    with (
        two_hosts() as (game, door_host),
        gother_serve(game_dir, *serve_args, host=game.address, prefix=game.command()) as port,
    ):
        player = door_host.another_address(3)  # the players' machine, beside the door's
        serve_log = game_dir / "serve.log"
        logged = until_blocking(
            "the fingerprint", lambda: FINGERPRINT.search(serve_log.read_text())
        )
        pin = logged[1]
        assert key_file.stat().st_mode & 0o777 == 0o600  # the server made it private
        copied = door_dir / "door.key"  # as `scp -p` brings it: 0600
        shutil.copyfile(key_file, copied)
        copied.chmod(0o600)
        server = f"wss://{game.address}:{port}"
        dial = ("--server", server, "--fingerprint", pin, "--door-key-file", str(copied), *secrets)
        with (
            door("ssh", door_host, door_dir, *dial, "--ssh", "0", "--ssh-open") as ssh_port,
            door("web", door_host, door_dir, *dial, "--web", "0") as web_port,
            ExitStack() as stack,
        ):
            trusted = trusting(game_dir / "tls" / "cert.pem")
            with inside(game):  # the terminal player's socket is the game host's
                dialled = connect(server, ssl=trusted, max_size=MAX_FRAME)
            stack.enter_context(dialled)
            crow = TerminalPlayer(dialled, "Crow")
            created = crow.ask(t="create", name="Apart", seats=3, bots=1)
            assert created["t"] == "created", created
            joined = crow.ask(t="join", table=created["table"], seat=0)  # seat 0 deals
            assert joined["t"] == "joined", joined

            key = tmp_path / "raven_key"
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True
            )
            ssh = [
                *door_host.command("ssh", "-tt", "-i", str(key), *SSH_OPTIONS),
                *("-b", player, "-p", str(ssh_port), f"Raven@{door_host.address}"),
            ]
            tmux = Tmux(terminal_env(home, PATH=os.environ.get("PATH", "/usr/bin:/bin")))
            try:
                tmux.start("raven", shlex.join(ssh))

                def shown(check: Any) -> Any:
                    text = tmux.screen("raven")
                    return text if check(text) else None

                def table(text: str) -> bool:
                    rows = PLAYER_ROW.findall(text)
                    names = {name for _, name in rows}
                    whole = {"Crow", "Raven"} <= names and "Raven (you)" in text
                    return whole and bool(HAND.search(text))

                try:
                    until_blocking(
                        "the lobby", lambda: shown(lambda t: "Apart" in t and "Enter" in t)
                    )
                    tmux.keys("raven", "Enter")
                    until_blocking("the dealt table over ssh", lambda: shown(table))
                except AssertionError as exc:
                    raise AssertionError(f"{exc}; screen:\n{tmux.screen('raven')}") from None
                # the terminal player at the same table sees the game dealt, Raven there,
                # and plays the first move of it
                legal = crow.until(dealt_with("Raven"))["view"]["legal"]
                assert legal is not None, "seat 0 deals and plays first"
                played = crow.ask(t="move", move=first_legal_move(legal))
                assert played["t"] == "state", played
                # and a browser's tab meanwhile, at the web door
                with inside(door_host):
                    origin = f"http://{door_host.address}:{web_port}"
                    screen = asyncio.run(browse(origin, player))
                assert "Apart" in screen  # its lobby lists the game the two play
            finally:
                tmux.kill()

            # each door player counts at the player's address, told by the door's claim,
            # on a connection from the door's machine
            log = serve_log.read_text
            for name in ("Raven", "Wren"):
                closed = re.compile(rf"closed: {name}@(\S+):\d+ for (\S+)")
                found = until_blocking(f"{name}'s connection to close", partial(last, closed, log))
                assert found.groups() == (door_host.address, player), found[0]
            came = re.compile(rf"connection from \S*@(\S+):\d+ for {re.escape(player)}\b")
            claimed = came.findall(log())
            assert len(claimed) >= 2 and set(claimed) == {door_host.address}, claimed
        assert "Traceback" not in (door_dir / "ssh.log").read_text()
        assert "Traceback" not in (door_dir / "web.log").read_text()
