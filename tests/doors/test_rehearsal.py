"""A zygote's rehearsal (gother_tui/zygote/rehearsal.py), in a process of its own: the client
reaches the lobby, and leaves nothing behind that a child would inherit but what it
built: no file in any of its folders, no thread, no signal handler, no replaced stream,
no log handler, no wakeup fd."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gother_tui.core.identity import ClientKey
from gother_tui.zygote.rehearsal import EmptyLobby, rehearse
from protocol import Request
from protocol import requests as rq
from protocol.constants import CHALLENGE_BYTES
from tests.kits.sshkit import SCREEN_TIMEOUT

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
REHEARSED = """
import logging, signal, sys, threading
from gother_tui.zygote.rehearsal import rehearse

def state():
    handlers = {s: signal.getsignal(s) for s in signal.Signals}
    return handlers, (sys.stdin, sys.stdout, sys.stderr), list(logging.root.handlers)

before = state()
rehearse()
assert state() == before, "left behind: a handler, a stream or a log handler"
assert threading.active_count() == 1, threading.enumerate()
assert signal.set_wakeup_fd(-1) == -1
print("rehearsed")
"""


def test_a_rehearsal_reaches_the_lobby_and_leaves_nothing_behind(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    folders = {f"XDG_{n}_HOME": str(home / n) for n in ("STATE", "CONFIG", "CACHE", "DATA")}
    ran = subprocess.run(
        [sys.executable, "-c", REHEARSED],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmp_path), **folders},
        capture_output=True,
        text=True,
        timeout=SCREEN_TIMEOUT,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "rehearsed\n"
    assert list(home.iterdir()) == [] and list(tmp_path.iterdir()) == [home]


def test_a_rehearsal_proves_its_identity_and_asks_the_standings(monkeypatch):
    """As a door's session does on its way to the lobby: its key read back and the
    challenge signed (OpenSSL's start-up, then, is in the pages every child shares)."""
    signed: list[bytes] = []
    asked: list[type[Request]] = []
    sign, send = ClientKey.sign, EmptyLobby.send

    def signing(key: ClientKey, challenge: bytes) -> bytes:
        signed.append(challenge)
        return sign(key, challenge)

    async def sending(lobby: EmptyLobby, request: Request) -> None:
        asked.append(type(request))
        await send(lobby, request)

    monkeypatch.setattr(ClientKey, "sign", signing)
    monkeypatch.setattr(EmptyLobby, "send", sending)
    rehearse()
    assert signed == [bytes(CHALLENGE_BYTES)]
    assert asked[:2] == [rq.Hello, rq.Prove]
    assert {rq.List, rq.Standings} <= set(asked)
