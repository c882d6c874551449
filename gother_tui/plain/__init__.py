"""The plain line mode (`--plain`): the game as one line per event, commands typed one a
line, for screen readers, braille displays, dumb terminals and scripts (docs/plain.md).

Never a cursor movement, a colour or a box: every line is plain text, written whole; the
narrator tells what happens, the numbered options come from the server's `legal`. No
Textual is loaded: the client's core (gother_tui.core) is the full-screen client's too.

- `terminal`: lines out (made printable, ASCII when asked) and lines in (from a thread).
- `story`: what a new view adds to the story (the narrator's lines, who came and went).
- `ear`: that story told short for the ear, the default (`--verbose`: every line of it).
- `words`: what the looking commands print (hand, piles, scores, discard pile, seats, tables).
- `choices`: a decision's numbered options, taken from `legal`.
- `commands`: the command words, their aliases and help; `parse` reads a line.
- `moves`: typed cards and seats made into wire moves, through the client's `Plan`.
- `player`: each command, done.
- `client`: the core's face: the connection, the flow and the table, as lines.

`run(options)` is the whole client on this process's stdin and stdout; its exit status.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
from functools import partial

from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import TransportFactory, WebSocketTransport
from gother_tui.plain.client import PlainClient
from gother_tui.plain.listening import Listener
from gother_tui.plain.player import Player
from gother_tui.plain.terminal import Output, read_lines, set_echo

STDIN = 0  # the descriptor, not sys.stdin: read below any Python buffer (terminal.py)


def run(
    options: ClientOptions,
    seat_store: SeatStore | None = None,
    transport: TransportFactory = WebSocketTransport,
    listener: Listener | None = None,
) -> int:
    """`listener`: told every line written (a private server's bots wait for it)."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")  # a locale that cannot show a name
    out = Output(sys.stdout, options.ascii, listener=listener)

    async def main() -> int:
        client = PlainClient(
            options, out, transport=transport, seat_store=seat_store, echo=partial(set_echo, STDIN)
        )
        return await client.run(read_lines(STDIN), Player)

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:  # Ctrl+C: as quit, without a traceback
        return 130
    finally:
        if out.closed:  # the reader has gone: the flush at exit must not complain
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
