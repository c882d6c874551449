"""Hosts a test makes for itself: network namespaces joined by a veth pair, with private
addresses, and a way to open sockets inside one from the test's own process.

Nothing leaves the namespaces: the veth pair is their only link, and they are deleted on
the way out, whatever happened. Needs root and iproute2 (`ip netns`), as CI has; a test
module marks itself `needs_netns`, and a machine where root may not make a namespace (a
container without CAP_SYS_ADMIN) skips it with the reason."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

needs_netns = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="network namespaces need root and iproute2 (`ip`)",
)

SUBNET = "10.213.{}.{}"  # private, and only ever inside the test's namespaces
CLONE_NEWNET = 0x40000000  # <sched.h>: setns() into a network namespace


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@dataclass(frozen=True)
class Host:
    netns: str
    address: str
    link: str  # its end of the veth pair

    def command(self, *args: str) -> list[str]:
        return ["ip", "netns", "exec", self.netns, *args]

    def another_address(self, last: int) -> str:
        """A second address on this host's link, `last` its last byte (a player's machine
        beside it, as the test counts: connections from it are told apart by address)."""
        address = self.address.rsplit(".", 1)[0] + f".{last}"
        ip("-n", self.netns, "addr", "add", f"{address}/24", "dev", self.link)
        return address


@contextmanager
def two_hosts() -> Iterator[tuple[Host, Host]]:
    """Two namespaces on one private /24 (addresses .1 and .2), linked by a veth pair;
    torn down on the way out."""
    tag = uuid.uuid4().hex[:6]
    net = int(tag[:2], 16)
    ends = (f"gt{tag}a", f"gt{tag}b")  # interface names: at most 15 characters
    hosts = tuple(
        Host(f"gt-{tag}-{side}", SUBNET.format(net, n), end)
        for n, side, end in ((1, "a", ends[0]), (2, "b", ends[1]))
    )
    made: list[str] = []
    try:
        for host in hosts:
            try:
                ip("netns", "add", host.netns)
            except subprocess.CalledProcessError as exc:
                said = exc.stderr.lower()
                if b"not permitted" in said or b"permission denied" in said:
                    pytest.skip(f"`ip netns add` is not permitted here: {exc.stderr.decode()}")
                raise
            made.append(host.netns)
        ip("link", "add", ends[0], "type", "veth", "peer", "name", ends[1])
        for host in hosts:
            ip("link", "set", host.link, "netns", host.netns)
            ip("-n", host.netns, "addr", "add", f"{host.address}/24", "dev", host.link)
            ip("-n", host.netns, "link", "set", host.link, "up")
            ip("-n", host.netns, "link", "set", "lo", "up")
        yield hosts[0], hosts[1]
    finally:
        for netns in made:  # deleting a namespace deletes its end of the pair too
            subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=30)


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


@contextmanager
def inside(host: Host) -> Iterator[None]:
    """This thread in `host`'s namespace, back in its own on the way out: every socket
    opened meanwhile is `host`'s, and stays so (a socket keeps the namespace it was made
    in), so a client made here may be used after."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    there = os.open(f"/run/netns/{host.netns}", os.O_RDONLY)
    try:
        _setns(there)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(there)
        os.close(home)
