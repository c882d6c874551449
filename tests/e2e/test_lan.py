"""LAN discovery over real mDNS, between two hosts this test makes: two network namespaces
joined by a veth pair, with private addresses. `gother serve` announces in one; `gother
join` with no address, in the other, must hear it. Nothing leaves the namespaces: the veth
pair is their only link, and both are deleted at the end.

Needs root and iproute2 (`ip netns`), as CI has; skipped with the reason otherwise.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.e2e.e2ekit import GOTHER, gother_serve
from tests.e2e.netnskit import Host, needs_netns, two_hosts
from tests.kits.poll import until_blocking

pytestmark = [pytest.mark.slow, needs_netns]

ANNOUNCED = "announcing _gother._tcp"  # server/edge/announce.py's log line once it announces


def listing(host: Host) -> subprocess.CompletedProcess[str]:
    """`gother join` with no address in `host`: it listens for two seconds, then lists."""
    return subprocess.run(
        host.command(str(GOTHER), "join"),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_server_on_the_lan_is_found_from_another_host(tmp_path):
    log = tmp_path / "serve.log"
    with (
        two_hosts() as (server_host, player_host),
        gother_serve(tmp_path, host=server_host.address, prefix=server_host.command()) as port,
    ):
        until_blocking("the announcement", lambda: ANNOUNCED in log.read_text())
        found = listing(player_host)
    assert found.returncode == 0, found.stderr
    assert f"ws://{server_host.address}:{port}" in found.stdout


@pytest.mark.parametrize(
    ("on_loopback", "args"),
    [(True, []), (False, ["--no-announce"])],
    ids=["loopback-never-announces", "no-announce"],
)
def test_a_server_that_must_not_announce_is_not_found(tmp_path, on_loopback, args):
    with two_hosts() as (server_host, player_host):
        host = "127.0.0.1" if on_loopback else server_host.address
        with gother_serve(tmp_path, *args, host=host, prefix=server_host.command()):
            found = listing(player_host)
            assert ANNOUNCED not in (tmp_path / "serve.log").read_text()
    assert found.returncode == 1 and "none found" in found.stderr
    assert "ws://" not in found.stdout
