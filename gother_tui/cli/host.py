"""The hosting commands, `gother simulate`, `serve`, `bot`, `export` and `db`: their arguments
are checked here, the work is the server's (reached through `server_side`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gother_tui.cli import server_side
from gother_tui.cli.doors import DOORS
from gother_tui.cli.passwords import BOT, HOST, SERVER, TOURNAMENT, read_secret
from gother_tui.core.logs import log_to_stderr
from protocol.fingerprint import parse_fingerprint
from protocol.house_rules import HOUSE_RULES, Count
from protocol.view import Variants

# `gother serve`'s options that set a ServerConfig field of the same name. Their defaults
# are the config's own (server/edge/config.py), one home for each: an option not given stays out of
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
    """The house rules the options chose (parser._add_variant_options): a count's off before
    its presets, its presets before its number."""
    chosen = {rule.field: getattr(args, rule.field) for rule in HOUSE_RULES}
    for rule in HOUSE_RULES:
        if not isinstance(rule, Count):
            continue
        for preset in rule.presets:
            if preset.word and getattr(args, preset.word):
                chosen[rule.field] = preset.value
        if getattr(args, rule.off_option.removeprefix("--").replace("-", "_")):
            chosen[rule.field] = None
    return Variants(**chosen)


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
    doors = {
        name: fields
        for name, door in DOORS.items()
        if (fields := door.options(args, parser, password)) is not None
    }
    if args.public is not None and not server_side.is_shared(args.db):
        parser.error(  # one process holds every table: no other process sends anyone there
            f"--public {args.public}: it goes with a PostgreSQL --db, whose game processes"
            " send players to each other; with a SQLite --db there is only this one"
        )
    log_to_stderr()
    if args.processes > 1:
        if doors:
            parser.error(
                "--processes runs game processes only: run the doors with `gother door`"
                " (docs/hosting.md)"
            )
        try:  # the command, run again by each process (server/processes.py)
            server_side.serve(
                {},
                processes=args.processes,
                port=args.port,
                db=args.db,
                table_log=args.table_log,
                public=args.public,
            )
        except ValueError as exc:  # not with this --db, or this --public
            parser.error(str(exc))
        return 0
    try:
        if args.tls and certfile is None:
            certfile, keyfile = server_side.self_signed(args.db, args.host)
        server_side.serve(
            doors,
            host=args.host,
            port=args.port,
            db=args.db,
            table_log=args.table_log,
            public=args.public,
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


def run_door(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`gother door KIND --server URL`: one door, in the foreground, until Ctrl-C."""
    kind = args.door
    if getattr(args, kind) is None:
        parser.error(f"gother door {kind} needs --{kind} PORT, the port it listens on")
    if bool(getattr(args, "certfile", None)) != bool(getattr(args, "keyfile", None)):
        parser.error("--certfile and --keyfile go together")
    options = DOORS[kind].options(args, parser, read_secret(args, parser, HOST))
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


def run_db_copy(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`gother db copy SOURCE TARGET`: a host moved between SQLite and PostgreSQL."""
    try:
        print(server_side.copy_db(args.source, args.target, args.table_log, args.replace))
    except OSError as exc:  # a database it cannot use, a target not empty…
        print(f"gother db copy: {exc}", file=sys.stderr)
        return 1
    return 0
