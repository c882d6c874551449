"""What the command line knows of a door (`gother serve --KIND PORT …`, `gother door
KIND`): its options, and how they become the fields of the door's own options
(server/doors/kinds.py makes those of them, on the server's side)."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gother_tui.cli import server_side

Fields = dict[str, Any]  # a door's options by field name, as server/doors/kinds.py takes them


@dataclass(frozen=True)
class CliDoor:
    name: str  # its kind: `--NAME PORT` serves it, `gother door NAME` runs it alone
    what: str  # one line, for `gother door`'s help
    add_options: Callable[[argparse.ArgumentParser], None]  # its group: --NAME, --NAME-…
    # its fields from the parsed arguments, given the server's password (None: not asked
    # for; a bad combination is a parser.error)
    options: Callable[[argparse.Namespace, argparse.ArgumentParser, str | None], Fields | None]
    add_alone: Callable[[argparse.ArgumentParser], None] = lambda parser: None  # `gother door`'s


def data_dir_of(args: argparse.Namespace) -> Path:
    """Where the doors keep their players' state: a door's --data-dir, else beside the
    server's database (or the user data folder)."""
    chosen = getattr(args, "data_dir", None)
    return Path(chosen) if chosen else server_side.default_data_dir(args.db)


def loopback(host: str) -> bool:
    """Whether `host` is reached from this machine only."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
