"""Every `gother` subcommand and its options; nothing runs here. Each subcommand's `run`
is the function that carries it out."""

from __future__ import annotations

import argparse
import functools

from gother_tui.cli import argtypes, client, host, play, server_side
from gother_tui.cli.doors import DOORS
from gother_tui.cli.passwords import BOT, CLIENT, HOST, SERVER, TOURNAMENT, add_secret
from protocol.constants import (
    BOT_NAMES,
    DEFAULT_PORT,
    DEFAULT_TRAITS,
    DIFFICULTIES,
    NAME_KEPT_DAYS,
    SEATS,
    TRAITS,
)
from protocol.house_rules import HOUSE_RULES, Count, Menu
from protocol.version import software_version

FROM_CONFIG = argparse.SUPPRESS  # a default that is ServerConfig's (host.HOST_FIELDS)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Each option's help ends with its default, unless it has none or already says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text:
            return text
        if action.default is FROM_CONFIG and action.dest in host.HOST_FIELDS:
            default = server_side.config_defaults()[action.dest]  # only when help is shown
            return text if default is None else f"{text} (default: {default})"
        if action.default in (None, False, argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand's parser, built once for each default name (the one thing in it
    read from the environment: $USER, as the name a player plays under by default). A
    door's zygote builds its sessions' before it forks (gother_tui/zygote/): built in
    each child, it cost a session 1.3 MiB of its own."""
    return _built(argtypes.default_name())


@functools.cache
def _built(name: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gother",
        description="Gother Than Thou: the card game, in your terminal. `gother` alone opens "
        "the start menu (play against bots, join, find, watch, host, replay).",
    )
    parser.add_argument("--version", action="version", version=f"gother {software_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_simulate(sub)
    _add_serve(sub)
    _add_door_commands(sub)
    _add_bot(sub)
    _add_export(sub)
    _add_db(sub)
    _add_join_and_watch(sub, name)
    _add_play(sub, name)
    _add_replay(sub)
    _add_standings(sub)
    return parser


def _add_simulate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother simulate`: bot games measured."""
    sim = sub.add_parser(
        "simulate",
        help="play many bot games and report length, fairness and speed",
        description="Play G bot games and report rounds, round-cap hits, win rates per seat "
        "and per bot kind, swoons per game and games per second. Bots listed are "
        "assigned to seats in rotation so every kind sits in every seat.",
    )
    sim.add_argument("--players", type=int, default=4, help="players per game (3-5)")
    sim.add_argument("--games", type=argtypes.positive, default=100)
    sim.add_argument("--seed", type=int, default=1, help="game i uses seed S+i")
    sim.add_argument(
        "--bots",
        type=argtypes.bot_list,
        default=["heuristic"],
        help="BOT[,BOT…]: easy, normal, hard or a kind, each with :vengeful or :steady "
        "after it, or the trait a table of that size gets by default",
    )
    sim.add_argument(
        "--iterations",
        type=argtypes.positive,
        metavar="N",
        help="a searching bot's (hard's) iterations a move, so runs repeat from the seed "
        "(default: 200)",
    )
    sim.add_argument("--deck", help="a deck file (TOML) instead of the original deck")
    sim.add_argument("--jobs", type=argtypes.positive, default=1, help="processes to use")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    _add_variant_options(sim)
    sim.set_defaults(run=host.run_simulate)


def _add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother serve`: the host."""
    srv = sub.add_parser(
        "serve",
        help="host games: a websocket server for your LAN",
        description="Run the game server. Players connect with `gother join ws://HOST:PORT`.",
        formatter_class=DefaultsHelpFormatter,
        epilog="Wrong passwords (the server's, the tournaments', each table's, the SSH and web "
        "doors'), each password counted apart, from one address: after 2 each one doubles the "
        "wait before the next try (1 s up to 60 s); 3 on one connection close it. A right "
        "password shortens no other's wait, and after 10 wrong ones of any kind every try "
        "waits too: at most one guess a minute at any password. See docs/hosting.md.",
    )
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: all)")
    srv.add_argument("--port", type=argtypes.port, default=DEFAULT_PORT, help="port to listen on")
    srv.add_argument(
        "--db",
        default=":memory:",
        help="where games are kept, so they survive restarts: a SQLite file, or a PostgreSQL "
        "database (postgresql://USER@HOST/DB; its password in ~/.pgpass, never here) for what "
        "spans tables, shared by the host's game processes (docs/hosting.md)",
    )
    srv.add_argument(
        "--table-log",
        metavar="FILE",
        help="with a PostgreSQL --db: this process's own SQLite file, where each move of its "
        "live tables is written before it is made (default: table-log.db in the data folder)",
    )
    srv.add_argument(
        "--processes",
        type=argtypes.positive,
        default=1,
        metavar="N",
        help="with a PostgreSQL --db: N game processes on this machine, sharing its lobby, each "
        "on its own port (--port + K; 0: each its own) with its own table log (FILE-K)",
    )
    srv.add_argument(
        "--public",
        type=argtypes.ws_url,
        metavar="URL",
        help="with a PostgreSQL --db: where players reach this process (ws://HOST:PORT or "
        "wss://…; port 0: the one it listens on), given to the clients of the host's other "
        "processes for its tables (default: this machine's name and --port); with "
        "--processes, the first process's, the K-th at PORT + K",
    )
    srv.add_argument(
        "--release-name",
        action="append",
        default=[],
        metavar="NAME",
        help="give NAME (and its look-alikes) back: a name belongs to the first player who "
        "played a game to its end under it (one address comes to own 5, then one every 4 "
        f"hours), until released or unplayed for {NAME_KEPT_DAYS} days (repeat for several)",
    )
    add_secret(srv, SERVER)
    add_secret(srv, TOURNAMENT)
    srv.add_argument(
        "--tls",
        action="store_true",
        help="serve wss://; without --certfile, with a self-signed certificate made once "
        "and kept in the data folder (its fingerprint is printed at every start)",
    )
    srv.add_argument("--certfile", help="TLS certificate (PEM), for wss://")
    srv.add_argument("--keyfile", help="TLS private key (PEM)")
    srv.add_argument(
        "--grace",
        type=float,
        default=FROM_CONFIG,
        help="seconds before a bot covers an absent player",
    )
    srv.add_argument(
        "--spectators",
        choices=("none", "public", "all"),
        default=FROM_CONFIG,
        help="who may watch: nobody, tables without a password, or every table",
    )
    srv.add_argument("--decks", help="folder of extra deck files tables may use")
    srv.add_argument(
        "--bot-delay", type=float, default=FROM_CONFIG, help="seconds a bot waits to move"
    )
    srv.add_argument(
        "--cover",
        choices=tuple(DIFFICULTIES),
        default=FROM_CONFIG,
        help="how the bot plays that covers an absent or idle player's turns",
    )
    srv.add_argument(
        "--max-tables", type=argtypes.positive, default=FROM_CONFIG, help="open tables in all"
    )
    srv.add_argument(
        "--max-connections",
        type=argtypes.positive,
        default=FROM_CONFIG,
        help="connections in all",
    )
    _add_limit_options(srv)
    srv.add_argument(
        "--no-announce", action="store_true", help="do not announce this server on the LAN (mDNS)"
    )
    srv.add_argument(
        "--door-key-file",
        metavar="FILE",
        help="keep the door key in FILE (made 0600 on the first run): copy it to the machine "
        "of a `gother door ssh|web` in front of this server (default: a new key each run, "
        "known only to the doors serve starts)",
    )
    for door in DOORS.values():
        door.add_options(srv)
    srv.set_defaults(run=host.run_serve)


def _add_bot(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother bot`: one bot at a server's table."""
    bot = sub.add_parser(
        "bot",
        help="a bot that joins a table over the network",
        description="Join TABLE on the server at URL and play it to the end as a bot.",
    )
    bot.add_argument("url", type=argtypes.ws_url, metavar="URL", help="ws://HOST:PORT")
    bot.add_argument("--table", required=True)
    bot.add_argument(
        "--kind", choices=BOT_NAMES, default="normal", help="a difficulty or a bot kind"
    )
    bot.add_argument(
        "--trait",
        choices=TRAITS,
        help="whom it hurts: vengeful hits the leader, steady plays its own game "
        "(default: as the server's bots at a table of that many seats)",
    )
    bot.add_argument("--name", default="Bot")
    bot.add_argument("--seat", type=int)
    add_secret(bot, BOT)
    bot.set_defaults(run=host.run_bot)


def _add_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother export`: a finished game's record to a file."""
    export = sub.add_parser(
        "export",
        help="write a game record (msgpack) from a server database",
        description="Write TABLE's current game (or --game N) from the database to FILE.",
    )
    export.add_argument("--db", required=True)
    export.add_argument("table", metavar="TABLE")
    export.add_argument("file", metavar="FILE")
    export.add_argument("--game", type=argtypes.positive)
    export.add_argument(
        "--seat",
        type=argtypes.positive,
        help="also that seat's (from 1) own views, for `gother replay FILE --seat N`",
    )
    export.set_defaults(run=host.run_export)


def _add_db(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother db copy`: a host moved between SQLite and PostgreSQL."""
    db = sub.add_parser(
        "db",
        help="move a host's games, names and tournaments between SQLite and PostgreSQL",
        description="A host's store, moved (stop the host first).",
    )
    commands = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    copy = commands.add_parser(
        "copy",
        help="copy everything from SOURCE into TARGET",
        description="Copy a host from a SQLite file into PostgreSQL, or back: names, ratings' "
        "outcomes, tournaments, every finished game, and the live tables, which go into (or "
        "come from) the PostgreSQL host's table log. A TARGET that holds anything is refused "
        "unless --replace. Each database is written in one transaction: all of it, or nothing.",
    )
    copy.add_argument("source", metavar="SOURCE", help="sqlite:PATH or postgresql://…")
    copy.add_argument("target", metavar="TARGET", help="postgresql://… or sqlite:PATH")
    copy.add_argument(
        "--table-log",
        metavar="FILE",
        help="the PostgreSQL host's table log: `gother serve --table-log` (default: as serve's)",
    )
    copy.add_argument(
        "--replace", action="store_true", help="empty a TARGET that holds anything, first"
    )
    copy.set_defaults(run=host.run_db_copy)


def _add_join_and_watch(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str
) -> None:
    """`gother join` and `gother watch`: the client, to play or to look on."""
    join = sub.add_parser(
        "join",
        help="sit down at a table on a server (full-screen client, or --plain)",
        description="Connect to the server at URL: resume your seat if you had one there, "
        "else go to --table or to the lobby.",
    )
    _add_client_options(join, name)
    join.set_defaults(run=client.run_client, watch=False)

    watch = sub.add_parser(
        "watch",
        help="watch a table as a spectator (full-screen client, or --plain)",
        description="Connect to the server at URL and watch --table, or choose one in the lobby.",
    )
    _add_client_options(watch, name)
    watch.set_defaults(run=client.run_client, watch=True)


def _add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    """`gother play`: a table of bots on this machine."""
    seats = f"{SEATS.start}-{SEATS.stop - 1}"
    local = sub.add_parser(
        "play",
        help="play against bots on this machine: no server to set up",
        description="Start a private server on this machine (127.0.0.1, a free port, games in "
        "memory), sit down at a table of PLAYERS seats with PLAYERS-1 bots, and play. "
        "Leaving the client closes the server.",
    )
    local.add_argument(
        "--players", type=argtypes.play_players, default=4, help=f"seats at the table ({seats})"
    )
    local.add_argument(
        "--bots", choices=BOT_NAMES, default="normal", help="the bots' difficulty (or kind)"
    )
    seats_by_trait: dict[str, list[str]] = {}
    for n in SEATS:
        seats_by_trait.setdefault(DEFAULT_TRAITS[n], []).append(str(n))
    usual_traits = ", ".join(f"{t} at {' and '.join(ns)} seats" for t, ns in seats_by_trait.items())
    local.add_argument(
        "--trait",
        choices=TRAITS,
        help="whom the bots hurt: vengeful hits the leader, steady plays its own game "
        f"(default: {usual_traits})",
    )
    local.add_argument("--name", type=argtypes.player_name, default=name, help="your name")
    local.add_argument(
        "--bot-speed",
        choices=(*play.BOT_SPEEDS, play.LISTEN),
        default=None,
        help="how long a bot waits before each move: "
        + ", ".join(f"{k} {v} s" for k, v in play.BOT_SPEEDS.items())
        + f"; {play.LISTEN}: normal, and not before the last line said was heard at 175 words "
        f"a minute (the default with --plain; normal without)",
    )
    _add_variant_options(local)
    _add_plain_option(local)
    _add_display_options(local)
    _add_bell_option(local)
    local.set_defaults(run=play.run_play)


def _add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother replay`: a finished game, step by step."""
    replay = sub.add_parser(
        "replay",
        help="step through a finished game: a record file (gother export) or from a server",
        description="Show FILE, a game record written by `gother export`, or a finished game "
        "of --table fetched from the server at URL, on the table screen with every hand "
        "revealed, or with --seat only what that seat saw (v reveals the rest): Left/Right "
        "step one move, [ ] one turn, { } one round, Home/End jump to the deal or the end. "
        "URL may be a reference a player pasted, ws://HOST:PORT/TABLE/GAME#seat2-turn31. "
        "Read-only; in a seat's replay from a server, p plays on from here: a new game "
        "against bots from the start of that turn, as the seat knew it.",
    )
    replay.add_argument(
        "file",
        metavar="FILE|URL",
        help="a record file, ws://HOST:PORT, or a reference ws://HOST:PORT/TABLE/GAME#seat2-turn31",
    )
    replay.add_argument("--table", help="with a URL: the table whose game to fetch")
    replay.add_argument(
        "--game", type=argtypes.positive, help="with a URL: which game (default: the last)"
    )
    add_secret(replay, CLIENT)
    replay.add_argument(
        "--seat",
        type=argtypes.positive,
        help="the game as this seat (from 1) saw it, without spoilers (a FILE must have been "
        "exported with the same --seat)",
    )
    replay.add_argument("--turn", type=argtypes.positive, help="open at this turn (from 1)")
    _add_tls_options(replay)
    _add_display_options(replay)
    replay.set_defaults(run=client.run_replay)


def _add_standings(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`gother standings`: a host's players, the best first."""
    standings = sub.add_parser(
        "standings",
        help="a host's standings: every player's record of finished games and rating",
        description="Print the standings of the server at URL, the best first: each player's "
        "rating (? while provisional; = for the easy, normal and hard bots, whose ratings are "
        "fixed marks of the scale), games, wins, places (1st/2nd/3rd...) and last game.",
    )
    standings.add_argument("url", type=argtypes.ws_url, metavar="URL", help="ws://HOST:PORT")
    standings.add_argument(
        "--name", type=argtypes.player_name, default="Standings", help="the name to say hello with"
    )
    add_secret(standings, HOST)
    _add_tls_options(standings)
    standings.set_defaults(run=client.run_standings)


def _add_door_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    door = sub.add_parser(
        "door",
        help="an SSH or web door in front of a server, run on its own (another machine…)",
        description="Run the SSH door or the web door alone, in front of the game server at "
        "--server: what `gother serve --ssh/--web` starts as a process of its own. The door "
        "signs where each player connects from with the server's door key: start the server "
        "with --door-key-file FILE and copy FILE here (0600).",
    )
    kinds = door.add_subparsers(dest="door", metavar="DOOR", required=True)
    for kind, entry in DOORS.items():
        one = kinds.add_parser(
            kind,
            help=entry.what,
            description=f"Run {entry.what}.",
            formatter_class=DefaultsHelpFormatter,
        )
        one.add_argument(
            "--server",
            type=argtypes.ws_url,
            required=True,
            metavar="URL",
            help="the game server the door's players reach, ws://HOST:PORT or wss://HOST:PORT",
        )
        one.add_argument(
            "--door-key-file",
            required=True,
            metavar="FILE",
            help="the server's door key (its --door-key-file), readable by you only",
        )
        one.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: all)")
        one.add_argument(
            "--data-dir",
            metavar="FOLDER",
            help="players' client state and the SSH host key (default: the user data folder)",
        )
        one.add_argument(
            "--fingerprint",
            metavar="SHA256",
            help="a wss:// server's certificate: the door's clients trust exactly this one "
            "(gother serve prints it)",
        )
        entry.add_alone(one)
        add_secret(one, HOST)
        entry.add_options(one)
        one.set_defaults(run=host.run_door, db=":memory:")


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """What a long-running host bounds (docs/hosting.md, "Limits")."""
    group = parser.add_argument_group("limits of a long-running host (docs/hosting.md)")
    positive = argtypes.positive
    group.add_argument(
        "--max-per-address",
        type=positive,
        default=FROM_CONFIG,
        help="connections from one address",
    )
    group.add_argument(
        "--max-pending",
        type=positive,
        default=FROM_CONFIG,
        help="connections not yet past hello (when all are held, a new one takes the place "
        "of the oldest of the address holding the most)",
    )
    group.add_argument(
        "--pending-per-address",
        type=positive,
        default=FROM_CONFIG,
        help="of those, from one address",
    )
    group.add_argument(
        "--tables-per-connection",
        type=positive,
        default=FROM_CONFIG,
        help="open tables one creates",
    )
    group.add_argument(
        "--tables-per-address",
        type=positive,
        default=FROM_CONFIG,
        help="open tables one address creates",
    )
    group.add_argument(
        "--seats-per-connection",
        type=positive,
        default=FROM_CONFIG,
        help="seats one holds at tables not over (lobby or in play)",
    )
    group.add_argument(
        "--seats-per-address",
        type=positive,
        default=FROM_CONFIG,
        help="seats one address holds at tables not over",
    )
    group.add_argument(
        "--tournament-entries-per-address",
        type=positive,
        default=FROM_CONFIG,
        help="players one address may register in a tournament (its start seats only those "
        "present)",
    )
    group.add_argument(
        "--expire",
        type=float,
        default=FROM_CONFIG,
        help="seconds a table nobody is at stays open",
    )
    group.add_argument(
        "--idle",
        type=float,
        default=FROM_CONFIG,
        help="seconds before a bot plays an idle turn",
    )
    group.add_argument(
        "--search-workers",
        type=positive,
        default=FROM_CONFIG,
        help="processes for hints and hard bots (default: the cores but one)",
    )
    group.add_argument(
        "--search-queue",
        type=positive,
        default=FROM_CONFIG,
        help="hints and hard-bot moves waiting",
    )


def _add_variant_options(parser: argparse.ArgumentParser) -> None:
    """An option for each house rule (protocol/house_rules.py), a count's also for off and
    for each named preset; host.variants_of reads them back."""
    group = parser.add_argument_group("house rules (H1, H2)")
    for rule in HOUSE_RULES:
        if isinstance(rule, Menu):
            group.add_argument(
                rule.option,
                dest=rule.field,
                choices=rule.values,
                default=rule.default,
                help=rule.help,
            )
        elif isinstance(rule, Count):
            group.add_argument(
                rule.option,
                dest=rule.field,
                type=argtypes.counted(rule),
                default=rule.default,
                help=rule.help,
            )
            group.add_argument(rule.off_option, action="store_true", help=rule.off_help)
            for preset in rule.presets:
                if preset.word:
                    said = f"{preset.label} ({rule.rule_id}'s preset of the {rule.label.lower()})"
                    group.add_argument(f"--{preset.word}", action="store_true", help=said)
        else:
            group.add_argument(
                rule.option, dest=rule.field, action="store_true", help=f"{rule.help} (house rule)"
            )


def _add_client_options(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "url",
        type=argtypes.ws_url,
        metavar="URL",
        nargs="?",
        help="ws://HOST:PORT (none: list servers on the LAN)",
    )
    parser.add_argument("--table", help="a table id: go straight to it")
    parser.add_argument("--name", type=argtypes.player_name, default=name, help="your name")
    add_secret(parser, CLIENT)
    _add_tls_options(parser)
    _add_plain_option(parser)
    parser.add_argument(
        "--ask-name",
        action="store_true",
        help="ask your name on the first screen (what the web door starts)",
    )
    parser.add_argument(
        "--door-file",
        metavar="FILE",
        help="what the SSH and web doors start: the door's signed word of your address",
    )
    parser.add_argument(
        "--door-token-file",
        metavar="FILE",
        help="what the SSH door starts for a player whose ssh client offered no key: the "
        "token it knows them by now, shown with how to come back",
    )
    parser.add_argument(
        "--anonymous",
        action="store_true",
        help="prove no lasting identity: seats are kept by their tokens only, and no name "
        "becomes yours (for a run whose state folder is not kept)",
    )
    _add_display_options(parser)
    _add_bell_option(parser)


def _add_tls_options(parser: argparse.ArgumentParser) -> None:
    """How a wss:// server's certificate is trusted: the same for every command that
    connects (join, watch, replay, standings)."""
    tls = parser.add_argument_group(
        "wss:// servers",
        "A certificate no CA vouches for is shown by its fingerprint and trusted once you "
        "say so (by gother join); it stays pinned, and a changed one is refused.",
    )
    tls.add_argument("--cafile", metavar="FILE", help="trust the CAs (or certificate) in FILE")
    tls.add_argument(
        "--fingerprint",
        metavar="SHA256",
        help="trust exactly the certificate with this fingerprint (gother serve prints it)",
    )


def _add_bell_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bell", action="store_true", help="ring the terminal's bell when your turn begins"
    )


def _add_plain_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plain",
        action="store_true",
        help="plain line mode: one line per event, commands typed one a line (for screen "
        "readers, braille displays and scripts; see docs/plain.md)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="with --plain: tell every event and every option in full, with the marks "
        "(by default a round is told short, in words, to be heard in about a minute)",
    )


def _add_display_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="plain ASCII symbols (automatic on a Linux console or a non-UTF-8 locale)",
    )
    parser.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal")
    parser.add_argument("--theme", default="gother", help="colour theme (default: gother)")
