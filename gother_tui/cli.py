"""The `gother` command line. Servers and engines are imported lazily, inside the
subcommand that needs them, so the client starts fast and never imports `server` itself."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from protocol.version import software_version

BOT_KINDS = ("random", "heuristic", "ismcts")


def _whole_number(low: int, high: int | None, out_of_range: str, noun: str = "whole number"):
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


_positive = _whole_number(1, None, "must be at least 1, got {}")
_port = _whole_number(0, 65535, "port must be 0-65535, got {}", noun="port number")
_play_players = _whole_number(3, 5, "the game is for 3-5 players, got {}")


def _bot_list(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in BOT_KINDS]
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot kind {', '.join(unknown) or '(none)'}; choose from {', '.join(BOT_KINDS)}"
        )
    return kinds


def _add_variant_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("house rules (H1, H2)")
    group.add_argument("--fate-discard", choices=("any", "top"), default="any")
    group.add_argument("--overflow", choices=("draw_step", "immediate"), default="draw_step")
    group.add_argument(
        "--round-cap", type=_positive, default=100, help="rounds before the highest Goth wins"
    )
    group.add_argument("--no-round-cap", action="store_true", help="play until someone wins")
    group.add_argument(
        "--two-or-six", action="store_true", help="allow 2 or 6 players (house rule)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gother", description="Gother Than Thou: the card game, in your terminal."
    )
    parser.add_argument("--version", action="version", version=f"gother {software_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = sub.add_parser(
        "simulate",
        help="play many bot games and report length, fairness and speed",
        description="Play G bot games and report rounds, round-cap hits, win rates per seat "
        "and per bot kind, swoons per game and games per second. Bots listed are "
        "assigned to seats in rotation so every kind sits in every seat.",
    )
    sim.add_argument("--players", type=int, default=4, help="players per game (3-5)")
    sim.add_argument("--games", type=_positive, default=100)
    sim.add_argument("--seed", type=int, default=1, help="game i uses seed S+i")
    sim.add_argument("--bots", type=_bot_list, default=["heuristic"], help="KIND[,KIND…]")
    sim.add_argument("--deck", help="a deck file (TOML) instead of the original deck")
    sim.add_argument("--jobs", type=_positive, default=1, help="processes to use")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    _add_variant_options(sim)
    sim.set_defaults(run=_run_simulate)

    srv = sub.add_parser(
        "serve",
        help="host games: a websocket server for your LAN",
        description="Run the game server. Players connect with `gother join ws://HOST:PORT`.",
    )
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: all)")
    srv.add_argument("--port", type=_port, default=8765)
    srv.add_argument("--db", default=":memory:", help="SQLite file; games survive restarts")
    srv.add_argument("--password", help="players must give it to connect")
    srv.add_argument("--certfile", help="TLS certificate (PEM), for wss://")
    srv.add_argument("--keyfile", help="TLS private key (PEM)")
    srv.add_argument(
        "--grace", type=float, default=60.0, help="seconds before a bot covers an absent player"
    )
    srv.add_argument("--spectators", choices=("none", "public", "all"), default="public")
    srv.add_argument("--decks", help="folder of extra deck files tables may use")
    srv.add_argument("--bot-delay", type=float, default=0.4, help="seconds a bot waits to move")
    srv.add_argument("--max-tables", type=_positive, default=200)
    srv.add_argument("--max-connections", type=_positive, default=1000)
    _add_limit_options(srv)
    srv.add_argument(
        "--no-announce", action="store_true", help="do not announce this server on the LAN (mDNS)"
    )
    ssh = srv.add_argument_group("SSH front door: `ssh -p PORT NAME@HOST` opens the client")
    ssh.add_argument("--ssh", type=_port, metavar="PORT", help="also serve SSH on this port")
    ssh.add_argument("--ssh-host-key", help="host key file (default: made under the data dir)")
    ssh.add_argument("--ssh-authorized-keys", metavar="FILE", help="let in only these keys")
    ssh.add_argument("--ssh-password", help="let in anyone with this password (or any key)")
    srv.set_defaults(run=_run_serve)

    bot = sub.add_parser(
        "bot",
        help="a bot that joins a table over the network",
        description="Join TABLE on the server at URL and play it to the end as a bot.",
    )
    bot.add_argument("url", type=_ws_url, metavar="URL", help="ws://HOST:PORT")
    bot.add_argument("--table", required=True)
    bot.add_argument("--kind", choices=BOT_KINDS, default="heuristic")
    bot.add_argument("--name", default="Bot")
    bot.add_argument("--seat", type=int)
    bot.add_argument("--password")
    bot.set_defaults(run=_run_bot)

    export = sub.add_parser(
        "export",
        help="write a game record (msgpack) from a server database",
        description="Write TABLE's current game (or --game N) from the database to FILE.",
    )
    export.add_argument("--db", required=True)
    export.add_argument("table", metavar="TABLE")
    export.add_argument("file", metavar="FILE")
    export.add_argument("--game", type=_positive)
    export.set_defaults(run=_run_export)

    join = sub.add_parser(
        "join",
        help="sit down at a table on a server (full-screen client)",
        description="Connect to the server at URL: resume your seat if you had one there, "
        "else go to --table or to the lobby.",
    )
    _add_client_options(join)
    join.set_defaults(run=_run_client, watch=False)

    watch = sub.add_parser(
        "watch",
        help="watch a table as a spectator (full-screen client)",
        description="Connect to the server at URL and watch --table, or choose one in the lobby.",
    )
    _add_client_options(watch)
    watch.set_defaults(run=_run_client, watch=True)

    play = sub.add_parser(
        "play",
        help="play against bots on this machine: no server to set up",
        description="Start a private server on this machine (127.0.0.1, a free port, games in "
        "memory), sit down at a table of PLAYERS seats with PLAYERS-1 bots, and play. "
        "Leaving the client closes the server.",
    )
    play.add_argument("--players", type=_play_players, default=4, help="seats at the table (3-5)")
    play.add_argument("--bots", choices=BOT_KINDS, default="heuristic", help="the bots' kind")
    play.add_argument("--name", type=_player_name, default=_default_name(), help="your name")
    _add_display_options(play)
    play.set_defaults(run=_run_play)

    replay = sub.add_parser(
        "replay",
        help="step through a finished game: a record file (gother export) or from a server",
        description="Show FILE, a game record written by `gother export`, or a finished game "
        "of --table fetched from the server at URL, on the table screen with every hand "
        "revealed: Left/Right step one move, Home/End jump to the deal or the end. Read-only.",
    )
    replay.add_argument("file", metavar="FILE|URL", help="a record file, or ws://HOST:PORT")
    replay.add_argument("--table", help="with a URL: the table whose game to fetch")
    replay.add_argument("--game", type=_positive, help="with a URL: which game (default: last)")
    replay.add_argument("--password", help="with a URL: the table's password, if it has one")
    _add_display_options(replay)
    replay.set_defaults(run=_run_replay)
    return parser


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """What a long-running host bounds (docs/hosting.md, "Limits")."""
    group = parser.add_argument_group("limits of a long-running host (docs/hosting.md)")
    group.add_argument(
        "--max-per-address", type=_positive, default=32, help="connections from one address"
    )
    group.add_argument(
        "--max-pending", type=_positive, default=100, help="connections not yet past hello"
    )
    group.add_argument(
        "--tables-per-connection", type=_positive, default=10, help="open tables one creates"
    )
    group.add_argument("--tables-per-address", type=_positive, default=10)
    group.add_argument(
        "--seats-per-connection", type=_positive, default=4, help="seats one holds in games"
    )
    group.add_argument("--seats-per-address", type=_positive, default=24)
    group.add_argument(
        "--expire", type=float, default=1800.0, help="seconds a table nobody is at stays open"
    )
    group.add_argument(
        "--idle", type=float, default=300.0, help="seconds before a bot plays an idle turn"
    )


def _limit_config(args: argparse.Namespace) -> dict[str, float]:
    return {
        "max_per_address": args.max_per_address,
        "max_pending": args.max_pending,
        "tables_per_connection": args.tables_per_connection,
        "tables_per_address": args.tables_per_address,
        "seats_per_connection": args.seats_per_connection,
        "seats_per_address": args.seats_per_address,
        "expire": args.expire,
        "idle": args.idle,
    }


def _add_client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "url",
        type=_ws_url,
        metavar="URL",
        nargs="?",
        help="ws://HOST:PORT (none: list servers on the LAN)",
    )
    parser.add_argument("--table", help="a table id: go straight to it")
    parser.add_argument("--name", type=_player_name, default=_default_name(), help="your name")
    parser.add_argument("--password", help="the table's (or the server's) password")
    _add_display_options(parser)


def _add_display_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="plain ASCII symbols (automatic on a Linux console or a non-UTF-8 locale)",
    )
    parser.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal")
    parser.add_argument("--theme", default="gother", help="colour theme (default: gother)")


def _default_name() -> str:
    import os

    try:
        return _player_name(os.environ.get("USER", ""))
    except argparse.ArgumentTypeError:
        return "Player"


def _player_name(text: str) -> str:
    name = text.strip()
    if not 1 <= len(name) <= 24 or not name.isprintable():
        raise argparse.ArgumentTypeError("a name is 1 to 24 printable characters")
    return name


def _ws_url(text: str) -> str:
    from urllib.parse import urlsplit

    if not text.startswith(("ws://", "wss://")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a ws:// or wss:// address")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (parses the port: ValueError when it is not a number)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a valid address: {exc}") from None
    if not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text!r} names no host")
    return text


def _variants(args: argparse.Namespace):  # -> server.game.Variants (imported lazily)
    from server.game import Variants

    return Variants(
        fate_discard=args.fate_discard,
        overflow=args.overflow,
        round_cap=None if args.no_round_cap else args.round_cap,
        two_or_six=args.two_or_six,
    )


def _load_deck(path: str | None):
    from server.game import default_deck, load_deck

    return default_deck() if path is None else load_deck(path)


def _run_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from server.game import DeckError
    from server.simulate import format_report, simulate

    variants = _variants(args)
    if args.players not in variants.seat_range:
        parser.error(
            f"--players {args.players}: the game is for 3-5 players (2 or 6 only with --two-or-six)"
        )
    try:
        deck = _load_deck(args.deck)
        deck.check_seats(args.players, args.deck or "original deck")
    except DeckError as exc:
        parser.error(f"bad deck file: {exc}")
    summary = simulate(deck, args.players, args.games, args.seed, args.bots, variants, args.jobs)
    print(json.dumps(summary) if args.json else format_report(summary))
    return 0


def _log_to_stderr() -> None:
    import logging

    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )


def _run_serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import asyncio
    import sqlite3

    from server.app import ServerConfig, run

    if bool(args.certfile) != bool(args.keyfile):
        parser.error("--certfile and --keyfile go together")
    if args.decks:
        from pathlib import Path

        if not Path(args.decks).is_dir():
            parser.error(f"--decks {args.decks}: not a folder")
    _log_to_stderr()
    config = ServerConfig(
        host=args.host,
        port=args.port,
        db=args.db,
        password=args.password,
        certfile=args.certfile,
        keyfile=args.keyfile,
        grace=args.grace,
        bot_delay=args.bot_delay,
        spectators=args.spectators,
        decks_dir=args.decks,
        max_tables=args.max_tables,
        max_connections=args.max_connections,
        ssh=_ssh_options(args, parser),
        announce=not args.no_announce,
        **_limit_config(args),
    )
    try:
        asyncio.run(run(config))
    except OSError as exc:  # port in use, bad certificate…
        print(f"gother serve: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:  # unwritable database folder, not a database file…
        print(f"gother serve: database {args.db}: {exc}", file=sys.stderr)
        return 1
    return 0


def _ssh_options(args: argparse.Namespace, parser: argparse.ArgumentParser):  # SshOptions | None
    from pathlib import Path

    if args.ssh is None:
        if args.ssh_host_key or args.ssh_authorized_keys or args.ssh_password:
            parser.error("--ssh-… options need --ssh PORT")
        return None
    from server.ssh import SshOptions, default_data_dir

    keys = Path(args.ssh_authorized_keys) if args.ssh_authorized_keys else None
    if keys is not None and not keys.is_file():
        parser.error(f"--ssh-authorized-keys {keys}: no such file")
    data_dir = default_data_dir(args.db)
    return SshOptions(
        port=args.ssh,
        host_key=Path(args.ssh_host_key) if args.ssh_host_key else data_dir / "ssh_host_key",
        data_dir=data_dir,
        authorized_keys=keys,
        password=args.ssh_password,
    )


def _run_bot(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from websockets.exceptions import WebSocketException

    from server.netbot import BotRefused, NetBot, run_bot

    _log_to_stderr()
    bot = NetBot(args.url, args.table, args.kind, args.name, args.seat, args.password)
    try:
        final = run_bot(bot)
    except (BotRefused, OSError, WebSocketException) as exc:  # refused, unreachable, closed
        print(f"gother bot: {exc}", file=sys.stderr)
        return 1
    print(f"game over: winner(s) {list(final.winner or ())}")
    return 0


def _run_export(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from server.export import ExportError, export_game

    try:
        count = export_game(args.db, args.table, args.file, args.game)
    except ExportError as exc:
        print(f"gother export: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.file}: {count} moves")
    return 0


def _log_to_file() -> None:
    """The client draws on the terminal: its log goes to a file, never to stderr."""
    import logging
    from pathlib import Path

    from platformdirs import user_log_dir

    try:
        folder = Path(user_log_dir("gother"))
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(folder / "client.log", encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


def _check_theme(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from textual.theme import BUILTIN_THEMES

    from gother_tui.theme import THEMES

    themes = sorted({*BUILTIN_THEMES, *(t.name for t in THEMES)})
    if args.theme not in themes:
        parser.error(f"--theme {args.theme}: choose from {', '.join(themes)}")


def _run_client(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.app import GotherApp
    from gother_tui.glyphs import wants_ascii
    from gother_tui.options import ClientOptions

    if args.url is None:
        return _list_lan_servers()
    _check_theme(args, parser)
    _log_to_file()
    options = ClientOptions(
        url=args.url,
        name=args.name,
        watch=args.watch,
        table=args.table,
        password=args.password,
        ascii=args.ascii or wants_ascii(),
        mouse=not args.no_mouse,
        theme=args.theme,
    )
    GotherApp(options).run(mouse=options.mouse)
    return 0


def _list_lan_servers() -> int:
    """No address given: look for announced servers on the LAN (2 s) and list them."""
    from gother_tui.discovery import browse

    print("looking for gother servers on the LAN…", file=sys.stderr)
    found = browse()
    for server in found:
        print(f"{server.url}  {server.name}  (gother {server.version})")
    if not found:
        print("none found: give the address, e.g. gother join ws://HOST:8765", file=sys.stderr)
    return 0 if found else 1


def _run_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.glyphs import wants_ascii
    from gother_tui.options import ClientOptions
    from gother_tui.record import RecordError, fetch_record, load_record
    from gother_tui.replay_app import ReplayApp

    _check_theme(args, parser)
    remote = args.file.startswith(("ws://", "wss://"))
    if remote and not args.table:
        parser.error("replaying from a server needs --table")
    if not remote and (args.table or args.game or args.password):
        parser.error("--table, --game and --password go with a ws:// URL")
    try:
        if remote:
            record = fetch_record(args.file, args.table, args.game, args.password)
        else:
            record = load_record(args.file)
    except RecordError as exc:
        print(f"gother replay: {exc}", file=sys.stderr)
        return 2
    _log_to_file()
    options = ClientOptions(
        url=f"file:{args.file}",
        ascii=args.ascii or wants_ascii(),
        mouse=not args.no_mouse,
        theme=args.theme,
    )
    ReplayApp(record, options).run(mouse=options.mouse)
    return 0


def _run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from gother_tui.cli_play import LocalServerError, play

    _check_theme(args, parser)
    _log_to_file()
    try:
        play(args)
    except LocalServerError as exc:
        print(f"gother play: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            parser.print_help()  # no terminal to draw a menu on
            return 0
        chosen = _start_menu()
        return 0 if chosen is None else main(chosen)
    return args.run(args, parser)


def _start_menu() -> list[str] | None:
    """`gother` alone: a menu that returns the chosen command's arguments (None: quit)."""
    from gother_tui.start_menu import StartApp

    _log_to_file()
    return StartApp().run()


if __name__ == "__main__":
    sys.exit(main())
