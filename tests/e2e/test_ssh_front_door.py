"""End to end through `gother serve --ssh`: a real `gother serve` with its SSH front door on
127.0.0.1 (a fresh host key, one authorized client key, both in a temp dir), and the system
`ssh -p PORT Raven@127.0.0.1` in an 80x24 tmux session on a private socket. The client
opens on the lobby; Enter joins the table, and the screen tmux shows must be the dealt table.

Everything listens on 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.e2e.e2ekit import (
    HAND,
    PLAYER_ROW,
    Tmux,
    accepts,
    create_table,
    free_port,
    gother_serve,
    terminal_env,
)
from tests.kits.poll import until_blocking

MISSING = [name for name in ("ssh", "ssh-keygen", "tmux") if shutil.which(name) is None]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(MISSING), reason=f"needs the OpenSSH client and tmux; missing: {', '.join(MISSING)}"
    ),
]
T = TypeVar("T")


def test_ssh_to_the_front_door_reaches_the_dealt_table(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    key = keys / "client_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    authorized = keys / "authorized_keys"
    authorized.write_text(key.with_suffix(".pub").read_text())
    ssh_port = free_port()
    serve_args = (
        *("--ssh", str(ssh_port), "--ssh-authorized-keys", str(authorized)),
        *("--ssh-host-key", str(keys / "host_key"), "--bot-delay", "0.05"),
    )
    with gother_serve(tmp_path, *serve_args) as port:
        log = tmp_path / "serve.log"
        until_blocking("the SSH front door to listen", lambda: accepts(ssh_port))
        assert "ssh: listening on ssh://127.0.0.1" in log.read_text(), log.read_text()
        create_table(port, "Front Door", seats=3, bots=2)

        home = tmp_path / "home"
        home.mkdir()
        ssh = [
            "ssh", "-tt", "-i", str(key), "-F", "/dev/null",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
            "-p", str(ssh_port), "Raven@127.0.0.1",
        ]  # fmt: skip
        # a fresh HOME for the ssh client (no config or keys of the runner's), this PATH
        tmux = Tmux(terminal_env(home, PATH=os.environ.get("PATH", "/usr/bin:/bin")))
        try:
            tmux.start("main", shlex.join(ssh))

            def shown(*needles: str) -> str | None:
                text = tmux.screen("main")
                return text if all(n in text for n in needles) else None

            def table_shown() -> str | None:
                """The whole dealt table: every row, the hand and the player's own mark (a
                screen caught mid-draw may have some of it only)."""
                text = tmux.screen("main")
                rows = PLAYER_ROW.findall(text)
                whole = len(rows) >= 3 and ("1", "Raven") in rows and "Raven (you)" in text
                return text if whole and HAND.search(text) else None

            def expect(what: str, check: Callable[[], T | None]) -> T:
                try:
                    return until_blocking(what, check)
                except AssertionError:
                    raise AssertionError(
                        f"timed out waiting for {what}; screen was:\n{tmux.screen('main')}\n"
                        f"serve.log:\n{log.read_text()}"
                    ) from None

            # wait for all of the lobby asserted on: its header (with the player's name) may
            # be drawn after the table list on a busy machine
            expect("the lobby over ssh", lambda: shown("Front Door", "Enter joins", "Raven"))
            tmux.keys("main", "Enter")
            screen = expect("the dealt table over ssh", table_shown)

            rows = PLAYER_ROW.findall(screen)
            assert sorted(seat for seat, _ in rows)[:3] == ["1", "2", "3"], rows
            assert ("1", "Raven") in rows, rows  # the seat taken by the SSH user
            assert "Raven (you)" in screen, screen
            lines = screen.splitlines()
            assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        finally:
            tmux.kill()
