"""The plain mode's `replay`: a finished game told one turn at a time, as one seat saw it
(its hand, what was public), from the record the server sends with that seat's views.

`replay [TABLE [GAME]] [seat N] [turn T]`, or a reference a player pasted
(ws://HOST:PORT/TABLE/GAME#seat2-turn31); at a finished table, `replay` alone is your own
game from turn 1, and `replay next` goes on to the turn after the last one told.
"""

from __future__ import annotations

from dataclasses import dataclass

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.record import GameRecord, RecordError, Reference, parse_reference
from gother_tui.plain import words
from gother_tui.plain.moves import Problem
from gother_tui.plain.story import told
from protocol.view import View

USAGE = "replay [TABLE [GAME]] [seat N] [turn T], or a reference ws://HOST/TABLE/GAME#seat2-turn31"


@dataclass(frozen=True, slots=True)
class Place:
    table: str
    game: int | None
    seat: int | None  # from 0; None: the referee's views, every hand shown
    turn: int  # from 1


def place_of(args: str, view: View | None) -> Place:
    """Where `args` asks to replay; the game of the table you are at fills what is left
    out. Problem when a word is not understood or nothing names a game."""
    words_ = args.split()
    pasted: Reference | None = None
    if words_ and words_[0].startswith(("ws://", "wss://")):
        try:
            pasted = parse_reference(words_.pop(0))
        except RecordError as exc:
            raise Problem(f"{exc}.") from None
    table, game, seat, turn = None, None, None, None
    if pasted is not None:
        table, game, seat, turn = pasted.table, pasted.game, pasted.seat, pasted.turn
    bare: list[str] = []
    while words_:
        word = words_.pop(0).lower()
        if word in ("seat", "turn"):
            number = words_.pop(0) if words_ else ""
            if not (number.isdigit() and int(number) >= 1):
                raise Problem(f"{word} N: N is a number from 1. Usage: {USAGE}.")
            if word == "seat":
                seat = int(number) - 1
            else:
                turn = int(number)
        else:
            bare.append(word)
    if len(bare) > 2 or (len(bare) == 2 and not bare[1].isdigit()):
        raise Problem(f"Usage: {USAGE}.")
    if bare:
        table = bare[0]
        game = int(bare[1]) if len(bare) == 2 else None
    here = view is not None and (table is None or table == view.table.id)
    if here and view is not None:
        table = view.table.id
        game = view.table.game if game is None else game
        seat = view.seat if seat is None and pasted is None else seat
    if table is None:
        raise Problem(f"Which game? At no table: {USAGE}.")
    return Place(table, game, seat, turn or 1)


def turn_lines(record: GameRecord, turn: int, glyphs: Glyphs) -> list[str]:
    """Turn `turn` of `record` as its seat saw it (every hand once the game is over, or for
    a record of no seat): where it stands at the turn's start, then each move's story."""
    catalogue = Catalogue(record.cards)
    views = record.seen if record.seen is not None else record.views
    start = record.turn_position(turn)
    starts = record.turn_starts()
    end = starts[turn] if turn < len(starts) else len(views) - 1
    first = views[start]
    whose = "every hand shown" if record.seat is None else f"as seat {record.seat + 1} saw it"
    lines = [
        f"Replay of {record.name}, game {record.game}, {whose}: "
        f"turn {turn} of {len(starts)}, {words.round_line(first)}"
    ]
    if first.seat is not None:
        lines += words.hand_lines(first, catalogue, glyphs)
    for before, after in zip(views[start:end], views[start + 1 : end + 1], strict=True):
        lines += [line.text for line in told(before, after, catalogue, glyphs)]
    if turn < len(starts):
        lines.append(f"Next: replay next (turn {turn + 1}).")
    else:
        lines.append(f"The end of the game: {words.winners(views[-1])}.")
    return lines
