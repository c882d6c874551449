"""At the web door one client process runs several apps in turn (the client, the replay
asked at game over, the client again): what it writes on stdout must stay one stream the
door's AppService reads, its prelude line once, then packets to the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gother_tui.tui.web_driver import PRELUDE
from server.doors.web.child import client_env

TWO_APPS = """
from textual.app import App

class Quick(App[None]):
    def on_mount(self) -> None:
        self.exit()

for _ in range(2):
    Quick().run()
"""


def packets(stream: bytes) -> list[tuple[bytes, bytes]]:
    """The packets after the prelude, as textual-serve's AppService reads them: a type
    byte, a 4-byte big-endian size, the payload."""
    assert stream.startswith(PRELUDE), stream[:40]
    rest, found = stream[len(PRELUDE) :], []
    while rest:
        kind, size = rest[:1], int.from_bytes(rest[1:5], "big")
        assert kind in (b"D", b"M", b"P"), f"not a packet: {rest[:40]!r}"
        found.append((kind, rest[5 : 5 + size]))
        rest = rest[5 + size :]
    return found


def test_two_apps_in_one_client_process_say_the_prelude_once_then_only_packets(tmp_path: Path):
    # AppService's own environment names Textual's driver: the door's client gets ours
    serve = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}
    env = client_env(serve, tmp_path, 80, 24)
    done = subprocess.run(
        [sys.executable, "-c", TWO_APPS],
        stdin=subprocess.PIPE,  # a pipe, as the door's: the driver reads it
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    metas = [json.loads(payload) for kind, payload in packets(done.stdout) if kind == b"M"]
    assert [m["type"] for m in metas].count("exit") == 2  # both apps were heard to the end
