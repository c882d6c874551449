"""A host as one is really run (issue 34 §2 and §3): `gother serve --processes 2 --tls
--password-file … --db postgresql://…`. Its processes serve one certificate (made once,
under a lock, by whichever starts first), so our client (every door's core, and `gother
join --plain` itself), which trusted it at the host's address (pinned, like known_hosts),
follows `elsewhere` to the other process without a question and says the password there as
it did at the address, typed or given; a process showing another certificate is refused,
loudly. After a kill -9 of the process a client was at, it goes back to the host's address
and is seated where the table lives now, and plays on, no keypress. The password is never
written down."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import asyncssh
import pytest
from playwright.sync_api import sync_playwright

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.core.trust import KnownServers, Trust, pinning, server_of
from gother_tui.tui.app import GotherApp
from server.edge.tls import certificate_fingerprint, self_signed
from tests.core.test_client_core import Face
from tests.doors.test_door_processes import SSH_LISTENING, WEB_LISTENING
from tests.doors.web.browserkit import (
    HAVE_CHROMIUM,
    YOU_ROW,
    Requests,
    guarded_context,
    launch,
    status,
)
from tests.e2e.e2ekit import Tmux, terminal_env
from tests.e2e.playkit import Page, Pane, Screen, play_by_hint
from tests.e2e.test_doors_apart import SSH_OPTIONS
from tests.kits.netkit import Client, close_all, told
from tests.kits.poll import until
from tests.kits.prockit import LISTENING, ServerProcess
from tests.plain.plainkit import PlainProcess, plain_env
from tests.plain.test_plain_ssh import plain_session
from tests.store.test_lobby_across import Lobby
from tests.store.test_serve_processes import STARTED, pid_listening_at
from tests.store.test_takeover_processes import Player as Seated
from tests.tui.clientkit import until as shown_until
from tests.tui.test_client_password import type_password

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

PASSWORD = "nevermore"
FINGERPRINT = re.compile(r"tls: certificate .*, fingerprint (SHA256:[0-9A-F:]+)")
MOVES = ("discard_fate", "place", "draw", "discard_hand")  # a seat's decisions, as events
NO_SSH = [name for name in ("ssh", "ssh-keygen", "tmux") if shutil.which(name) is None]
T = TypeVar("T")


@dataclass
class Host:
    """`gother serve --processes 2 --tls --password-file …`: its address and its other
    process, each as its `wss://` URL."""

    serve: ServerProcess
    home: str
    other: str
    folder: Path

    async def client(self, url: str, name: str) -> Client:
        """A protocol client at `url`, trusting the host's certificate by its pin."""
        return await Client.connect(url, name, password=PASSWORD, ssl=pinning())

    def trust(self, pin: str) -> Trust:
        """Our client's trust: `pin` kept for the host's address, as a yes at the terminal
        leaves it."""
        known = KnownServers(self.folder / "known_servers")
        known.pin(server_of(self.home), pin)
        return Trust(known=known, host=self.home)


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[Host]:
    (tmp_path / "password").write_text(f"{PASSWORD}\n")
    serve = await ServerProcess.start(
        *("--processes", "2", "--tls", "--password-file", str(tmp_path / "password")),
        *("--db", pg_url, "--table-log", str(tmp_path / "log.db"), "--bot-delay", "0.2"),
        *("--door-key-file", str(tmp_path / "door.key")),  # for the doors run apart
        env={"XDG_DATA_HOME": str(tmp_path / "data")},  # where --tls keeps its certificate
    )
    try:
        one, two = sorted({(await serve.log_line(LISTENING, nth=n)).group(1) for n in (1, 2)})
        yield Host(serve, one, two, tmp_path)
    finally:
        if serve.proc.returncode is None:
            assert await serve.terminate() == 0
        await serve.stop()


async def table_at(host: Host, url: str, name: str) -> tuple[Client, str]:
    """A table of three seats (two bots) made at `url`, listed at the host's address."""
    maker = await host.client(url, name)
    table = (await maker.request("create", name=f"{name}'s", seats=3, bots=2))["table"]
    looker = Lobby(await host.client(host.home, f"{name}Looker"))
    await looker.until("the table listed at home", lambda rows: table in rows)
    await looker.client.close()
    return maker, table


class Heard(Face):
    """A face that also keeps the name of every call, never consumed."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.names.append(name)
        return super().__getattr__(name)


class Player(Seated):
    """Our client's core (every door's) with the command line's trust and the password."""

    def __init__(self, host: Host, trust: Trust, table: str, name: str = "Poe") -> None:
        self.face = Heard()
        options = ClientOptions(url=host.home, name=name, table=table, password=PASSWORD)
        self.core = ClientCore(
            options,
            self.face,
            SeatStore(host.folder / f"{name}.json"),
            partial(WebSocketTransport, trust=trust),
        )
        self.running = asyncio.create_task(self.core.run())


async def kill_process_at(host: Host, url: str) -> None:
    """kill -9 the host's process listening at `url` (its parent starts it again)."""
    pids = {m.group(2) for line in host.serve.lines if (m := STARTED.search(line))}
    os.kill(int(await pid_listening_at(url, pids)), signal.SIGKILL)


def no_secret_kept(folder: Path) -> None:
    """The password was said, never written: no file the clients keep holds it."""
    kept = [*folder.glob("*.json"), *folder.rglob("known_servers"), *folder.rglob("*seat*")]
    assert kept
    for path in kept:
        if path.is_file():
            assert PASSWORD not in path.read_text(errors="replace"), path


async def test_the_processes_share_one_certificate_and_the_client_follows_it_silently(host):
    pins = {(await host.serve.log_line(FINGERPRINT, nth=n)).group(1) for n in (1, 2)}
    assert len(pins) == 1, host.serve.stderr  # one certificate for the host, not one each
    (pin,) = pins
    maker, table = await table_at(host, host.other, "Ann")
    player = Player(host, host.trust(pin), table)
    try:
        assert await player.face.told("go") == ("table", None)  # no question, no refusal
        assert player.core.flow.at == host.other and player.core.flow.seat is not None
        await maker.request("watch", table=table)
        seat = player.core.flow.seat
        await maker.state(lambda v: v["players"][seat]["name"] == "Poe")
    finally:
        await player.close()
        await close_all(maker)
    assert "ask_password" not in player.face.names  # the password went with the hop
    no_secret_kept(host.folder)


async def test_a_process_showing_another_certificate_than_the_host_s_is_refused_loudly(
    host, pg_url
):
    cert, key = self_signed(host.folder / "stranger", "127.0.0.1")
    stranger = await ServerProcess.start(  # a process of the host with a certificate of its own
        *("--certfile", str(cert), "--keyfile", str(key)),
        *("--password-file", str(host.folder / "password"), "--db", pg_url),
        *("--table-log", str(host.folder / "stranger.db"), "--bot-delay", "0.2"),
    )
    try:
        maker, table = await table_at(host, stranger.url, "Bo")
        pin = (await host.serve.log_line(FINGERPRINT)).group(1)
        player = Player(host, host.trust(pin), table)
        try:
            reason, retry = await player.face.told("lost")
            shown = certificate_fingerprint(str(cert))
            assert retry is None, reason  # final: no retry mends it, and no question asked
            assert f"NOT the host's: it is {shown}, not {pin}" in reason, reason
            assert player.core.flow.seat is None
        finally:
            await player.close()
        await close_all(maker)
    finally:
        await stranger.stop()


async def test_a_client_at_a_process_killed_9_is_seated_again_at_the_taker_by_itself(host):
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Cy")
    player = Player(host, host.trust(pin), table, "Cy")
    try:
        await player.seated()
        assert player.core.flow.at == host.other
        await player.move()
        await kill_process_at(host, host.other)
        reason, retry = await player.face.told("lost")
        assert retry is not None, reason  # tried again: no question, no refusal
        # back at the host's address, which sends it on to the table's taker: seated again
        await player.seated()
        await player.move()
        assert player.core.flow.at != host.other  # the dead process's port is no one's now
        assert "ask_password" not in player.face.names
    finally:
        await player.close()
        await close_all(maker)
    no_secret_kept(host.folder)


async def test_plain_mode_typed_password_goes_with_the_hop_and_the_takeover(host):
    """`gother join --plain` on pipes, the host's certificate pinned as a yes at the
    terminal leaves it; the password typed once, at the host's address."""
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Di")
    home = host.folder / "di"
    KnownServers(home / "state" / "gother" / "known_servers").pin(server_of(host.home), pin)
    env = plain_env(home, LANG="C.UTF-8", TERM="dumb")
    plain = await PlainProcess.start(
        *("join", host.home, "--plain", "--name", "Di", "--table", table), env=env
    )
    try:
        await plain.until(r"^This server needs a password\. Type the server's password")
        await plain.type(PASSWORD)
        await plain.until(r"^You sit at Di's \(table \w+\), seat \d of 3\.")
        await plain.until(r"^Choose 1")  # its decision, when the process holding it dies
        await kill_process_at(host, host.other)
        # seated again where the table lives now: the taker, or the process started again
        await host.serve.log_line(re.compile(rf"table {table}: Di resumes seat"))
        plain.transcript.read = len(plain.transcript.lines)  # what it says from now on
        await plain.type("1")  # its decision, taken at the taker: the next one is asked
        await plain.until(r"^Choose ")
        said = "\n".join(plain.transcript.lines)
        assert said.count("needs a password") == 1, said  # asked once, at the address
        assert "certificate" not in said, said
        await plain.type("quit")
        assert await plain.wait() == 0
    finally:
        await plain.stop()
        await close_all(maker)
    no_secret_kept(home)


async def test_an_ssh_door_s_session_follows_its_table_and_its_taker(host):
    """`gother door ssh --server wss://… --fingerprint … --password-file …`, run apart as
    docs/hosting.md says, in front of the host's address: a session joins a table of the
    other process, and plays on after that process is killed -9."""
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Ed")
    door = await door_apart("ssh", host, pin, "--ssh", "0", "--ssh-open")
    conn, channel = await plain_session(int(door.url), asyncssh.generate_private_key("ssh-ed25519"))
    try:
        await channel.until(r"^You are in the lobby of ")
        channel.type("join 1")  # the one table, listed at the address, held by the other
        await channel.until(rf"^You sit at Ed's \(table {table}\), seat \d of 3\.$")
        await channel.until(r"^Choose 1")
        await kill_process_at(host, host.other)
        await host.serve.log_line(re.compile(rf"table {table}: Raven resumes seat"))
        channel.read_to = len(channel.seen)
        channel.type("1")  # its decision, taken where the table lives now
        await channel.until(r"^Choose ")
        assert "password" not in channel.seen and "certificate" not in channel.seen
        channel.type("quit")
        await channel.until(r"^Goodbye\.$")
    finally:
        conn.close()
        await conn.wait_closed()
        await stop_door(door)
        await close_all(maker)


def door_apart(kind: str, host: Host, pin: str, *args: str) -> Awaitable[ServerProcess]:
    """`gother door KIND --server wss://… --fingerprint … --password-file …`, run apart in
    front of the host's address as docs/hosting.md says."""
    return ServerProcess.run(
        *("door", kind, "--server", host.home, "--fingerprint", pin),
        *("--password-file", str(host.folder / "password")),
        *("--door-key-file", str(host.folder / "door.key")),
        *("--data-dir", str(host.folder / kind), *args),
        ready={"ssh": SSH_LISTENING, "web": WEB_LISTENING}[kind],
    )


async def stop_door(door: ServerProcess) -> None:
    if door.proc.returncode is None:
        assert await door.terminate() == 0
    await door.stop()


async def watching(host: Host, table: str) -> Client:
    """A spectator of `table` where it lives now, come in at the host's address, told the
    game so far (its story comes before its first state)."""
    watcher = await host.client(host.home, "Watcher")
    reply = await watcher.request("watch", table=table)
    if reply.get("code") == "elsewhere":
        await watcher.close()
        watcher = await host.client(reply["url"], "Watcher")
        reply = await watcher.request("watch", table=table)
    assert reply["t"] == "watching", reply
    await watcher.state(lambda view: True)
    return watcher


def moves_of(watcher: Client, table: str, seat: int) -> int:
    """How many of `seat`'s moves in the game at `table` `watcher` was told of."""
    return sum(
        event.get("kind") in MOVES and event.get("seat") == seat
        for event in told(watcher, table).values()
    )


def your_move(person: Screen) -> None:
    """Once the table waits for `person`, a decision played by keys, and landed."""
    person.wait("its turn", lambda text: "You: step" in status(text) and "online" in status(text))
    play_by_hint(person)


def plays_on_across_a_takeover(
    host: Host, table: str, person: Screen, loop: asyncio.AbstractEventLoop
) -> None:
    """`person`, a full screen at a door seated at `table` of the host's other process,
    plays a move there; that process is killed -9; seated again at the taker by itself,
    `person` plays a move there too, and a spectator there sees it land. (In a thread: the
    screen is read and typed at blocking, while the test's loop runs the host.)"""

    def on_loop(step: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(step, loop).result()  # type: ignore[arg-type]

    your_move(person)  # at the other process
    on_loop(kill_process_at(host, host.other))
    resumed = re.compile(rf"table {table}: {person.name} resumes seat (\d+)")
    seat = int(on_loop(host.serve.log_line(resumed)).group(1))
    watcher = on_loop(watching(host, table))
    try:
        shown = person.wait("its turn at the taker", lambda t: "You: step" in status(t) and t)
        you = YOU_ROW.search(shown)
        assert you is not None and int(you.group(1)) == seat + 1, shown  # the seat watched
        before = moves_of(watcher, table, seat)
        your_move(person)
        on_loop(
            until("the move seen at the taker", lambda: moves_of(watcher, table, seat) > before)
        )
    finally:
        on_loop(watcher.close())
    said = person.screen()
    assert "password" not in said and "certificate" not in said, said


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="needs Debian's chromium")
async def test_a_browser_tab_at_the_web_door_plays_on_at_the_taker(host):
    """`gother door web` in front of the host's address, a tab in chromium: its full-screen
    client joins a table of the other process from the lobby and plays there; after that
    process is killed -9 it is seated again by itself, and plays on at the taker, by keys."""
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Fay")
    door = await door_apart("web", host, pin, "--web", "0")
    requests = Requests()
    loop = asyncio.get_running_loop()

    def in_the_browser() -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                context = guarded_context(browser, requests, viewport={"width": 900, "height": 560})
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{door.url}/")
                page.fill("#password", PASSWORD)  # the web door's: the server's, by default
                page.click("button[type=submit]")
                lenore = Page("Lenore", page)
                lenore.wait("the name screen", "Your name at the table")
                lenore.type("Lenore")
                lenore.press("Enter")
                lenore.wait("the lobby", "Fay's")  # the other process's, listed at the address
                lenore.press("Enter")
                lenore.wait("seated", "Lenore (you)")
                plays_on_across_a_takeover(host, table, lenore, loop)
            finally:
                browser.close()

    try:
        await asyncio.to_thread(in_the_browser)
    finally:
        await stop_door(door)
        await close_all(maker)
    assert requests.seen and requests.foreign == [], requests.foreign


@pytest.mark.skipif(bool(NO_SSH), reason=f"needs {', '.join(NO_SSH)}")
async def test_a_full_screen_ssh_session_plays_on_at_the_taker(host):
    """The system `ssh` in a tmux pane at `gother door ssh`, in front of the host's address:
    the full-screen client the door runs for a terminal joins a table of the other process
    from the lobby and plays there; after that process is killed -9 it is seated again by
    itself, and plays on at the taker, by keys."""
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Ed")
    door = await door_apart("ssh", host, pin, "--ssh", "0", "--ssh-open")
    key = host.folder / "raven_key"
    made = await asyncio.create_subprocess_exec(
        *("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
    )
    assert await made.wait() == 0
    ssh = ["ssh", "-tt", "-i", str(key), *SSH_OPTIONS, "-p", door.url, "Raven@127.0.0.1"]
    home = host.folder / "raven"
    tmux = Tmux(terminal_env(home, PATH=os.environ.get("PATH", "/usr/bin:/bin")))
    loop = asyncio.get_running_loop()

    def in_the_terminal() -> None:
        tmux.start("raven", shlex.join(ssh))
        raven = Pane("Raven", tmux, "raven")
        raven.wait("the lobby", lambda t: "Ed's" in t and "Enter joins" in t and "Raven" in t)
        raven.press("Enter")
        raven.wait("seated", "Raven (you)")
        plays_on_across_a_takeover(host, table, raven, loop)

    try:
        await asyncio.to_thread(in_the_terminal)
    finally:
        tmux.kill()
        await stop_door(door)
        await close_all(maker)


async def test_the_full_screen_client_s_typed_password_goes_with_the_hop_and_a_restart(host):
    """`gother join wss://…` full screen, as its command line builds it (the pin kept for
    the host's address): the password typed once in its dialog is said at the other
    process too; started again, it resumes its seat at that process straight away."""
    pin = (await host.serve.log_line(FINGERPRINT)).group(1)
    maker, table = await table_at(host, host.other, "Gil")
    store = SeatStore(host.folder / "gil.json")
    connect = partial(WebSocketTransport, trust=host.trust(pin))
    options = ClientOptions(url=host.home, name="Gil", table=table, first_retry=0.05)
    app = GotherApp(options, transport=connect, seat_store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_password(pilot, "This server needs a password.", PASSWORD)
        await shown_until(pilot, lambda: app.current_mode == "table", "seated")
        assert app.core.flow.at == host.other and app.core.flow.seat is not None
    again = GotherApp(options, transport=connect, seat_store=store)
    async with again.run_test(size=(100, 30)) as pilot:
        await type_password(pilot, "This server needs a password.", PASSWORD)
        await shown_until(pilot, lambda: again.current_mode == "table", "seated again")
        assert again.core.flow.at == host.other  # its saved process, asked first
    await close_all(maker)
    await host.serve.log_line(re.compile(rf"table {table}: Gil resumes seat"))
    no_secret_kept(host.folder)
