"""The SSH door's command-line options (server/doors/ssh.py is the door)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gother_tui.cli import argtypes
from gother_tui.cli.doors.door import CliDoor, Fields, data_dir_of
from gother_tui.cli.passwords import SSH, add_secret, read_secret


def add_options(parser: argparse.ArgumentParser) -> None:
    ssh = parser.add_argument_group("SSH front door: `ssh -p PORT NAME@HOST` opens the client")
    ssh.add_argument("--ssh", type=argtypes.port, metavar="PORT", help="serve SSH on this port")
    ssh.add_argument("--ssh-host-key", help="host key file (default: made under the data dir)")
    ssh.add_argument(
        "--ssh-authorized-keys",
        metavar="FILE",
        help="let in these keys (with --ssh-password: these keys need no password)",
    )
    add_secret(ssh, SSH)
    ssh.add_argument(
        "--ssh-open",
        action="store_true",
        help="let in any SSH key at all (one of these three access rules is required)",
    )
    # Each session is a client process of about 45 MB: caps like OpenSSH's MaxSessions
    # and MaxStartups (server/doors/ssh.py's SshLimits has the same defaults).
    for flag, default, what in (
        ("--ssh-max-sessions", 32, "SSH sessions at once, in all"),
        ("--ssh-sessions-per-address", 8, "sessions from one address"),
        ("--ssh-sessions-per-key", 3, "sessions with one key"),
        ("--ssh-sessions-per-connection", 2, "sessions on one SSH connection"),
        ("--ssh-max-startups", 10, "connections still logging in (3 from one address)"),
    ):
        ssh.add_argument(
            flag,
            type=argtypes.positive,
            default=default,
            metavar="N",
            help=f"at most N {what}; one more is told it is full (default {default})",
        )


def options(
    args: argparse.Namespace, parser: argparse.ArgumentParser, server_password: str | None
) -> Fields | None:
    """The SSH door's options, or None without --ssh (the server's password is not the
    door's: `--ssh-password` is)."""
    given = (args.ssh_host_key, args.ssh_authorized_keys, args.ssh_password, args.ssh_password_file)
    if args.ssh is None:
        if any(given) or args.ssh_open:
            parser.error("--ssh-… options need --ssh PORT")
        return None
    password = read_secret(args, parser, SSH)
    keys = Path(args.ssh_authorized_keys) if args.ssh_authorized_keys else None
    if keys is not None and not keys.is_file():
        parser.error(f"--ssh-authorized-keys {keys}: no such file")
    if args.ssh_open and (keys is not None or password is not None):
        parser.error(
            "--ssh-open lets in any key: it goes without --ssh-authorized-keys and a password"
        )
    if not (args.ssh_open or keys is not None or password is not None):
        parser.error(
            "--ssh needs an access rule: --ssh-authorized-keys FILE, --ssh-password "
            "or, to let in any key at all, --ssh-open"
        )
    data_dir = data_dir_of(args)
    return {
        "port": args.ssh,
        "host_key": Path(args.ssh_host_key) if args.ssh_host_key else data_dir / "ssh_host_key",
        "data_dir": data_dir,
        "authorized_keys": keys,
        "password": password,
        "open_access": args.ssh_open,
        "limits": {
            "sessions": args.ssh_max_sessions,
            "per_address": args.ssh_sessions_per_address,
            "per_key": args.ssh_sessions_per_key,
            "per_connection": args.ssh_sessions_per_connection,
            "startups": args.ssh_max_startups,
        },
    }


DOOR = CliDoor(
    "ssh", "the SSH door: `ssh -p PORT NAME@HOST` opens the client", add_options, options
)
