"""Find gother servers on the LAN (mDNS `_gother._tcp.local.`), for `gother join` with no
address. zeroconf is imported only when browsing; nothing here runs in tests."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from typing import Any

SERVICE = "_gother._tcp.local."  # the same name server/edge/announce.py announces


@dataclass(frozen=True)
class Found:
    name: str
    url: str
    version: str


def found_from(info: Any) -> list[Found]:
    """The ws:// addresses one resolved ServiceInfo stands for."""
    props = {
        (k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
        for k, v in (info.properties or {}).items()
    }
    scheme = props.get("scheme") if props.get("scheme") in ("ws", "wss") else "ws"
    name = info.name.removesuffix("." + SERVICE)
    return [
        Found(name, f"{scheme}://{socket.inet_ntoa(raw)}:{info.port}", props.get("v") or "?")
        for raw in info.addresses
        if len(raw) == 4
    ]


def browse(seconds: float = 2.0) -> list[Found]:
    """Listen for announcements for `seconds`; every server found, sorted by name."""
    from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

    names: set[str] = set()

    def seen(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    zc = Zeroconf()
    try:
        browser = ServiceBrowser(zc, SERVICE, handlers=[seen])
        time.sleep(seconds)
        browser.cancel()
        found: set[Found] = set()
        for name in sorted(names):
            info = zc.get_service_info(SERVICE, name, timeout=1000)
            if info is not None:
                found.update(found_from(info))
    finally:
        zc.close()
    return sorted(found, key=lambda f: (f.name, f.url))
