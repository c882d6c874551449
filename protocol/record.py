"""A finished game's record: what `gother export` writes and a `record` reply's parts make
when joined (docs/protocol.md, "Records"). The server builds it (server/tables/export.py);
a client reads it whole into this type, every view validated as every `state` is
(gother_tui/core/record.py), and never runs the engine: the views are the replay.

Fields with a default are left out when they hold it (docs/protocol.md says when).
"""

from __future__ import annotations

import msgspec

from protocol.moves import Move
from protocol.start import Start
from protocol.view import Card, Variants, View, Wire

RECORD_VERSION = 1


class RecordTable(msgspec.Struct, frozen=True):
    id: str
    name: str
    deck: str = ""  # the deck file's name


class GameRecord(Wire, frozen=True):
    """A game's record, field by field."""

    record: int  # RECORD_VERSION
    table: RecordTable
    variants: Variants
    players: tuple[str, ...]
    cards: tuple[Card, ...]
    seed: int  # revealed: the game is over (or the host exported it)
    game: int  # the table's game, from 1
    moves: tuple[tuple[int, Move], ...]  # each (seat, move)
    chat: tuple[tuple[str, str], ...]  # (sender, text)
    ended: str | None  # "abandoned" when the players ended it; always there, nil or not
    views: tuple[View, ...]  # the referee's, after the deal and after every move
    start: Start | None = None  # a played-on game's: where it began (not at a deal)
    seat: int | None = None  # with `seen`: that seat's own views, for its replay
    seen: tuple[View, ...] | None = None
