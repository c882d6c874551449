"""The hosting commands, `gother simulate`, `serve`, `bot` and `export`: their arguments
are checked here, the work is the server's (reached through `server_side`)."""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import sys
from pathlib import Path
from typing import Any

from gother_tui.cli import server_side
from gother_tui.cli.passwords import BOT, HOST, SERVER, SSH, TOURNAMENT, WEB, read_secret
from gother_tui.core.logs import log_to_stderr
from protocol.constants import SHORT_ROUND_CAP
from protocol.fingerprint import parse_fingerprint
from protocol.view import Variants

# `gother serve`'s options that set a ServerConfig field of the same name. Their defaults
# are the config's own (server/edge/app.py), one home for each: an option not given stays out of
# the namespace (run_serve passes on only those given), and --help asks the config.
HOST_FIELDS = (
    "grace",
    "spectators",
    "bot_delay",
    "cover",
    "max_tables",
    "max_connections",
    "max_per_address",
    "max_pending",
    "pending_per_address",
    "tables_per_connection",
    "tables_per_address",
    "seats_per_connection",
    "seats_per_address",
    "expire",
    "idle",
    "search_workers",
    "search_queue",
    "tournament_entries_per_address",
)


def variants_of(args: argparse.Namespace) -> Variants:
    return Variants(
        fate_discard=args.fate_discard,
        overflow=args.overflow,
        round_cap=None if args.no_round_cap else SHORT_ROUND_CAP if args.short else args.round_cap,
        two_or_six=args.two_or_six,
    )


def run_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import json

    variants = variants_of(args)
    if args.players not in variants.seat_range:
        seats = variants.seat_range
        parser.error(
            f"--players {args.players}: the game is for {seats.start}-{seats.stop - 1} players "
            "(2 or 6 only with --two-or-six)"
        )
    try:
        summary, report = server_side.simulate(
            args.deck,
            args.players,
            args.games,
            args.seed,
            args.bots,
            variants,
            args.jobs,
            args.iterations,
        )
    except server_side.ServerSideError as exc:  # the file is at fault, not the command line:
        print(f"gother simulate: error: {exc}", file=sys.stderr)  # no usage to show
        return 2
    print(json.dumps(summary) if args.json else report)
    return 0


def run_serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if bool(args.certfile) != bool(args.keyfile):
        parser.error("--certfile and --keyfile go together")
    certfile, keyfile = args.certfile, args.keyfile
    if args.decks and not Path(args.decks).is_dir():
        parser.error(f"--decks {args.decks}: not a folder")
    password = read_secret(args, parser, SERVER)
    tournament_password = read_secret(args, parser, TOURNAMENT)
    ssh = ssh_options(args, parser)
    web = web_options(args, parser, password)
    log_to_stderr()
    try:
        if args.tls and certfile is None:
            certfile, keyfile = server_side.self_signed(args.db, args.host)
        server_side.serve(
            ssh,
            web,
            host=args.host,
            port=args.port,
            db=args.db,
            password=password,
            tournament_password=tournament_password,
            release_names=tuple(args.release_name),
            certfile=certfile,
            keyfile=keyfile,
            decks_dir=args.decks,
            announce=not args.no_announce,
            door_key_file=args.door_key_file,
            **host_settings(args),
        )
    except OSError as exc:  # port in use, bad certificate, a database it cannot use…
        print(f"gother serve: {exc}", file=sys.stderr)
        return 1
    return 0


def host_settings(args: argparse.Namespace) -> dict[str, Any]:  # ServerConfig's, by name
    """The ServerConfig fields given on the command line (HOST_FIELDS): the
    others keep the config's defaults."""
    given = vars(args)
    return {name: given[name] for name in HOST_FIELDS if name in given}


def ssh_options(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> dict[str, object] | None:
    """The SSH door's options, or None without --ssh."""
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


PACKAGES_ROOT = Path(__file__).resolve().parents[2]  # a clone, or site-packages


def web_extra_install(root: Path = PACKAGES_ROOT) -> str:
    """The command that adds the web extra to this install: `root` is where the packages
    live, a clone (installed with -e) when it holds the pyproject."""
    if (root / "pyproject.toml").is_file():
        return f"pip install -e '.[web]' (in {root})"
    return "pip install 'gother-than-thou[web]'"


def web_options(
    args: argparse.Namespace, parser: argparse.ArgumentParser, server_password: str | None
) -> dict[str, object] | None:
    """The web door's options, or None without --web. Like the SSH door's, its access is
    what the host chose: a password, or open only on loopback or with --web-open."""
    if args.web is None:
        web_only = (args.web_password, args.web_password_file, args.web_origin, args.web_open)
        if any(web_only) or args.web_trust_proxy:
            parser.error("--web-… options need --web PORT")
        return None
    if importlib.util.find_spec("textual_serve") is None:
        parser.error(f"--web needs the web extra: {web_extra_install()}")
    password = read_secret(args, parser, WEB) or server_password
    if password is not None and args.web_open:
        parser.error("--web-open lets any browser in: it goes without a password")
    if password is None and not args.web_open and not _loopback(args.host):
        parser.error(
            f"--web on {args.host} needs a password (--web-password-file FILE, "
            "$GOTHER_WEB_PASSWORD or the server's own) or, to let any browser in, --web-open"
        )
    return {
        "port": args.web,
        "data_dir": data_dir_of(args),
        "password": password,
        "max_sessions": args.web_max,
        "idle": args.web_idle * 60.0,
        "origins": tuple(args.web_origin),
        "per_address": args.web_per_address,
        "trust_proxy": args.web_trust_proxy,
        "header_timeout": float(args.web_header_timeout),
        "body_timeout": float(args.web_body_timeout),
        "half_open_per_address": args.web_half_open_per_address,
        "starts_per_minute": args.web_starts_per_minute,
    }


def data_dir_of(args: argparse.Namespace) -> Path:
    """Where the doors keep their players' state: a door's --data-dir, else beside the
    server's database (or the user data folder)."""
    chosen = getattr(args, "data_dir", None)
    return Path(chosen) if chosen else server_side.default_data_dir(args.db)


def _loopback(host: str) -> bool:
    """Whether `host` is reached from this machine only."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_door(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`gother door ssh|web --server URL`: one door, in the foreground, until Ctrl-C."""
    if args.door == "ssh":
        if args.ssh is None:
            parser.error("gother door ssh needs --ssh PORT, the port it listens on")
        options, kind = ssh_options(args, parser), "ssh"
    else:
        if args.web is None:
            parser.error("gother door web needs --web PORT, the port it listens on")
        if bool(args.certfile) != bool(args.keyfile):
            parser.error("--certfile and --keyfile go together")
        options, kind = web_options(args, parser, read_secret(args, parser, HOST)), "web"
    pin = None if args.fingerprint is None else parse_fingerprint(args.fingerprint)
    if args.fingerprint is not None and pin is None:
        parser.error(f"--fingerprint {args.fingerprint}: not a SHA-256 fingerprint")
    log_to_stderr()
    try:
        server_side.run_door(
            kind,
            options,
            args.door_key_file,
            host=args.host,
            server=args.server,
            server_password=read_secret(args, parser, HOST),
            tls_pin=pin,
            certfile=getattr(args, "certfile", None),
            keyfile=getattr(args, "keyfile", None),
        )
    except server_side.ServerSideError as exc:  # no key, no server, port in use…
        print(f"gother door {kind}: {exc}", file=sys.stderr)
        return 1
    return 0


def run_bot(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from websockets.exceptions import WebSocketException

    password = read_secret(args, parser, BOT)
    log_to_stderr()
    try:
        bot = {"name": args.name, "seat": args.seat, "password": password, "trait": args.trait}
        winners = server_side.play_bot(args.url, args.table, {"bot": args.kind, **bot})
    except (server_side.ServerSideError, OSError, WebSocketException) as exc:
        print(f"gother bot: {exc}", file=sys.stderr)  # refused, unreachable, closed
        return 1
    print(f"game over: winner(s) {list(winners)}")
    return 0


def run_export(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        seat = None if args.seat is None else args.seat - 1
        count = server_side.export(args.db, args.table, args.file, args.game, seat)
    except server_side.ServerSideError as exc:
        print(f"gother export: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.file}: {count} moves")
    return 0
