"""The one exception type of the protocol and its stable error codes."""

from enum import StrEnum


class ErrorCode(StrEnum):
    """Codes sent in `error.code`. Stable: clients branch on them, so never rename one."""

    BAD_FRAME = "bad_frame"
    BAD_MESSAGE = "bad_message"
    BAD_VERSION = "bad_version"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    GAME_OVER = "game_over"
    TABLE_FULL = "table_full"
    NO_SUCH_TABLE = "no_such_table"
    NO_SUCH_SEAT = "no_such_seat"
    SEAT_TAKEN = "seat_taken"
    BAD_TOKEN = "bad_token"
    WRONG_PASSWORD = "wrong_password"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    RATE_LIMITED = "rate_limited"
    NOT_SEATED = "not_seated"
    ALREADY_STARTED = "already_started"
    NOT_STARTED = "not_started"
    TOO_MANY_TABLES = "too_many_tables"
    BAD_DECK = "bad_deck"
    HELLO_FIRST = "hello_first"
    NO_SPECTATORS = "no_spectators"
    STORE_FAILED = "store_failed"
    TABLE_STOPPED = "table_stopped"
    TABLE_BROKEN = "table_broken"
    PAUSED = "paused"
    TOO_MANY_SEATS = "too_many_seats"
    NO_RECORD = "no_record"
    NO_SUCH_TURN = "no_such_turn"
    NAME_TAKEN = "name_taken"
    NO_TOURNAMENTS = "no_tournaments"
    NO_SUCH_TOURNAMENT = "no_such_tournament"
    NOT_ORGANISER = "not_organiser"
    NOT_REGISTERED = "not_registered"
    NO_STANDINGS = "no_standings"
    BUSY = "busy"
    THINKING = "thinking"
    SEARCH_FAILED = "search_failed"
    BAD_DOOR = "bad_door"
    BAD_SIGNATURE = "bad_signature"
    SERVER_ERROR = "server_error"


class ProtocolError(Exception):
    """A request the peer got wrong; becomes an `error` reply with this code and message."""

    def __init__(self, code: str, message: str) -> None:
        # ErrorCode(code) raises ValueError on a typo, so an unknown code never reaches a client.
        self.code = ErrorCode(code)
        self.message = message
        super().__init__(f"{self.code}: {message}")
