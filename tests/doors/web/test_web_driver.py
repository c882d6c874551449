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
from tests.kits.poll import until_blocking

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


TWO_READERS = """
import sys
from pathlib import Path
from textual.app import App
from textual.drivers._input_reader_linux import InputReader

heard = Path(sys.argv[1])

class Quick(App[None]):
    def on_mount(self) -> None:
        self.exit()

class Counts(App[None]):
    keys = 0

    def on_mount(self) -> None:
        heard.write_text("0")

    def on_key(self) -> None:
        self.keys += 1
        heard.write_text(str(self.keys))
        if self.keys == 5:
            self.exit()

close = InputReader.close
InputReader.close = lambda self: None  # the first app's reader outlives it, as the replay's did
Quick().run()
InputReader.close = close
Counts().run()
"""


def test_the_next_app_of_the_process_reads_every_key_though_the_last_ones_reader_lived_on(
    tmp_path: Path,
):
    heard = tmp_path / "heard"
    env = client_env({**os.environ}, tmp_path, 80, 24)
    client = subprocess.Popen(
        [sys.executable, "-c", TWO_READERS, str(heard)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert client.stdin is not None
    try:
        for n in range(5):  # one key at a time, each once the app has counted the one before
            until_blocking(
                f"{n} keys counted", lambda n=n: heard.exists() and heard.read_text() == str(n), 20
            )
            client.stdin.write(b"D" + (1).to_bytes(4, "big") + b"x")
            client.stdin.flush()
        assert client.wait(20) == 0
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
