"""A server's address, as `gother join` and the start menu take it: ws:// or wss://."""

from __future__ import annotations

from urllib.parse import urlsplit

from protocol.constants import DEFAULT_PORT

EXAMPLE = f"ws://192.168.1.20:{DEFAULT_PORT}"


def address_problem(text: str) -> str | None:
    """Why `text` is not a ws:// or wss:// server address, or None when it is one."""
    if not text.startswith(("ws://", "wss://")):
        return f"an address starts with ws:// (or wss://), like {EXAMPLE}"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (ValueError when the port is not a number 0-65535)
    except ValueError:
        return "the port must be a number from 0 to 65535"
    if not parts.hostname:
        return "the address names no host"
    return None
