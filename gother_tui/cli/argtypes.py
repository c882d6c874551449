"""What a command-line argument may be: argparse types that ask the protocol (names, bot
kinds, seat and round-cap ranges) instead of restating its limits."""

from __future__ import annotations

import argparse
import ipaddress
import os
from collections.abc import Callable
from urllib.parse import urlsplit

from gother_tui.core.address import address_problem
from protocol import ProtocolError
from protocol.constants import BOT_NAMES, HOUSE_SEATS, ROUND_CAPS, SEATS, TRAITS
from protocol.fields import NAME


def whole_number(
    low: int, high: int | None, out_of_range: str, noun: str = "whole number"
) -> Callable[[str], int]:
    """An argparse type: an int in low..high, else `out_of_range` (formatted with the
    value) as the error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {noun}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(out_of_range.format(value))
        return value

    return parse


LAST_SEAT = SEATS.stop - 1
positive = whole_number(1, None, "must be at least 1, got {}")
port = whole_number(0, 65535, "port must be 0-65535, got {}", noun="port number")
play_players = whole_number(  # 2 or 6 only with --two-or-six: run_play checks it
    HOUSE_SEATS.start,
    HOUSE_SEATS.stop - 1,
    f"the game is for {SEATS.start}-{LAST_SEAT} players, got {{}} "
    f"({HOUSE_SEATS.start} or {HOUSE_SEATS.stop - 1} only with --two-or-six)",
)
round_cap = whole_number(
    ROUND_CAPS.start,
    ROUND_CAPS.stop - 1,
    f"a round cap is {ROUND_CAPS.start} to {ROUND_CAPS.stop - 1}, got {{}}",
)


def bot_list(text: str) -> list[str]:
    """BOT[,BOT…], each a bot name with, or without, a trait after a colon (hard:steady)."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k.partition(":")[0] not in BOT_NAMES]
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot kind {', '.join(unknown) or '(none)'}; choose from {', '.join(BOT_NAMES)}"
        )
    traitless = [k for k in kinds if ":" in k and k.partition(":")[2] not in TRAITS]
    if traitless:
        raise argparse.ArgumentTypeError(
            f"unknown bot trait in {', '.join(traitless)}; choose from {', '.join(TRAITS)}"
        )
    return kinds


def player_name(text: str) -> str:
    """A name as the server takes it in `hello` (the protocol's NAME check), tidied."""
    try:
        return str(NAME(text, "name"))
    except ProtocolError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def default_name() -> str:
    try:
        return player_name(os.environ.get("USER", ""))
    except argparse.ArgumentTypeError:
        return "Player"


def web_origin(text: str) -> str:
    """http(s)://HOST[:PORT], as a browser names the page's origin."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
        raise argparse.ArgumentTypeError(f"{text!r}: give http(s)://HOST[:PORT]")
    return f"{parts.scheme}://{parts.netloc}"


def ip_address(text: str) -> str:
    """An IP address (v4 or v6), as a socket gives it."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give an IP address") from None


def ws_url(text: str) -> str:
    problem = address_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return text
