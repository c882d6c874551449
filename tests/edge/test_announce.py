"""LAN announcement decisions (server/edge/announce.py). Nothing here touches the network: a
real Zeroconf is never made; a fake class records what would have been announced."""

from __future__ import annotations

import socket
from typing import Any, ClassVar

import pytest

from gother_tui.cli import build_parser
from server.edge.announce import SERVICE, Announcer, announce, plan, service_info


class FakeZeroconf:
    made: ClassVar[list[FakeZeroconf]] = []

    def __init__(self, interfaces: Any) -> None:
        self.interfaces = interfaces
        self.registered: list[Any] = []
        self.unregistered: list[Any] = []
        self.closed = False
        FakeZeroconf.made.append(self)

    async def async_register_service(self, info: Any) -> None:
        self.registered.append(info)

    async def async_unregister_service(self, info: Any) -> None:
        self.unregistered.append(info)

    async def async_close(self) -> None:
        self.closed = True


@pytest.fixture(autouse=True)
def fresh_fake():
    FakeZeroconf.made = []


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.1", "::1", "localhost"])
async def test_loopback_is_never_announced(host):
    assert plan(host, 8765) is None
    assert await announce(host, 8765, False, True, zeroconf_class=FakeZeroconf) is None
    assert FakeZeroconf.made == []


async def test_no_announce_means_none_even_on_a_lan_address():
    assert plan("192.168.1.20", 8765, enabled=False) is None
    assert await announce("192.168.1.20", 8765, False, False, zeroconf_class=FakeZeroconf) is None
    assert FakeZeroconf.made == []


async def test_a_lan_address_is_announced_on_that_interface_only():
    announcer = await announce("192.168.1.20", 8765, False, True, zeroconf_class=FakeZeroconf)
    assert isinstance(announcer, Announcer)
    [zc] = FakeZeroconf.made
    assert zc.interfaces == ["192.168.1.20"]
    assert [info.type for info in zc.registered] == [SERVICE]
    await announcer.close()
    assert zc.unregistered == zc.registered and zc.closed


def test_service_info_carries_address_port_and_scheme():
    p = plan("10.0.0.7", 9000, tls=True)
    assert p is not None and p.addresses == ("10.0.0.7",)
    info = service_info(p)
    assert info.type == SERVICE
    assert info.name.endswith("." + SERVICE)
    assert info.port == 9000
    assert info.addresses == [socket.inet_aton("10.0.0.7")]
    assert info.properties[b"scheme"] == b"wss"
    assert info.properties[b"v"]


def test_serve_has_no_announce_flag():
    assert build_parser().parse_args(["serve", "--no-announce"]).no_announce is True
    assert build_parser().parse_args(["serve"]).no_announce is False


def test_what_is_announced_is_what_join_lists():
    from gother_tui.core.discovery import found_from

    p = plan("10.0.0.7", 9000)
    assert p is not None
    [found] = found_from(service_info(p))
    assert found.url == "ws://10.0.0.7:9000"
    assert found.name == p.name
