"""The `gother` command line: parse the arguments, then run the chosen command.

One module a job: `parser` (every subcommand and option), `argtypes` (what an argument may
be), `client` (the full-screen commands), `play` (a private server and the client at its
table), `host` (simulate, serve, bot, export) and `server_side`, the only module of
gother_tui that imports `server`, lazily. A command's imports wait until it runs, so
`gother join` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gother_tui.cli import client
from gother_tui.cli.parser import build_parser
from gother_tui.core.logs import errors_to_host

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    errors_to_host()  # a door's client: no traceback on a remote player's screen
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            parser.print_help()  # no terminal to draw a menu on
            return 0
        chosen = client.start_menu()
        return 0 if chosen is None else main(chosen)
    code: int = args.run(args, parser)
    return code
