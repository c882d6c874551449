"""End to end over a real OpenSSH: a private `sshd` on 127.0.0.1 (its own config, host key
and authorized_keys in a temp dir), a real `gother serve`, and `ssh -tt … gother join` in an
80x24 tmux session on a private socket. The screen tmux shows must be the dealt table.

Everything listens on 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.e2ekit import (
    GOTHER,
    HAND,
    PLAYER_ROW,
    Tmux,
    accepts,
    create_table,
    free_port,
    gother_serve,
    stop,
)
from tests.kits.poll import until_blocking

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
MISSING = [name for name, path in (("sshd", SSHD), *((n, shutil.which(n)) for n in (
    "ssh", "ssh-keygen", "tmux"))) if path is None]  # fmt: skip
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(MISSING), reason=f"needs OpenSSH server/client and tmux; missing: {', '.join(MISSING)}"
    ),
]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A private sshd on 127.0.0.1:PORT; yields (port, client private key)."""
    d = tmp_path / "sshd"
    d.mkdir()
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation dir
    for key in ("host_key", "client_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)], check=True
        )
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    port = free_port()
    config = d / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\nPidFile {d / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin yes\n"
        "PermitUserEnvironment no\nX11Forwarding no\nAllowTcpForwarding no\n"
    )
    log = (d / "sshd.log").open("w")
    proc = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config), "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        until_blocking("sshd to listen", lambda: proc.poll() is not None or accepts(port), 20)
        assert proc.poll() is None, (d / "sshd.log").read_text()
        yield port, d / "client_key"
    finally:
        stop(proc)
        log.close()


@pytest.fixture
def gother_server(tmp_path: Path) -> Iterator[int]:
    """`gother serve` on 127.0.0.1, port 0; yields the port it logged."""
    with gother_serve(tmp_path, "--bot-delay", "0.05") as port:
        yield port


def test_join_over_a_real_ssh_session_shows_the_dealt_table(sshd, gother_server, tmp_path):
    ssh_port, key = sshd
    table = create_table(gother_server, "Over SSH", seats=3, bots=2)
    home = tmp_path / "home"  # fresh HOME: no saved seat, no config of the runner's
    home.mkdir()
    remote = (
        f"cd {shlex.quote(str(ROOT))}"
        f" && TERM=xterm-256color HOME={shlex.quote(str(home))} LANG=C.UTF-8"
        f" {shlex.quote(str(GOTHER))} join ws://127.0.0.1:{gother_server}"
        f" --name Ssh --table {shlex.quote(table)}"
    )
    ssh = [
        "ssh", "-tt", "-i", str(key), "-F", "/dev/null",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
        "-p", str(ssh_port), "root@127.0.0.1", remote,
    ]  # fmt: skip
    tmux = Tmux()
    try:
        tmux.start("main", shlex.join(ssh))

        def table_shown() -> str | None:
            text = tmux.screen("main")
            return text if len(PLAYER_ROW.findall(text)) >= 3 and HAND.search(text) else None

        try:
            screen = until_blocking("the table over ssh", table_shown)
        except AssertionError:
            raise AssertionError("screen was:\n" + tmux.screen("main")) from None
        rows = PLAYER_ROW.findall(screen)
        assert sorted(seat for seat, _ in rows)[:3] == ["1", "2", "3"]
        assert ("1", "Ssh") in rows, rows  # this seat, by the name given on the ssh command
        assert "(you)" in screen
        lines = screen.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    finally:
        tmux.kill()
