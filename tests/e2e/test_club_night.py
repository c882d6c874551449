"""Issue 29 §9: a club night, the evening docs/hosting.md promises, as one test.

The host runs `gother serve --tls` with a server password, the SSH door (password only)
and the web door, each door a process of its own, as the docs say. Four people come in at
four doors: Ann with `gother join wss://…` in a terminal (she trusts the fingerprint and
types the password), Ben with `gother join wss://… --plain` (the same, by lines), Cat by
OpenSSH with the door's password and no key, Dee in Chromium. Each lobby says which
tournament is open; Ben makes a two-round one in the plain mode (his own registration
with it), the others register from their tournament screens, Ben starts it and bots fill
the short tables. Cat quits mid-game and runs the same ssh command with the token the door
gave her: she is back in her seat. After the last round each of them, at their own door,
reads a review of their last game, steps through it as their seat saw it, plays on from
it against bots, and reads the standings. Nothing asks the password or the certificate
again, and no door shows a traceback.

Everything listens on 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from protocol.constants import SSH_TOKEN_ENV as TOKEN_ENV
from tests.doors.web.browserkit import HAVE_CHROMIUM, Requests, guarded_context, launch
from tests.e2e.e2ekit import GOTHER, Tmux, accepts, free_port, gother_serve, terminal_env
from tests.e2e.playkit import Page, Pane, Screen, play_by_hint
from tests.kits.poll import until_blocking

MISSING = [name for name in ("ssh", "tmux") if shutil.which(name) is None]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}"),
    pytest.mark.skipif(not HAVE_CHROMIUM, reason="needs Debian's chromium"),
]

SERVER_PASSWORD = "club-night"
SSH_PASSWORD = "crypt-door"
LEAVE = "hosts-leave"  # the host's leave to create tournaments
NIGHT = "Club Night"
PEOPLE = ("Ann", "Ben", "Cat", "Dee")
PRINTED = re.compile(r"fingerprint (SHA256:[0-9A-F:]{95})")
WEB_LISTENING = re.compile(r"web: listening on https://127\.0\.0\.1:(\d+)")
GIVEN = re.compile(rf"{TOKEN_ENV}=([A-Za-z0-9_-]{{24}})")
YOU_ROW = re.compile(r"^\W{0,3}([1-9]) (\w+) \(you\)", re.MULTILINE)
SEAT_SAW = re.compile(r"as seat (\d) saw it")
NIGHT_TIMEOUT = 600.0  # the whole tournament, four doors played by one test, busy cores


@dataclass(frozen=True)
class Host:
    folder: Path
    port: int
    fingerprint: str
    ssh_port: int
    web_port: int

    @property
    def url(self) -> str:
        return f"wss://127.0.0.1:{self.port}"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    """The host's `gother serve`, as docs/hosting.md's unit runs it, on 127.0.0.1."""
    folder = tmp_path / "host"
    folder.mkdir(mode=0o700)
    secrets = {"password": SERVER_PASSWORD, "ssh-password": SSH_PASSWORD, "leave": LEAVE}
    for name, secret in secrets.items():
        (folder / name).write_text(secret + "\n")
        (folder / name).chmod(0o600)
    ssh_port = free_port()
    args = (
        *("--tls", "--password-file", str(folder / "password")),
        *("--ssh", str(ssh_port), "--ssh-password-file", str(folder / "ssh-password")),
        *("--web", "0", "--tournament-password-file", str(folder / "leave")),
        *("--bot-delay", "0.05"),
    )
    with gother_serve(folder, *args) as port:
        log = folder / "serve.log"
        web = until_blocking("the web door", lambda: WEB_LISTENING.search(log.read_text()))
        until_blocking("the SSH door", lambda: accepts(ssh_port))
        printed = PRINTED.search(log.read_text())
        assert printed is not None
        yield Host(folder, port, printed[1], ssh_port, int(web[1]))


class InTmux(Pane):
    """A program in an 80x24 tmux pane of the person's own terminal (their HOME)."""

    def __init__(self, name: str, tmux: Tmux, session: str, command: list[str]) -> None:
        super().__init__(name, tmux, session)
        tmux.start(session, shlex.join(command))

    def ended(self) -> bool:
        return self.tmux.pane(self.session, "pane_dead") == "1"


class PlainInTmux(InTmux):
    """The plain mode: what it said is the pane's whole history, wrapped lines joined."""

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.session).rstrip()

    def say(self, line: str) -> None:
        self.type(line)
        self.press("Enter")


def status(text: str) -> str:
    return text.splitlines()[0] if text else ""


def my_step(door: Screen) -> bool:
    """Whether the door shows a decision of its person's now."""
    text = door.screen()
    if isinstance(door, PlainInTmux):
        return bool(re.match(r"Choose 1", text.splitlines()[-1] if text else ""))
    return "You: step" in status(text)


def play_step(door: Screen) -> None:
    """The decision shown, played as the server's hint has it: option 1 in the plain mode
    (the hint is first), h then Enter on a full screen."""
    if isinstance(door, PlainInTmux):
        before = door.screen()
        door.say("1")
        door.wait("the move to be told", lambda text: len(text) > len(before) + 2)
        return
    play_by_hint(door)


def person_env(home: Path, askpass: Path | None = None) -> dict[str, str]:
    extra = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if askpass is not None:  # OpenSSH's way to be given a password by a program
        extra |= {"SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force"}
    return terminal_env(home, **extra)


def ssh_command(host: Host, name: str, token: str | None = None) -> list[str]:
    """Cat's command: the door's password, no key offered; with the token once given."""
    kept = () if token is None else ("-o", f"SetEnv={TOKEN_ENV}={token}")
    return [
        "ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password",
        *kept, "-p", str(host.ssh_port), f"{name}@127.0.0.1",
    ]  # fmt: skip


def trust_and_give_the_password(door: InTmux, host: Host, plain: bool) -> None:
    """What `gother join wss://…` asks the first time: the fingerprint, then the password."""
    asked = door.wait("the certificate question", "[y/N]")
    assert host.fingerprint in "".join(asked.split()), asked  # the one the host printed
    door.press("y", "Enter")
    door.wait("the password asked", "This server needs a password.")
    door.type(SERVER_PASSWORD)
    door.press("Enter")
    door.wait("the lobby", "You are in the lobby" if plain else "t Tournament")


def test_a_club_night_at_four_doors(host: Host, tmp_path: Path) -> None:
    began = time.monotonic()
    homes = {name: tmp_path / name.lower() for name in ("Ann", "Ben", "Cat")}
    for home in homes.values():
        home.mkdir()
    askpass = tmp_path / "askpass"
    askpass.write_text(f"#!/bin/sh\necho {shlex.quote(SSH_PASSWORD)}\n")
    askpass.chmod(0o700)
    terminals = {name: Tmux(person_env(home, askpass)) for name, home in homes.items()}
    requests = Requests()
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                night(host, terminals, browser, requests)
            except AssertionError as exc:  # what the server saw meanwhile, with what failed
                log = (host.folder / "serve.log").read_text()[-6000:]
                raise AssertionError(f"{exc}\nserve.log (end):\n{log}") from None
            finally:
                browser.close()
    finally:
        for tmux in terminals.values():
            tmux.kill()
    assert requests.seen and requests.foreign == [], requests.foreign
    log = (host.folder / "serve.log").read_text()
    assert "Traceback" not in log and "internal error" not in log, log[-4000:]
    print(f"\nthe club night took {time.monotonic() - began:.0f} s")


def night(host: Host, terminals: dict[str, Tmux], browser, requests: Requests) -> None:
    # -- four people come in, each at their own door --------------------------------------
    join = [str(GOTHER), "join", host.url]
    ann = InTmux("Ann", terminals["Ann"], "ann", [*join, "--name", "Ann"])
    ben = PlainInTmux("Ben", terminals["Ben"], "ben", [*join, "--plain", "--name", "Ben"])
    cat = InTmux("Cat", terminals["Cat"], "cat", ssh_command(host, "Cat"))
    context = guarded_context(
        browser, requests, ignore_https_errors=True, viewport={"width": 1000, "height": 600}
    )
    page = context.new_page()
    dee = Page("Dee", page)
    trust_and_give_the_password(ann, host, plain=False)
    trust_and_give_the_password(ben, host, plain=True)
    cat.wait("the lobby", "t Tournament")
    page.goto(f"https://127.0.0.1:{host.web_port}/")
    page.fill("#password", SERVER_PASSWORD)  # the web door asks the server's own
    page.click("button[type=submit]")
    page.wait_for_selector("#terminal .xterm")
    dee.wait("the name screen", "Your name at the table")
    dee.type("Dee")
    dee.press("Enter")
    dee.wait("the lobby", "t Tournament")

    # -- Ben makes the tournament; the others find it in their lobbies and register --------
    ben.say(f"tournament new 2 3 {LEAVE} {NIGHT} cap=1")
    made = ben.wait(
        "the tournament made, with him in it",
        lambda t: re.search(rf"{NIGHT} \((\w+)\): registering, 1 player", t),
    )
    tournament = made[1]
    ben.wait("himself registered", "1. Ben: 0 points")
    for door, players in ((ann, 1), (cat, 2), (dee, 3)):
        open_line = f"Tournament open: {NIGHT} (registering, {players} player"
        door.wait("the lobby to say which tournament is open", open_line, 30)
        door.press("t")
        door.wait("the open tournament listed", lambda t: tournament in t and NIGHT in t)
        door.press("Enter")
        door.wait("registered", f"Registered: {NIGHT}")
    ben.say("tournament")
    ben.wait("four registered", f"{NIGHT} ({tournament}): registering, 4 players")
    ben.say("tournament start")

    # -- two rounds; Cat quits in the first and comes back by the same command -------------
    people: list[Screen] = [ann, ben, cat, dee]
    came_back = False

    def next_to_do() -> Screen | str | None:
        """The night's end, Cat's moment to quit, or a door showing its person's decision."""
        if f"{NIGHT} is over" in ben.screen():
            return "over"
        if not came_back and "(you)" in cat.screen() and f"{NIGHT} r1" in status(cat.screen()):
            return "quit"
        return next((door for door in people if my_step(door)), None)

    while (doing := until_blocking("a decision at a door", next_to_do, NIGHT_TIMEOUT)) != "over":
        if doing == "quit":
            cat = quit_and_come_back(host, cat)
            people[2], came_back = cat, True
        else:
            assert isinstance(doing, Screen)
            play_step(doing)
    assert came_back, "Cat was never seated in round 1"

    # -- the tournament as it ended: everyone played both games, bots filled ---------------
    mark = len(ben.screen())
    ben.say("tournament")
    rows = [
        rf"\d\. {name}: [\d.]+ points?, -?\d+ Goth, 2 games$"
        for name in ("Ann", "Ben", "Cat", "Dee")
    ]

    def standings(text: str) -> str | None:  # all of it: the lines come one by one
        told = text[mark:]
        return told if all(re.search(row, told, re.M) for row in rows) else None

    final = ben.wait("the final standings, every player's line", standings)
    assert "Over after 2 rounds" in final, final
    assert re.search(r"Table \d \(\w+\): .* and \d bots?, over", final), final

    # -- each looks back from their own door ------------------------------------------------
    for door in (ann, cat, dee):
        look_back_full_screen(door)
    look_back_plain(ben)


def quit_and_come_back(host: Host, cat: InTmux) -> InTmux:
    """Cat quits mid-game (^q) and runs the same ssh command, with the token the door gave
    her once: the same seat at the same table, no key pressed."""
    seated = cat.wait("seated", lambda t: YOU_ROW.search(t) and t)
    table, seat = status(seated).split(" · ")[0], YOU_ROW.search(seated)[1]
    cat.press("C-q")
    until_blocking("Cat's ssh to end", cat.ended)
    given = set(GIVEN.findall(cat.screen()))  # told at the login, seen again now
    assert len(given) == 1, cat.screen()
    began = time.monotonic()
    again = InTmux("Cat", cat.tmux, "cat-again", ssh_command(host, "Cat", given.pop()))
    back = again.wait("back in her seat", lambda t: YOU_ROW.search(t) and t)
    took = time.monotonic() - began
    assert YOU_ROW.search(back)[1] == seat and status(back).startswith(table), back
    print(f"\nCat (ssh, password, token): back in seat {seat} of {table} {took:.1f} s after")
    return again


def look_back_full_screen(door: Screen) -> None:
    """At the last game's panel: the review (v), the game as the seat saw it (y), play on
    from it (p), then the lobby (L) and its standings and the tournament's (t)."""
    door.wait("the last game over", "WINNER", 120)
    door.press("v")
    door.wait("the review", lambda t: re.search(rf"{door.name} in game 1: \d+ decisions?", t))
    door.press("v")
    door.wait("the panel again", "WINNER")
    door.press("y")
    seen = door.wait(
        "the replay as the seat saw it, drawn whole",
        lambda t: SEAT_SAW.search(t) and YOU_ROW.search(t) and "p Play on" in t and t,
    )
    table, seat = status(seen).split(" · ")[0], SEAT_SAW.search(seen)[1]
    assert re.search(rf"share: wss://127\.0\.0\.1:\d+/\w+/1#seat{seat}-turn1", seen), seen
    assert YOU_ROW.search(seen).groups() == (seat, door.name), seen
    door.press("p")
    played_on = door.wait(
        "a game played on from that turn, against bots",
        lambda t: status(t).startswith(f"{table}, turn 1 · ") and YOU_ROW.search(t) and t,
    )
    assert YOU_ROW.search(played_on)[1] == seat, played_on
    assert played_on.count("⚙") == 2, played_on  # the two others are bots
    door.press("L")
    door.wait("asked to leave the practice game", "Leave the game?")
    door.press("y")
    door.wait("the lobby", "t Tournament")
    door.wait(  # the host's standings, the top five under the tables
        "the standings", lambda t: "Standings" in t and all(n in t for n in PEOPLE) and t
    )
    door.press("t")
    door.wait("the tournament's standings", "Over after 2 rounds")


def look_back_plain(ben: PlainInTmux) -> None:
    """The same by lines: review, replay, play on, standings."""
    mark = len(ben.screen())

    def since(text: str) -> str:
        return text[mark:]

    ben.say("review")
    ben.wait("the review", lambda t: re.search(r"Ben in game 1: \d+ decisions?", since(t)))
    ben.say("replay")
    ben.wait("the replay", lambda t: re.search(r"as seat \d saw it: turn 1 of", since(t)))
    ben.say("play on")
    ben.wait("a game played on", lambda t: re.search(r"Playing on from turn 1 of", since(t)))
    mark = len(ben.screen())
    ben.say("standings")
    rows = {  # rank, name, rating give or take its spread, then games: 2 each, the night's
        n: rf"^\d+ +{n} +\d+ give or take \d+ +(\d+) " for n in PEOPLE
    }
    listed = ben.wait(
        "the host's standings",
        lambda t: all(re.search(row, since(t), re.M) for row in rows.values()) and since(t),
    )
    assert {re.search(row, listed, re.M)[1] for row in rows.values()} == {"2"}, listed
    assert "Traceback" not in ben.screen(), listed
