"""Back in the seat at each door after a disconnect mid-game (issue 29): figures, never
asserted.

    nice -n 10 .venv/bin/python bench/comeback.py [--runs 3]

One real `gother serve --tls --password-file …` with its SSH door (listed keys, or the
password) and its web door, all on 127.0.0.1. At each door a new player (a name, a home, a
key or a browser of their own) sits down at a table of their own with three bots and plays
their first decision; then the connection goes as it does when a laptop lid closes or a
tab is shut (the terminal's tmux session killed, so the client or the ssh client gets its
SIGHUP; the browser page closed), and once a spectator sees the seat marked away, the
player does what they did first, again. Timed: from the same command started (the same
page opened, in the same browser) to their seat back on the screen, their hand drawn (for
the plain mode: the line that says the game is under way after "You sit at …").

- terminal: `gother join wss://127.0.0.1:PORT --name NAME` in an 80x24 tmux pane, the
  password in $GOTHER_PASSWORD, the certificate pinned at the first run ("y");
- plain: the same with --plain;
- ssh key: `ssh -i KEY -p SSH NAME@127.0.0.1` (a key the door lists);
- ssh token: `ssh -o SetEnv=GOTHER_SSH_TOKEN=… -p SSH NAME@127.0.0.1`, no key, the SSH
  password given by SSH_ASKPASS, the token read from the client's first screen;
- web: the door's page (https, the server's certificate accepted once) in Debian's
  chromium (Playwright), its password typed once; the page opened again in the same
  browser.

Beside them, in the same run, the baseline: the terminal's `gother join ws://…` back in
its seat on a server with neither TLS nor a password.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, sync_playwright
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode  # noqa: E402
from protocol.constants import SSH_TOKEN_ENV  # noqa: E402
from protocol.fingerprint import fingerprint  # noqa: E402
from tests.doors.web.browserkit import launch, wait_screen  # noqa: E402
from tests.e2e.e2ekit import (  # noqa: E402
    GOTHER,
    HAND,
    PLAYER_ROW,
    Tmux,
    accepts,
    free_port,
    gother_serve,
    terminal_env,
)
from tests.kits.poll import until_blocking  # noqa: E402

PASSWORD = "club-night-7"
PRINTED = re.compile(r"fingerprint (SHA256:[0-9A-F:]{95})")
WEB_LISTENING = re.compile(r"web: listening on https://127\.0\.0\.1:(\d+)")  # --tls: https


def web_port(log: Path) -> str:
    """The web door's port once the server's log says it, else ""."""
    said = WEB_LISTENING.search(log.read_text())
    return said[1] if said else ""


GIVEN = re.compile(rf"{SSH_TOKEN_ENV}=([A-Za-z0-9_-]{{24}})")
POLL = 0.02  # seconds between two looks at a screen
# Every player here comes from 127.0.0.1: the per-address caps made for a club of several
# addresses are raised; the bots play at the host's default pace.
MANY = ("--bot-delay", "0.4", "--tables-per-address", "100", "--seats-per-address", "100")
ENDING = "Vote to end this game unfinished?"
DOORS = ("terminal", "plain", "ssh key", "ssh token", "web", "baseline")
HINTED = "The hint; Enter plays it"
LOBBY = re.compile(r"n New table")  # the lobby's footer
LOBBY_PLAIN = re.compile(r"^(No tables on this server yet|\d+ tables? \()", re.MULTILINE)
SSH_OPTIONS = (
    *("-F", "/dev/null", "-o", "StrictHostKeyChecking=no"),
    *("-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"),
)


@dataclass(frozen=True)
class Host:
    folder: Path
    port: int  # the game port (wss:// and a password, or the baseline's ws://)
    tls: bool
    pin: str | None  # the certificate's fingerprint, as the server printed it
    ssh: int = 0
    web: int = 0

    @property
    def url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}"


@contextmanager
def club_server(folder: Path) -> Iterator[Host]:
    """`gother serve --tls` with a password, its SSH door (the keys in authorized_keys, or
    the password) and its web door."""
    (folder / "password").write_text(PASSWORD + "\n")
    (folder / "authorized_keys").write_text("")
    ssh = free_port()
    args = (
        *("--tls", "--password-file", str(folder / "password"), *MANY),
        *("--ssh", str(ssh), "--ssh-host-key", str(folder / "ssh_host_key")),
        *("--ssh-authorized-keys", str(folder / "authorized_keys")),
        *("--ssh-password-file", str(folder / "password"), "--web", "0"),
    )
    with gother_serve(folder, *args) as port:
        log = folder / "serve.log"
        web = int(until_blocking("the web door", lambda: web_port(log)))
        until_blocking("the SSH door", lambda: accepts(ssh))
        printed = PRINTED.search(log.read_text())
        assert printed is not None, "the server printed no fingerprint"
        yield Host(folder, port, True, printed[1], ssh, web)


@contextmanager
def bare_server(folder: Path) -> Iterator[Host]:
    """The baseline's: `gother serve`, ws://, no password, no door."""
    with gother_serve(folder, *MANY) as port:
        yield Host(folder, port, False, None)


class Spectator:
    """A protocol client watching one player's table, to see their seat marked away."""

    def __init__(self, ws: ClientConnection, host: Host) -> None:
        self.ws = ws
        if host.tls:
            der = ws.socket.getpeercert(binary_form=True)  # type: ignore[attr-defined]
            assert der is not None and fingerprint(der) == host.pin, "not the server's certificate"
        hello = {"t": "hello", "v": PROTOCOL_VERSION, "name": "Crow"}
        self.ask(**hello, **({"password": PASSWORD} if host.tls else {}))
        self.seat = -1

    def ask(self, **request: Any) -> dict[str, Any]:
        self.ws.send(encode({**request, "rid": 1}))
        while True:
            reply = decode(self.ws.recv(timeout=30))  # type: ignore[arg-type]
            if reply.get("rid") == 1:
                assert reply["t"] != "error", reply
                return reply

    def follow(self, name: str) -> None:
        """Watch the table where `name` sits."""
        for row in self.ask(t="list")["tables"]:
            if name in row["players"]:
                self.seat = row["players"].index(name)
                self.ask(t="watch", table=row["id"])
                return
        raise AssertionError(f"{name} sits at no table")

    def until_away(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            frame = decode(self.ws.recv(timeout=60))  # type: ignore[arg-type]
            if frame.get("t") == "state" and not frame["view"]["players"][self.seat]["connected"]:
                return
        raise AssertionError("the seat was never marked away")


def dropped(host: Host, name: str, drop: Callable[[], object]) -> None:
    """`drop()` the connection of `name`, and return once a spectator sees them away."""
    context = None
    if host.tls:  # the pin is checked by hand: the certificate is self-signed
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with connect(host.url, ssl=context, max_size=MAX_FRAME, compression=None) as ws:
        spectator = Spectator(ws, host)
        spectator.follow(name)
        drop()
        spectator.until_away()


def seated(screen: str, name: str) -> bool:
    """The whole dealt table on an 80x24 screen, this player's row and hand on it."""
    rows = {n for _, n in PLAYER_ROW.findall(screen)}
    whole = len(rows) >= 3 and name in rows and f"{name} (you)" in screen
    return whole and bool(HAND.search(screen))


def at_the_table(screen: str, name: str) -> bool:
    """The same in a browser, whose terminal is the page's size."""
    return f"{name} (you)" in screen and "^x Quit" in screen and bool(HAND.search(screen))


class Terminal:
    """A player at a terminal door: a command in a tmux pane, the same each time."""

    def __init__(self, tmux: Tmux, command: list[str], name: str, plain: bool) -> None:
        self.tmux, self.command, self.name, self.plain = tmux, command, name, plain
        self.sessions = 0

    def screen(self) -> str:
        """The pane's text, its history too (the plain mode's lines scroll)."""
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", f"s{self.sessions}")

    def start(self) -> None:
        self.sessions += 1
        self.tmux.start(f"s{self.sessions}", shlex.join(self.command))

    def keys(self, *keys: str) -> None:
        self.tmux.keys(f"s{self.sessions}", *keys)

    def type(self, line: str) -> None:
        """A line typed, word for word (tmux reads "end" alone as the End key)."""
        self.tmux("send-keys", "-t", f"s{self.sessions}", "-l", line)
        self.keys("Enter")

    def until(self, what: str, check: Callable[[str], object], timeout: float = 60) -> str:
        def shown() -> str:
            screen = self.screen()
            return screen if check(screen) else ""

        try:
            return until_blocking(what, shown, timeout, POLL)
        except AssertionError:
            screen = self.screen()
            raise AssertionError(f"{what}: not on the screen of {self.name}:\n{screen}") from None

    def back(self) -> bool:
        """Back in the seat (the plain mode's lines: the seat, then the game under way)."""
        screen = self.screen()
        if self.plain:
            return bool(re.search(r"You sit at .*\n(.*\n)*?Game \d+ is under way", screen))
        return seated(screen, self.name)

    def sit_and_play(self) -> str:
        """The first time: trust the certificate, make a table with three bots, play the
        first decision. The screen of the lobby, as it first showed."""
        lobby = LOBBY_PLAIN if self.plain else LOBBY
        first = self.until("the lobby or the question", lambda s: lobby.search(s) or "[y/N]" in s)
        if "[y/N]" in first:
            self.keys("y", "Enter")
            first = self.until("the lobby", lobby.search)
        if self.plain:
            self.type("create 4")
            self.until("the first decision", lambda s: re.search(r"^Choose 1", s, re.M))
            self.type("1")
            self.until("the next decision", lambda s: len(re.findall(r"^Choose 1", s, re.M)) > 1)
        else:
            self.keys("n")
            self.until("the new table's form", lambda s: "Seats (" in s and "Round cap" in s)
            self.keys("Enter")
            self.until("the dealt table", lambda s: seated(s, self.name))
            self.keys("h")
            self.until("the hint", lambda s: HINTED in s)
            self.keys("Enter")
            self.until("the move", lambda s: HINTED not in s)
        return first

    def end_game(self) -> None:
        """Vote the game to its end (the only player there: it ends), so that no bot keeps
        playing it through the runs that follow."""
        if self.plain:
            self.type("end")
            self.until("the question", lambda s: ENDING in s)
            self.type("yes")
            self.until("the table closed", lambda s: "The table was closed" in s)
        else:
            self.keys("E")
            self.until("the question", lambda s: ENDING in s)
            self.keys("y")
            self.until("the table closed", lambda s: "Final standings" in s)

    def drop(self) -> None:
        self.tmux("kill-session", "-t", f"s{self.sessions}")  # SIGHUP, as a closed window

    def again(self) -> float:
        began = time.perf_counter()
        self.start()
        until_blocking(f"{self.name} back in the seat", self.back, 60, POLL)
        return time.perf_counter() - began


def come_back(player: Terminal, host: Host) -> float:
    dropped(host, player.name, player.drop)
    try:
        took = player.again()
        player.end_game()
        return took
    finally:
        player.drop()


def terminal_run(host: Host, folder: Path, name: str, plain: bool = False) -> float:
    home = folder / name
    home.mkdir()
    env = terminal_env(home, PATH=os.environ.get("PATH", "/usr/bin:/bin"))
    if host.tls:
        env["GOTHER_PASSWORD"] = PASSWORD  # the documented way not to type it each time
    command = [str(GOTHER), "join", host.url, "--name", name, *(["--plain"] if plain else [])]
    tmux = Tmux(env)
    try:
        player = Terminal(tmux, command, name, plain)
        player.start()
        player.sit_and_play()
        return come_back(player, host)
    finally:
        tmux.kill()


def ssh_run(host: Host, folder: Path, name: str, keyed: bool) -> float:
    home = folder / name
    home.mkdir()
    askpass = home / "askpass"  # OpenSSH's way to be given a password by a program
    askpass.write_text(f"#!/bin/sh\necho {shlex.quote(PASSWORD)}\n")
    askpass.chmod(0o700)
    env = terminal_env(
        home,
        PATH=os.environ.get("PATH", "/usr/bin:/bin"),
        SSH_ASKPASS=str(askpass),
        SSH_ASKPASS_REQUIRE="force",
    )
    login = [*SSH_OPTIONS, "-p", str(host.ssh), f"{name}@127.0.0.1"]
    if keyed:  # a key of their own, which the door lists
        key = home / "key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        with (host.folder / "authorized_keys").open("a") as listed:
            listed.write(key.with_suffix(".pub").read_text())
        login = ["-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", *login]
    else:
        login = ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password", *login]
    tmux = Tmux(env)
    try:
        player = Terminal(tmux, ["ssh", *login], name, plain=False)
        player.start()
        lobby = player.sit_and_play()
        if not keyed:  # the same command from now on: with the token the first screen gave
            (token,) = set(GIVEN.findall(lobby))
            player.command = ["ssh", "-o", f"SetEnv={SSH_TOKEN_ENV}={token}", *login]
        return come_back(player, host)
    finally:
        tmux.kill()


def web_run(host: Host, browser: Browser | None, name: str) -> float:
    assert browser is not None
    url = f"https://127.0.0.1:{host.web}/"
    # the browser trusts the self-signed certificate as a player who accepted it once does
    context = browser.new_context(viewport={"width": 900, "height": 560}, ignore_https_errors=True)
    try:
        page = context.new_page()
        page.goto(url)
        page.fill("#password", PASSWORD)  # once: the door's cookie says it from then on
        page.click("button[type=submit]")
        wait_screen(page, "the name screen", "Your name at the table")
        page.keyboard.type(name)
        page.keyboard.press("Enter")
        wait_screen(page, "the lobby", "New table")
        page.keyboard.press("n")
        wait_screen(page, "the new table's form", lambda s: "Seats (" in s and "Round cap" in s)
        page.keyboard.press("Enter")
        wait_screen(page, "the dealt table", lambda s: at_the_table(s, name))
        page.keyboard.press("h")
        wait_screen(page, "the hint", HINTED)
        page.keyboard.press("Enter")
        wait_screen(page, "the move", lambda s: HINTED not in s)
        dropped(host, name, page.close)  # the tab shut: the door ends its client
        page = context.new_page()
        began = time.perf_counter()
        page.goto(url)
        wait_screen(page, "back in the seat", lambda s: at_the_table(s, name), 60)
        took = time.perf_counter() - began
        page.keyboard.press("E")  # the game voted to its end: no bot plays it on
        wait_screen(page, "the question", ENDING)
        page.keyboard.press("y")
        wait_screen(page, "the table closed", "Final standings")
        page.close()
        return took
    finally:
        context.close()


def summary(values: list[float]) -> str:
    shown = ", ".join(f"{v:.2f}" for v in values)
    return f"median {statistics.median(values):.2f} s, max {max(values):.2f} s ({shown})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--doors", nargs="+", choices=DOORS, default=list(DOORS), help="the doors to time"
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gother-bench-comeback-"))
    (folder / "club").mkdir()
    (folder / "bare").mkdir()
    times: dict[str, list[float]] = {}

    def measure(door: str, run: Callable[[int], float]) -> None:
        if door not in args.doors:
            return
        for number in range(1, args.runs + 1):
            took = run(number)
            times.setdefault(door, []).append(took)
            print(f"  {door} run {number}: {took:.2f} s", file=sys.stderr)

    with club_server(folder / "club") as club:
        players = folder / "players"
        players.mkdir()
        measure("terminal", lambda n: terminal_run(club, players, f"Term{n}"))
        measure("plain", lambda n: terminal_run(club, players, f"Plain{n}", plain=True))
        measure("ssh key", lambda n: ssh_run(club, players, f"Key{n}", keyed=True))
        measure("ssh token", lambda n: ssh_run(club, players, f"Tok{n}", keyed=False))
        with sync_playwright() as playwright:
            browser = launch(playwright) if "web" in args.doors else None
            try:
                measure("web", lambda n: web_run(club, browser, f"Web{n}"))
            finally:
                if browser is not None:
                    browser.close()
    with bare_server(folder / "bare") as bare:
        players = folder / "bare-players"
        players.mkdir()
        measure("baseline", lambda n: terminal_run(bare, players, f"Base{n}"))

    base = statistics.median(times.get("baseline", [float("nan")]))
    print(
        f"Back in the seat after a disconnect mid-game, from the same command to the seat on "
        f"the screen ({args.runs} runs each; a --tls + password server, 127.0.0.1):"
    )
    for door, values in times.items():
        ratio = "" if door == "baseline" else f"; {statistics.median(values) / base:.1f}x baseline"
        label = "baseline (terminal, ws://, no password)" if door == "baseline" else door
        print(f"  {label}: {summary(values)}{ratio}")
    print(f"(machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; logs in {folder})")


if __name__ == "__main__":
    main()
