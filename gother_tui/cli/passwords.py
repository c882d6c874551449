"""Passwords given to a command. A flag's value sits in the process's command line, which
every local user can read (`ps`, /proc/*/cmdline), so each password can also come from a
file (`--password-file FILE`) or the environment (`GOTHER_PASSWORD`).

Which wins: the command line (the value or its file: never both) over the environment.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import ProtocolError
from protocol.checks import read
from protocol.constants import TOURNAMENT_PLAYERS, TOURNAMENT_ROUNDS, TOURNAMENTS_LIVE
from protocol.fields import Password


@dataclass(frozen=True)
class Secret:
    flag: str  # "--password"; its file is "--password-file"
    env: str
    help: str
    wire: bool = True  # sent in a request, so it must be a password the protocol takes

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def file_flag(self) -> str:
        return f"{self.flag}-file"


SERVER = Secret("--password", "GOTHER_PASSWORD", "players must give it to connect")
SSH = Secret(
    "--ssh-password",
    "GOTHER_SSH_PASSWORD",
    "let in anyone with this password; no key without it",
    wire=False,
)
WEB = Secret(
    "--web-password",
    "GOTHER_WEB_PASSWORD",
    "asked on a page before any browser session starts (default: the server's password)",
)
TOURNAMENT = Secret(
    "--tournament-password",
    "GOTHER_TOURNAMENT_PASSWORD",
    "the host's leave to create tournaments: whoever gives it may run one (none without; "
    f"at most {TOURNAMENTS_LIVE} at once, {TOURNAMENT_PLAYERS} players and "
    f"{TOURNAMENT_ROUNDS} rounds each)",
)
CLIENT = Secret(
    "--password",
    "GOTHER_PASSWORD",
    "the table's (or the server's) password; without it, the server's is asked when needed",
)
HOST = Secret("--password", "GOTHER_PASSWORD", "the server's password, if it has one")
BOT = Secret("--password", "GOTHER_PASSWORD", "the table's password")


def add_secret(parser: Any, secret: Secret) -> None:
    """`secret`'s flag and its -file flag (one or the other) on `parser` or an argument
    group."""
    either = parser.add_mutually_exclusive_group()
    either.add_argument(
        secret.flag,
        metavar="SECRET",
        help=f"{secret.help} (visible in `ps`: prefer {secret.file_flag} or ${secret.env})",
    )
    either.add_argument(
        secret.file_flag,
        metavar="FILE",
        help=f"read {secret.flag} from FILE (one line); else ${secret.env} is used if set",
    )


def read_secret(
    args: argparse.Namespace, parser: argparse.ArgumentParser, secret: Secret
) -> str | None:
    """The password: the flag's value, else its file's line, else the environment's; None
    when none is given. A bad one is a usage error."""
    value: str | None = getattr(args, secret.dest)
    path: str | None = getattr(args, f"{secret.dest}_file")
    where = secret.flag
    if value is not None:
        print(
            f"gother: {secret.flag} on the command line can be read by every user of this "
            f"machine; {secret.file_flag} or ${secret.env} keep it private",
            file=sys.stderr,
        )
    elif path is not None:
        value, where = _read_file(parser, secret, path), f"{secret.file_flag} {path}"
    else:
        value, where = os.environ.get(secret.env) or None, f"${secret.env}"
    if value is not None and secret.wire:
        try:
            read(Password, value, "password")
        except ProtocolError as exc:
            parser.error(f"{where}: {exc.message}")
    return value


def _read_file(parser: argparse.ArgumentParser, secret: Secret, path: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"{secret.file_flag} {path}: {exc}")
    if not text or "\n" in text:
        parser.error(f"{secret.file_flag} {path}: must hold the password on one line")
    return text
