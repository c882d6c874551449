"""What the engine adds to the protocol's moves (protocol/moves.py): who made one, and why
one is refused.

A move is the protocol's typed value, the same at every end; the engine takes it with the
seat that makes it (with `overflow = "immediate"` a player who is not the active one may
have to discard down), and a game's history is its moves as `Played`.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.errors import ErrorCode
from protocol.moves import Move


class MoveError(ValueError):
    """A move that may not be made now. `code` is the stable protocol code
    (`not_your_turn`, `illegal_move`, `game_over`); `message` is for people."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Played(NamedTuple):
    """One move of a game's history: the seat that made it, and the move (a record's
    `[seat, move]`)."""

    seat: int
    move: Move
