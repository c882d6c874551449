"""Server → client messages as typed values, tagged by `t` (docs/protocol.md).

The server builds these and `protocol.encode` writes them; a client turns each decoded frame
into one with `parse`, which validates it whole and names a malformed field. Replies to a
request carry its `rid` when it had one; `state`, `chat` and `closed` are broadcasts, except
that the copy going to the connection whose request caused it (a `move`, `start`, `pause`,
`rematch` or `end`; a `chat`; the deciding `end`) carries that request's `rid`.

Used as a namespace (`server_messages.State`): names like `State` and `Error` are too
generic to import bare.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from protocol.constants import PROTOCOL_VERSION
from protocol.errors import ERROR_CODES, ErrorCode
from protocol.moves import Move
from protocol.view import Card, Event, Variants, View, Wire, convert


class Reply(Wire, tag_field="t", frozen=True):
    rid: int | None = None  # the request's, echoed


class Welcome(Reply, tag="welcome", kw_only=True, frozen=True):
    v: int  # the protocol version the server speaks
    server: str  # software and version, e.g. "gother 0.1.0"
    # to sign in `prove`, when the hello carried a key (added in v1)
    challenge: bytes | None = None

    @classmethod
    def of(cls, server: str, rid: int | None = None, challenge: bytes | None = None) -> Welcome:
        return cls(v=PROTOCOL_VERSION, server=server, rid=rid, challenge=challenge)


class HeldSeat(Wire, frozen=True):
    """A seat an identity holds in a game not over: `resume {table}` takes it back."""

    table: str
    seat: int


class Proven(Reply, tag="proven", kw_only=True, frozen=True):
    """The reply to `prove`: the connection is this lasting identity, holding these seats."""

    identity: str
    # always sent, empty too (it was left out when empty); None only from such a server
    seats: tuple[HeldSeat, ...] | None = None


class TableRow(Wire, frozen=True):
    """One table of the `tables` listing."""

    id: str
    name: str
    seats: int
    seated: int  # seats taken, bots included
    free: int
    bots: int
    players: tuple[str | None, ...]  # the seated names in seat order, None for a free seat
    phase: str
    started: bool
    spectators: int
    password: bool  # whether `join` needs one
    variants: Variants
    deck: str
    broken: str | None = None  # why this table could not be restored: it takes nobody
    # How its bots play, in the players' words ("easy", "normal", "hard"; a kind that has
    # none, such as "random", as itself); None from servers older than the field.
    bot: str | None = None
    trait: str | None = None  # whom its bots hurt ("vengeful", "steady"); None: older servers
    # How long its games run, from measured games of its seat count, bots and round cap
    # ("usually 5 to 9 rounds; about one game in 11 runs past 14"); None: none measured.
    lasts: str | None = None


class TournamentRow(Wire, frozen=True):
    """A tournament not over, as the `tables` listing names it: register or follow it."""

    id: str
    name: str
    phase: str  # registering | playing
    round: int  # the round being played, 0 while registering
    rounds: int
    seats: int  # at every table
    players: int  # registered
    duplicate: bool


class Tables(Reply, tag="tables", kw_only=True, frozen=True):
    """One page of the listing: `tables` from `offset` on, of `total` in all; and the
    server's tournaments not over, oldest first (on every page)."""

    tables: tuple[TableRow, ...]
    offset: int = 0
    total: int | None = None  # None only from servers older than pages
    tournaments: tuple[TournamentRow, ...] = ()  # none from servers older than the field


class Created(Reply, tag="created", kw_only=True, frozen=True):
    table: str  # the creator is not seated until it sends `join`


class Joined(Reply, tag="joined", kw_only=True, frozen=True):
    table: str
    seat: int
    token: str  # secret: kept to `resume` the seat, never shown
    cards: tuple[Card, ...]  # the card catalogue, once per table
    covered_rounds: int = 0  # on `resume`: rounds a bot played for this seat while away


class Watching(Reply, tag="watching", kw_only=True, frozen=True):
    table: str
    cards: tuple[Card, ...]


class Hint(Reply, tag="hint", kw_only=True, frozen=True):
    move: Move  # as a client would send it
    reason: str | None = None  # one line on why, for people; an older server leaves it out
    # The search's numbers (absent from an older server, and where no search was needed):
    # the chance to win after `move` as the search estimates it (0 to 1) and the Goth it
    # expects you to hold at your next turn; the same for `versus`, the move `reason`
    # compares it with (the one a player would most likely weigh against it).
    win: float | None = None
    goth: float | None = None
    versus: Move | None = None
    versus_win: float | None = None
    versus_goth: float | None = None


class Left(Reply, tag="left", kw_only=True, frozen=True):
    table: str


class Record(Reply, tag="record", kw_only=True, frozen=True):
    """Part `part` of `parts` of a finished game's record: the parts' `data` joined in order
    are the msgpack record `gother export` writes (with the same fields; asked with `seat`,
    also that seat's own views, `seen`)."""

    table: str
    game: int
    part: int
    parts: int
    data: bytes
    seat: int | None = None  # the seat asked for, if any


class ReviewMoment(Wire, frozen=True):
    """One decision of the reviewed seat: what it played, what the search (the hint's judge)
    advised from the same view, and what the difference cost."""

    step: int  # the move's place among the game's moves, from 0
    round: int
    played: Move
    advised: Move
    cost: float  # Goth expected at the seat's next turn given up, by the search's play-outs
    why: str  # what the advised move does, in one line
    # Added by issue 30 (an older server leaves them out): the advice's chance to win as the
    # search estimates it (0 to 1), the points of it the move played gave up (advice less
    # played, both played out in the same worlds; 0 when alike, below 0 when the move
    # played did better) and that figure's noise (its standard error); the hint the player
    # was given at this decision, and whether the move played was that hint's advice.
    win: float | None = None
    given_up: float | None = None
    noise: float | None = None
    hint: Move | None = None
    followed_hint: bool = False


class CostlyMoment(Wire, frozen=True):
    """A moment told: `sentence` says what was played, what the search would have played
    and what it cost; `given_up` and `noise` are that cost in points of the chance to win,
    by `play_outs` play-outs to the game's end (an older server leaves them out)."""

    step: int  # the moment's `step`
    sentence: str
    given_up: float | None = None
    noise: float | None = None
    play_outs: int | None = None


class Review(Reply, tag="review", kw_only=True, frozen=True):
    """A seat's review: every decision it made in game `game`, the (at most three) moments
    told, dearest first, each with a sentence, and a line for the whole game."""

    table: str
    game: int
    seat: int
    moments: tuple[ReviewMoment, ...]
    costliest: tuple[CostlyMoment, ...]
    summary: str | None = None  # an older server leaves it out


class StandingsRow(Wire, frozen=True):
    """One player of the `standings`: their record of finished games and their rating."""

    player: str  # the identity: a stable key, not for showing
    name: str  # the identity as people read it
    bot: bool
    reference: bool  # a bot at a fixed rating (easy, normal, hard): the scale's marks
    mu: float  # openskill Plackett-Luce's (a new player is 25): `rating` says it to people
    sigma: float  # its uncertainty
    provisional: bool  # too few games yet for the rating to mean much
    games: int
    wins: int  # games won, a shared win included
    places: tuple[int, ...]  # places[i]: games finished in place i + 1
    last_seen: str  # when their latest game ended: UTC, ISO 8601
    # the rating on the one scale every face shows (RATING_START a new player's), and how
    # far off it may be either way; None only from servers older than the fields
    rating: int | None = None
    spread: int | None = None


class Standings(Reply, tag="standings", kw_only=True, frozen=True):
    """One page of the host's standings, the best first: `rows` from `offset` on, of
    `total`; a rating is provisional until `provisional_games` games."""

    rows: tuple[StandingsRow, ...]
    offset: int
    total: int
    provisional_games: int


class Closed(Wire, tag_field="t", tag="closed", frozen=True):
    """The table is gone (its game was ended by a vote, or it expired): no more `state`."""

    table: str
    reason: str
    rid: int | None = None  # only to the player whose `end` vote closed it


class TournamentTable(Wire, frozen=True):
    """One table of a tournament round: watch it by its id."""

    table: str
    players: tuple[str, ...]  # the tournament's players at it in seat order; bots sit after
    bots: int
    over: bool
    keys: tuple[str, ...] = ()  # the same players by the standings' `player` key (older: none)


class TournamentStanding(Wire, frozen=True):
    player: str  # the identity, a stable key (as in the `standings` rows)
    name: str  # the identity as people read it
    games: int
    points: float  # by place, summed over the tournament's games
    goth: int  # Goth Points, summed
    rating: float  # the host's, on the standings' scale (an older server's: mu - 3 sigma)
    match_points: float  # duplicate deals: seat-by-seat comparisons won (else 0)
    dropped: bool
    spread: int | None = None  # as in the standings; None only from older servers


class Tournament(Reply, tag="tournament", kw_only=True, frozen=True):
    """A tournament as it stands, to its players and watchers after every change."""

    id: str
    name: str
    rounds: int
    seats: int  # at every table: bots fill short ones
    duplicate: bool  # every table of a round is dealt the same cards seat by seat
    variants: Variants
    phase: str  # registering | playing | over
    round: int  # the round being played, 0 while registering
    players: tuple[str, ...]  # registered, in registration order
    tables: tuple[TournamentTable, ...]  # the round's (one frame holds them, not every round's)
    standings: tuple[TournamentStanding, ...]  # best first
    # only in the answer to the `tournament_join` that registered a player with no proven
    # identity: the entry's secret, which a later `tournament_join` gives to come back
    secret: str | None = None


class Error(Reply, tag="error", kw_only=True, frozen=True):
    code: ErrorCode  # clients branch on it
    message: str  # one sentence for people, not to be parsed
    url: str | None = None  # `elsewhere`: where the process holding the table is
    # an unsolicited `elsewhere` (no rid): the tournament table held for you there, to resume
    table: str | None = None

    def __post_init__(self) -> None:
        if self.code not in ERROR_CODES:  # built by a caller mypy does not see
            raise ValueError(f"{self.code!r} is no error code of the protocol")


class State(Wire, tag_field="t", tag="state", frozen=True):
    """A full snapshot of the table for one viewer, after every change."""

    seq: int
    view: View
    rid: int | None = None  # only on the state that answers the viewer's own request


class Story(Wire, tag_field="t", tag="story", kw_only=True, frozen=True):
    """Events `start` on of game `game`'s log, as this viewer's view tells them: sent in
    parts after `joined` or `watching`, before the first `state`, so a client that comes
    in late or comes back holds the whole game's story (a `state` carries only its newest
    events)."""

    table: str
    game: int
    start: int
    log: tuple[Event, ...]


class Chat(Wire, tag_field="t", tag="chat", frozen=True):
    sender: str = msgspec.field(name="from")  # `from` is a Python keyword
    text: str
    table: str | None = None  # the table it was said at; None only from older servers
    rid: int | None = None  # only on the sender's own copy: the reply to its `chat`
    watching: bool = False  # said by a spectator (sent only when true; added in v1)


Message = (
    Welcome
    | Proven
    | Tables
    | Created
    | Joined
    | Watching
    | Hint
    | Left
    | Record
    | Review
    | Standings
    | Closed
    | Tournament
    | Error
    | State
    | Story
    | Chat
)
_KNOWN = frozenset(cls.__struct_config__.tag for cls in get_args(Message))


# The frame as `decode` gives it: this is where it becomes a type.
def parse(frame: dict[str, Any]) -> Message | None:
    """A decoded frame as its message, or None for a type this client does not know (a
    newer server's); ProtocolError when a known message is malformed."""
    kind = frame.get("t")
    if kind not in _KNOWN:
        return None
    return convert(frame, Message, str(kind))  # type: ignore[arg-type]
