"""The one exception type of the protocol and its stable error codes."""

from typing import Literal, get_args

# Codes sent in `error.code`. Stable: clients branch on them, so never rename one. A Literal,
# so mypy holds every raise site to one of them: a misspelt code fails the type check.
ErrorCode = Literal[
    "bad_frame",
    "bad_message",
    "bad_version",
    "not_your_turn",
    "illegal_move",
    "game_over",
    "table_full",
    "no_such_table",
    "no_such_seat",
    "seat_taken",
    "bad_token",
    "wrong_password",
    "too_many_attempts",
    "rate_limited",
    "not_seated",
    "already_started",
    "not_started",
    "too_many_tables",
    "bad_deck",
    "hello_first",
    "no_spectators",
    "store_failed",
    "table_stopped",
    "table_broken",
    "paused",
    "too_many_seats",
    "no_record",
    "no_such_turn",
    "name_taken",
    "no_tournaments",
    "no_such_tournament",
    "not_organiser",
    "not_registered",
    "no_standings",
    "busy",
    "thinking",
    "search_failed",
    "bad_door",
    "bad_signature",
    "server_error",
    "elsewhere",  # the table lives at another process of the host: `error.url`
]
ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class ProtocolError(Exception):
    """A request the peer got wrong; becomes an `error` reply with this code and message."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        if code not in ERROR_CODES:  # for a caller mypy does not see: never reaches a client
            raise ValueError(f"{code!r} is no error code of the protocol")
        self.code: ErrorCode = code
        self.message = message
        super().__init__(f"{code}: {message}")
