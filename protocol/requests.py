"""Client → server messages as typed values, tagged by `t` (docs/protocol.md).

Every request a client may send is one type here, and `Request` (their union) is the one
list of them: the server's dispatch matches on it (mypy holds that every type is handled),
a client builds them, and `validate_request` reads a decoded frame into one. Each field's
type says what a received value must be (msgspec `Meta`, protocol/fields.py), so a request's
shape, types and ranges are written once, on the type, and msgspec alone checks them; texts
are cleaned in `__post_init__`; `check` holds what a type cannot say (what spans fields, a
text measured once clean). Whether a move is legal is the engine's business, not the
protocol's.

Every request may carry `rid`, echoed in its reply. Fields with a default are optional on
the wire and left out when they hold it; unknown fields are refused, at every level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, get_args

from msgspec.structs import force_setattr

from protocol.checks import Absent, bad, read, show, wire_name
from protocol.constants import (
    HOUSE_SEATS,
    MAX_SEATS,
    PROTOCOL_VERSION,
    SEATS,
    TOURNAMENT_ROUNDS,
)
from protocol.errors import ProtocolError
from protocol.fields import (
    RID_MAX,
    BotKind,
    BotTrait,
    ChatText,
    Deck,
    Game,
    Key,
    Password,
    Rid,
    Seat,
    Signature,
    TableId,
    Token,
    between,
    kept_name,
    on_the_curve,
)
from protocol.moves import Move
from protocol.text import clean_text, tidy_name
from protocol.view import HouseRules, Wire


class Base(Wire, tag_field="t", frozen=True, kw_only=True, forbid_unknown_fields=True):
    rid: Absent[Rid] = None  # echoed in the reply


class AtTable(Base, frozen=True, kw_only=True):
    """A request acting on a table, which it may name; without `table`, the rule of
    docs/protocol.md "Which table a request acts on" picks one."""

    table: Absent[TableId] = None


class Named(Base, frozen=True, kw_only=True):
    """A request that names a player or a table: the name as it is kept, tidied."""

    name: str

    def __post_init__(self) -> None:
        force_setattr(self, "name", tidy_name(self.name))

    def check(self, where: str) -> None:
        kept_name(self.name, f"{where}.name")


# -- arriving ---------------------------------------------------------------------------------


class Hello(Named, tag="hello", frozen=True, kw_only=True):
    """The first request of a connection. `password`: the server's own, when it has one;
    `key`: the client's public key, which a `prove` of the challenge in `welcome` makes its
    lasting identity."""

    v: Annotated[int, between(PROTOCOL_VERSION, PROTOCOL_VERSION)]  # always sent
    password: Absent[Password] = None
    key: Absent[Key] = None

    def check(self, where: str) -> None:
        super().check(where)
        if self.key is not None and not on_the_curve(self.key):
            raise bad(f"{where}.key", "is not an Ed25519 public key (no point of the curve)")


class Prove(Base, tag="prove", frozen=True, kw_only=True):
    signature: Signature


# -- the lobby ------------------------------------------------------------------------------


class List(Base, tag="list", frozen=True, kw_only=True):
    offset: Annotated[int, between(0, 100_000)] = 0  # a page of the tables from here


class Clock(Wire, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A table's clock: seconds in each bank at the start, seconds added after each move."""

    initial: Annotated[int, between(10, 7200)]
    increment: Annotated[int, between(0, 600)]


class Create(Named, tag="create", frozen=True, kw_only=True):
    seats: Annotated[int, between(HOUSE_SEATS.start, HOUSE_SEATS.stop - 1)]
    bots: Annotated[int, between(0, MAX_SEATS)]
    variants: Absent[HouseRules] = None
    deck: Absent[Deck] = None
    password: Absent[Password] = None
    clock: Absent[Clock] = None
    bot: Absent[BotKind] = None  # how its bots play: the server's default
    # whom its bots hurt: the server's default for the seat count (protocol.constants)
    trait: Absent[BotTrait] = None

    def check(self, where: str) -> None:
        super().check(where)
        # 2 and 6 seats are a labelled house rule (RULES.md R2), so they need the variant flag.
        two_or_six = self.variants is not None and self.variants.two_or_six
        if not two_or_six and self.seats not in SEATS:
            raise bad(
                f"{where}.seats",
                f"must be between {SEATS.start} and {SEATS.stop - 1} unless variants.two_or_six "
                f"is true, got {self.seats}",
            )
        if self.bots > self.seats:
            raise bad(f"{where}.bots", f"must be at most seats ({self.seats}), got {self.bots}")


class Join(Base, tag="join", frozen=True, kw_only=True):
    table: TableId
    seat: Absent[Seat] = None  # the first free one when left out
    password: Absent[Password] = None


class Resume(Base, tag="resume", frozen=True, kw_only=True):
    """A seat back: by its token (with its table: a host's process that does not hold it
    says where it is), or (a proven identity) by the table where it holds one."""

    token: Absent[Token] = None
    table: Absent[TableId] = None

    def check(self, where: str) -> None:
        if self.token is None and self.table is None:
            raise bad(where, "give the seat's token, or the table")


class Watch(Base, tag="watch", frozen=True, kw_only=True):
    table: TableId
    password: Absent[Password] = None


# -- at a table -------------------------------------------------------------------------------


class Start(AtTable, tag="start", frozen=True, kw_only=True):
    """Fill the empty seats with bots and deal."""


class Play(AtTable, tag="move", frozen=True, kw_only=True):
    """A move played (the wire's `move`; `Move` is the move itself)."""

    move: Move

    def check(self, where: str) -> None:
        self.move.check(f"{where}.move")


class Chat(AtTable, tag="chat", frozen=True, kw_only=True):
    """A line said at a table, kept cleaned (protocol/text.py `clean_text`)."""

    text: str

    def __post_init__(self) -> None:
        force_setattr(self, "text", clean_text(self.text))

    def check(self, where: str) -> None:
        read(ChatText, self.text, f"{where}.text")


class Hint(AtTable, tag="hint", frozen=True, kw_only=True):
    pass


class Leave(AtTable, tag="leave", frozen=True, kw_only=True):
    pass


class Rematch(AtTable, tag="rematch", frozen=True, kw_only=True):
    pass


class Pause(AtTable, tag="pause", frozen=True, kw_only=True):
    on: bool  # vote to pause (true) or to go on (false)


class End(AtTable, tag="end", frozen=True, kw_only=True):
    """Vote to end the game in progress unfinished."""


# -- finished games -------------------------------------------------------------------------


class Finished(Base, frozen=True, kw_only=True):
    """A request about a finished game of `table` (its newest when `game` is left out);
    `password`: the table's, for one not watched or played."""

    table: TableId
    game: Absent[Game] = None
    password: Absent[Password] = None


class Record(Finished, tag="record", frozen=True, kw_only=True):
    """A finished game's record, in parts of at most RECORD_PART bytes."""

    part: Annotated[int, between(0, 10_000)] = 0
    seat: Absent[Seat] = None  # also that seat's own views: its replay


class Review(Finished, tag="review", frozen=True, kw_only=True):
    """A seat's decisions in a finished game, judged by the hard bot's search from its view."""

    seat: Seat


class PlayOn(Finished, tag="play_on", frozen=True, kw_only=True):
    """A new table, the asker at `seat` and bots elsewhere, its game played on from turn
    `turn` (from 1) of a finished game as that seat knew it."""

    seat: Seat
    turn: Annotated[int, between(1, 1_000_000)]
    bot: Absent[BotKind] = None  # the finished table's when left out


# -- tournaments and standings --------------------------------------------------------------


class TournamentCreate(Named, tag="tournament_create", frozen=True, kw_only=True):
    """A tournament, created with the host's leave (`password`)."""

    rounds: Annotated[int, between(1, TOURNAMENT_ROUNDS)]
    seats: Annotated[int, between(SEATS.start, SEATS.stop - 1)]
    variants: Absent[HouseRules] = None
    bot: Absent[BotKind] = None
    duplicate: bool = False
    password: Absent[Password] = None
    play: bool = False  # its creator registers in it at once


class OfTournament(Base, frozen=True, kw_only=True):
    tournament: TableId


class TournamentJoin(OfTournament, tag="tournament_join", frozen=True, kw_only=True):
    """Register, or come back (with no proven identity: with the entry's `secret`)."""

    secret: Absent[Token] = None


class TournamentStart(OfTournament, tag="tournament_start", frozen=True, kw_only=True):
    """Its creator deals round 1."""


class TournamentDrop(OfTournament, tag="tournament_drop", frozen=True, kw_only=True):
    """Out of the rounds to come."""


class TournamentWatch(OfTournament, tag="tournament_watch", frozen=True, kw_only=True):
    """Follow the standings."""


class Standings(Base, tag="standings", frozen=True, kw_only=True):
    """A page of the host's standings (every player's record and rating) from `offset` on."""

    offset: Annotated[int, between(0, 1_000_000)] = 0


Request = (
    Hello
    | Prove
    | List
    | Create
    | Join
    | Resume
    | Watch
    | Start
    | Play
    | Chat
    | Hint
    | Leave
    | Rematch
    | Pause
    | End
    | Record
    | Review
    | PlayOn
    | TournamentCreate
    | TournamentJoin
    | TournamentStart
    | TournamentDrop
    | TournamentWatch
    | Standings
)
TYPES: dict[str, type[Request]] = {str(cls.__struct_config__.tag): cls for cls in get_args(Request)}


def validate_request(msg: Mapping[str, Any]) -> Request:
    """A decoded client message as its typed request, or ProtocolError naming the fault."""
    if not isinstance(msg, Mapping):
        raise ProtocolError("bad_message", "a message must be a map")
    kind = msg.get("t")
    if not isinstance(kind, str) or kind not in TYPES:
        raise ProtocolError("bad_message", f"unknown message type {show(kind)}")
    if kind == "hello":
        _check_version(msg)
    return read(TYPES[kind], msg, kind)


def _check_version(msg: Mapping[str, Any]) -> None:
    # Before the shape check: another version's hello may well have other fields, and the
    # useful answer to any `v` but ours (missing, another number, "1", 1.0, true) is the
    # version mismatch, not a complaint about a field.
    if "v" not in msg:
        raise ProtocolError(
            "bad_version", f"server speaks protocol {PROTOCOL_VERSION}, client sent no version"
        )
    version = msg["v"]
    if type(version) is not int or version != PROTOCOL_VERSION:
        if version is None:
            sent = "nil"  # not "nil None": the type is the whole story
        elif type(version) is int:
            sent = str(version)
        else:
            sent = f"{wire_name(version)} {show(version)}"
        raise ProtocolError(
            "bad_version", f"server speaks protocol {PROTOCOL_VERSION}, client sent {sent}"
        )


def request_id(msg: object) -> int | None:
    """The message's `rid` if it is a valid one, so even an `error` reply can echo it."""
    if not isinstance(msg, Mapping):
        return None
    rid = msg.get("rid")
    return rid if type(rid) is int and 0 <= rid <= RID_MAX else None
