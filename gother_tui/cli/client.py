"""The client commands: `gother join` / `watch` (or, with no address, the servers heard on
the LAN), full-screen or `--plain`, `gother replay`, `gother standings`, and the start menu
of a bare `gother`. A Textual app starts only for a full-screen one."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gother_tui.cli.passwords import CLIENT, HOST, read_secret
from gother_tui.core import logs
from gother_tui.core.glyphs import wants_ascii
from gother_tui.core.options import ClientOptions
from protocol.constants import DEFAULT_PORT

if TYPE_CHECKING:
    from gother_tui.core.record import GameRecord, Reference
    from gother_tui.core.seat_store import SeatStore


def check_theme(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from textual.theme import BUILTIN_THEMES

    from gother_tui.tui.theme import THEMES

    themes = sorted({*BUILTIN_THEMES, *(t.name for t in THEMES)})
    if args.theme not in themes:
        parser.error(f"--theme {args.theme}: choose from {', '.join(themes)}")


def client_options(args: argparse.Namespace, **options: Any) -> ClientOptions:
    """The display options every full-screen command takes, with `options`."""
    from gother_tui.tui.keys import keymap_path

    return ClientOptions(
        ascii=args.ascii or wants_ascii(),
        mouse=not args.no_mouse,
        theme=args.theme,
        keymap=keymap_path(),
        **options,
    )


def plain_options(args: argparse.Namespace, **options: Any) -> ClientOptions:
    """The options of the plain line mode: no theme, mouse or keymap; ASCII or not, and how
    much it tells."""
    return ClientOptions(ascii=args.ascii or wants_ascii(), verbose=args.verbose, **options)


def run_client(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.url is None:
        return list_lan_servers()
    from gother_tui.cli import certificates
    from gother_tui.core.transport import WebSocketTransport

    if not args.plain:
        check_theme(args, parser)
    trust = certificates.trust_for(args, parser, host=args.url)
    if not certificates.settle(args.url, trust):  # an unknown or changed certificate
        return 1
    seat = {
        "url": args.url,
        "name": args.name,
        "ask_name": args.ask_name,
        "anonymous": args.anonymous,
        "watch": args.watch,
        "table": args.table,
        "password": read_secret(args, parser, CLIENT),
        "door_token": door_line(args.door_token_file, "--door-token-file", parser),
    }
    logs.log_client_to_file()
    door = door_line(args.door_file, "--door-file", parser)  # read once, from the door's pipe
    connect = partial(WebSocketTransport, trust=trust, door=door)
    if args.plain:
        from gother_tui import plain

        return plain.run(plain_options(args, **seat), transport=connect)

    options = client_options(args, **seat, bell=args.bell)
    return play_between_replays(options, connect)


def play_between_replays(
    options: ClientOptions,
    connect: Callable[..., Any],
    seat_store: SeatStore | None = None,
) -> int:
    """The client, and the replays between its runs: a replay asked for at the game-over
    panel or in the lobby (its record fetched on the client's own connection) runs between
    two clients, and the next resumes the seat, with what the first established (the name
    asked, the password typed); a replay that ends with "play on from here" starts a client
    that asks the server for that game."""
    from gother_tui.core.record import GameRecord
    from gother_tui.tui.app import GotherApp

    while True:
        app = GotherApp(options, transport=connect, seat_store=seat_store)
        app.run(mouse=options.mouse)
        options = replace(app.options, play_on=None)  # asked once
        if not isinstance(app.return_value, GameRecord):
            return app.return_code or 0
        place = replay_between(app.return_value, options)
        if place is not None:
            options = replace(options, url=place.url, play_on=place)


def replay_between(record: GameRecord, options: ClientOptions) -> Reference | None:
    """The replay of `record`, after which the client starts again (and resumes the seat);
    the place to play on from, if the replay ended asking for it."""
    from gother_tui.core.record import Reference
    from gother_tui.tui.replay_app import ReplayApp

    replay = ReplayApp(record, options)
    replay.run(mouse=options.mouse)
    return replay.return_value if isinstance(replay.return_value, Reference) else None


def door_line(path: str | None, option: str, parser: argparse.ArgumentParser) -> str | None:
    """What a door handed through a pipe (its claim, `--door-file`; the token it gave,
    `--door-token-file`): one line."""
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"{option} {path}: {exc}")


def list_lan_servers() -> int:
    """No address given: look for announced servers on the LAN (2 s) and list them."""
    from gother_tui.core.discovery import browse

    print("looking for gother servers on the LAN…", file=sys.stderr)
    found = browse()
    for server in found:
        print(f"{server.url}  {server.name}  (gother {server.version})")
    if not found:
        hint = f"none found: give the address, e.g. gother join ws://HOST:{DEFAULT_PORT}"
        print(hint, file=sys.stderr)
    return 0 if found else 1


def run_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.cli import certificates
    from gother_tui.core.record import (
        RecordError,
        Reference,
        fetch_record,
        load_record,
        parse_reference,
    )
    from gother_tui.tui.replay_app import ReplayApp

    check_theme(args, parser)
    try:
        pasted = parse_reference(args.file)
    except RecordError as exc:
        parser.error(str(exc))
    remote = args.file.startswith(("ws://", "wss://"))
    if not remote and (args.table or args.game):
        parser.error("--table and --game go with a ws:// URL")
    password = read_secret(args, parser, CLIENT)
    seat = None if args.seat is None else args.seat - 1
    place = Reference(args.file, args.table, args.game, seat, args.turn)
    if pasted is not None:  # the options given beside a reference win over its parts
        place = Reference(
            pasted.url,
            args.table or pasted.table,
            args.game or pasted.game,
            pasted.seat if seat is None else seat,
            args.turn or pasted.turn,
        )
    if remote and not place.table:
        parser.error("replaying from a server needs --table")
    trust = certificates.trust_for(args, parser)
    try:
        if remote:
            # as `gother join` would: the certificate it trusts, the password (the table's
            # or the server's) in hello and in the request
            record = fetch_record(
                place.url,
                place.table,
                place.game,
                password,
                seat=place.seat,
                server_password=password,
                trust=trust,
            )
        else:
            record = seat_of(load_record(args.file), seat, args.file)
        start = 0 if place.turn is None else record.turn_position(place.turn)
    except RecordError as exc:
        print(f"gother replay: {exc}", file=sys.stderr)
        return 2
    logs.log_client_to_file()
    options = client_options(args, url=place.url if remote else f"file:{args.file}")
    replay = ReplayApp(record, options, start)
    replay.run(mouse=options.mouse)
    if isinstance(replay.return_value, Reference):  # play on from here, at that server
        from gother_tui.core.transport import WebSocketTransport

        options = replace(options, play_on=replay.return_value, server_password=password)
        return play_between_replays(options, partial(WebSocketTransport, trust=trust))
    return 0


def seat_of(record: GameRecord, seat: int | None, path: str) -> GameRecord:
    """`record` as `--seat` asks (from 0; None: as it is). A record file holds one seat's
    own views at most, those `gother export --seat` wrote: the client never runs the
    engine, so it cannot make another seat's."""
    from gother_tui.core.record import RecordError

    if seat is None or seat == record.seat:
        return record
    if record.seat is None:
        raise RecordError(
            f"{path} shows every hand, not what seat {seat + 1} saw: write it with "
            f"`gother export --seat {seat + 1}` (or replay it without --seat)"
        )
    raise RecordError(f"{path} holds what seat {record.seat + 1} saw, not seat {seat + 1}")


def run_standings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.cli import certificates
    from gother_tui.core.standings import StandingsError, fetch_standings, table_lines

    trust = certificates.trust_for(args, parser)
    try:
        pages = fetch_standings(args.url, args.name, read_secret(args, parser, HOST), trust)
    except StandingsError as exc:
        print(f"gother standings: {exc}", file=sys.stderr)
        return 2
    print("\n".join(table_lines(pages)))
    return 0


def start_menu() -> list[str] | None:
    """`gother` alone: a menu that returns the chosen command's arguments (None: quit)."""
    from gother_tui.tui.start_menu import StartApp

    logs.log_client_to_file()
    return StartApp().run()
