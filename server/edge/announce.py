"""LAN announcement (mDNS, `_gother._tcp.local.`) so `gother join` with no address finds us.

Only when the server listens on a non-loopback address, and only on that interface (on
every non-loopback interface for 0.0.0.0 / ::); never with `--no-announce`. A server on
127.0.0.1, as in every test, sends nothing at all. zeroconf is imported only to announce.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass
from typing import Any

from protocol.version import software_version

log = logging.getLogger("gother.announce")
SERVICE = "_gother._tcp.local."


@dataclass(frozen=True)
class Plan:
    """What would be announced: the service's addresses and the interfaces to send on."""

    addresses: tuple[str, ...]
    port: int
    scheme: str  # ws | wss
    name: str

    @property
    def interfaces(self) -> list[str]:
        return list(self.addresses)


def plan(host: str, port: int, tls: bool = False, enabled: bool = True) -> Plan | None:
    """None when nothing may be announced: disabled, loopback, or no LAN address."""
    if not enabled:
        return None
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # a host name: announce what it stands for, if it is not loopback
        try:
            ip = ipaddress.ip_address(socket.gethostbyname(host))
        except (OSError, ValueError):
            return None
    if ip.is_loopback or ip.version != 4:
        return None
    addresses = (str(ip),) if not ip.is_unspecified else _lan_addresses()
    if not addresses:
        return None
    return Plan(addresses, port, "wss" if tls else "ws", f"gother on {socket.gethostname()}")


def _lan_addresses() -> tuple[str, ...]:
    import ifaddr  # installed with zeroconf

    found = []
    for adapter in ifaddr.get_adapters():
        for address in adapter.ips:
            if isinstance(address.ip, str) and not ipaddress.ip_address(address.ip).is_loopback:
                found.append(address.ip)
    return tuple(found)


def service_info(p: Plan) -> Any:  # zeroconf.ServiceInfo
    from zeroconf import ServiceInfo

    host = socket.gethostname().split(".")[0] or "gother"
    return ServiceInfo(
        SERVICE,
        f"{p.name}.{SERVICE}",
        addresses=[socket.inet_aton(a) for a in p.addresses],
        port=p.port,
        properties={"v": software_version(), "scheme": p.scheme},
        server=f"{host}.local.",
    )


class Announcer:
    def __init__(self, p: Plan, zeroconf_class: Any = None) -> None:
        self.plan = p
        self.info = service_info(p)
        self.zeroconf_class = zeroconf_class
        self.zc: Any = None

    async def start(self) -> None:
        if self.zeroconf_class is None:
            from zeroconf.asyncio import AsyncZeroconf

            self.zeroconf_class = AsyncZeroconf
        self.zc = self.zeroconf_class(interfaces=self.plan.interfaces)
        await self.zc.async_register_service(self.info)
        log.info("announcing %s on %s", SERVICE, ", ".join(self.plan.addresses))

    async def close(self) -> None:
        if self.zc is not None:
            await self.zc.async_unregister_service(self.info)
            await self.zc.async_close()
            self.zc = None


async def announce(
    host: str, port: int, tls: bool, enabled: bool, zeroconf_class: Any = None
) -> Announcer | None:
    """Start announcing when `plan` allows it; returns the announcer to close, or None."""
    p = plan(host, port, tls, enabled)
    if p is None:
        why = "--no-announce" if not enabled else f"{host} is not a LAN address"
        log.info("not announcing on the LAN: %s", why)
        return None
    announcer = Announcer(p, zeroconf_class)
    await announcer.start()
    return announcer
