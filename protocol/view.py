"""What the server shows: the card catalogue, the variants, and the view of a table, as
typed immutable values (docs/protocol.md, "The view"). Defined here once for every end.

The engine builds these (`server.game.view` alone decides what each viewer may see), the
server encodes them, and clients and network bots parse every `state` with `View.from_wire`,
which validates the whole view and names the field at fault: a malformed view is a
ProtocolError, never a view with a default filled in. Fields a newer server adds are
ignored, so the contract can grow.

Field order is wire order. Fields with a default are *optional on the wire*: left out when
they hold that default (a spectator's hand before the game is over, a table without a
clock, a blind draw's card).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec

from protocol.checks import boolean, integer, nullable, one_of
from protocol.constants import (
    DEFAULT_ROUND_CAP,
    FATE_DISCARDS,
    HAND_SIZE,
    HOUSE_SEATS,
    OVERFLOWS,
    ROUND_CAPS,
    SEATS,
)
from protocol.errors import ProtocolError

Phase = Literal["lobby", "discard_fate", "distribute", "draw", "over"]
FateDiscard = Literal["any", "top"]
Overflow = Literal["draw_step", "immediate"]


class Wire(msgspec.Struct, frozen=True, omit_defaults=True):
    """A value of the wire contract: immutable, encoded as a map in field order."""

    def to_wire(self) -> Any:
        """As plain maps and lists, exactly what a peer decodes: for storage and tests."""
        return _DECODER.decode(_ENCODER.encode(self))


T = TypeVar("T")
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder()


def convert(data: Any, kind: type[T], where: str) -> T:
    """`data` (decoded msgpack) as a `kind`, or ProtocolError("bad_message") naming the
    field, e.g. "view.players[2].fate[0]: Expected `int`, got `str`"."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        problem, _, path = str(exc).partition(" - at `$")
        raise ProtocolError("bad_message", f"{where}{path.rstrip('`')}: {problem}") from None


# -- the catalogue and the house rules -----------------------------------------------------


class Card(Wire, frozen=True):
    """One physical card (R1): its id on the wire follows the deck file, never the shuffle."""

    id: int
    name: str
    flavour: str
    goth: int
    sickness: int
    money: int


class Variants(msgspec.Struct, frozen=True, kw_only=True):
    """House rules a host may choose (H1, H2, R2's labelled 2/6-player rule). Every key is
    always on the wire, filled in, from the server; a request may leave any out (its
    default). The annotations are the checks a request's variants pass."""

    fate_discard: Annotated[FateDiscard, one_of(*FATE_DISCARDS)] = "any"  # R10 / H2
    overflow: Annotated[Overflow, one_of(*OVERFLOWS)] = "draw_step"  # R13 / H2
    # H1; None turns it off
    round_cap: Annotated[int | None, nullable(integer(ROUND_CAPS.start, ROUND_CAPS.stop - 1))] = (
        DEFAULT_ROUND_CAP
    )
    two_or_six: Annotated[bool, boolean] = False  # R2: 2 or 6 seats, only as a house rule

    def __post_init__(self) -> None:
        # msgspec checks types on `convert`, not in the constructor: check values here.
        if self.fate_discard not in FATE_DISCARDS:
            raise ValueError(f"fate_discard must be 'any' or 'top', not {self.fate_discard!r}")
        if self.overflow not in OVERFLOWS:
            raise ValueError(f"overflow must be 'draw_step' or 'immediate', not {self.overflow!r}")
        if self.round_cap is not None and self.round_cap not in ROUND_CAPS:
            raise ValueError(
                f"round_cap must be {ROUND_CAPS.start}..{ROUND_CAPS.stop - 1} or off, "
                f"not {self.round_cap}"
            )

    @property
    def seat_range(self) -> range:
        return HOUSE_SEATS if self.two_or_six else SEATS

    # The map of a request a client writes by hand (gother_tui/cli/play.py), every key set.
    def to_wire(self) -> dict[str, Any]:
        return _DECODER.decode(_ENCODER.encode(self))  # type: ignore[no-any-return]

    # A map such as a record's `variants` (for clients and tests: the server reads none).
    @classmethod
    def from_wire(cls, data: dict[str, Any] | None) -> Variants:
        return convert(data or {}, cls, "variants")


# -- the view --------------------------------------------------------------------------------


class ClockRule(Wire, frozen=True):
    initial: float  # seconds in each player's bank at the start of a game
    increment: float  # seconds added after each move the player makes


class CoverWarning(Wire, frozen=True):
    """A bot covers this present player's decision in `seconds` unless they act."""

    seat: int
    seconds: float


class TableInfo(Wire, frozen=True):
    """The table the view is of: lobby facts, nothing secret."""

    variants: Variants
    id: str
    name: str
    deck: str
    seats: int
    game: int  # games dealt at this table so far (a rematch adds one)
    spectators: int
    password: bool
    clock: ClockRule | None = None
    paused: bool = False  # every human present voted to pause: clocks and bots wait
    pause_votes: tuple[int, ...] = ()  # seats asking to pause (or, paused, to stay paused)
    end_votes: tuple[int, ...] = ()  # seats asking to end the game unfinished
    warning: CoverWarning | None = None
    stopped: str | None = None  # why the table takes no moves now (a failed write)
    wins: tuple[int, ...] = ()  # games won per seat at this table since it was made (or the
    # server restarted); empty until a game is won


class Scores(Wire, frozen=True):
    """Sums over a Fate pile (R5); `sickness` already floored at 0 (R6)."""

    goth: int
    sickness: int
    money: int


class SeatInfo(Wire, frozen=True):
    """Who holds a seat: lobby facts the server knows and the engine does not."""

    seat: int
    name: str | None  # None: a free seat
    bot: bool
    connected: bool
    covered: bool  # a bot plays for this absent player (or finishes a timed-out turn)
    rematch: bool  # asked for a rematch
    clock: float | None = None  # seconds left, at a table with a clock
    trait: str | None = None  # a bot's seat: whom it hurts ("vengeful", "steady")


class Player(SeatInfo, kw_only=True, frozen=True):
    """One seat's public position, and its hand once revealed (game over, the referee)."""

    hand_count: int
    hand_limit: int  # R8
    fate: tuple[int, ...]  # bottom first: the top card is the last
    scores: Scores
    in_debt: bool  # R9
    known_hand: tuple[int, ...]  # taken from the discard pile in plain sight, still held
    hand: tuple[int, ...] | None = None

    @property
    def goth(self) -> int:
        return self.scores.goth

    @property
    def sickness(self) -> int:
        return self.scores.sickness

    @property
    def money(self) -> int:
        return self.scores.money


class You(Wire, frozen=True):
    seat: int
    hand: tuple[int, ...]


class Tagged(Wire, tag_field="kind", frozen=True):
    """A value whose `kind` on the wire says which shape it has."""

    @property
    def kind(self) -> str:
        return type(self).__struct_config__.tag  # type: ignore[return-value]


# What the viewer must decide now, tagged by `kind` (docs/protocol.md, "legal").


class LegalDiscardFate(Tagged, tag="discard_fate", frozen=True):
    cards: tuple[int, ...]  # only the top one under fate_discard "top"


class LegalDistribute(Tagged, tag="distribute", frozen=True):
    hand: tuple[int, ...]
    recipients: tuple[int, ...]
    count: int  # how many cards must be placed
    each_gets_one: bool  # True: every player gets exactly one; False: all cards, any seats


class LegalDraw(Tagged, tag="draw", frozen=True):
    deck: bool  # False only when the draw and discard piles are both empty (R14)
    discard: tuple[int, ...]  # cards that may be taken; empty when in debt
    in_debt: bool
    remaining: int  # cards still to draw this step


class LegalDiscardHand(Tagged, tag="discard_hand", frozen=True):
    cards: tuple[int, ...]
    count: int  # cards still to discard


Legal = LegalDiscardFate | LegalDistribute | LegalDraw | LegalDiscardHand


# What happened: the game's log, tagged by `kind`. The engine records these; the view
# redacts the one secret an event can carry (the card of a blind draw).


class TurnBegan(Tagged, tag="turn", frozen=True):
    seat: int
    round: int


class FateDiscarded(Tagged, tag="discard_fate", frozen=True):
    seat: int
    card: int


class Placed(Tagged, tag="place", frozen=True):
    seat: int  # who placed it
    to: int
    card: int


class Swooned(Tagged, tag="swoon", frozen=True):
    seat: int
    cards: tuple[int, ...]


class Drew(Tagged, tag="draw", frozen=True):
    seat: int
    source: Literal["deck", "discard"]
    card: int | None = None  # left out for a blind draw seen by anyone but its drawer


class HandDiscarded(Tagged, tag="discard_hand", frozen=True):
    seat: int
    card: int


class Reshuffled(Tagged, tag="reshuffle", frozen=True):
    count: int


class GameOver(Tagged, tag="over", frozen=True):
    winners: tuple[int, ...]
    reason: Literal["goth", "round_cap"]


Event = TurnBegan | FateDiscarded | Placed | Swooned | Drew | HandDiscarded | Reshuffled | GameOver


class Reveal(Wire, frozen=True):
    """The secrets, shown once the game is over."""

    draw_pile: tuple[int, ...]  # top card last
    seed: int


class View(Wire, frozen=True):
    """A table as one viewer may see it: the `view` of a `state` message."""

    table: TableInfo
    phase: Phase
    turn: int | None  # None in the lobby
    dealer: int | None  # R4: played first and ends each round; None in the lobby
    to_act: int | None  # whose decision the game waits for; None in the lobby and when over
    round: int  # from 1; 0 in the lobby
    round_cap: int | None
    deck_count: int
    discard: tuple[int, ...]  # bottom first
    players: tuple[Player, ...]  # in seat order
    you: You | None  # None for a spectator (and the referee)
    legal: Legal | None
    winner: tuple[int, ...] | None
    log: tuple[Event, ...]  # the recent events, oldest first
    reveal: Reveal | None = None
    # The place of log[0] in the game's whole log (0: the log starts at the deal): a client
    # that keeps every event it saw knows which are new and how many it missed.
    log_start: int = 0
    # R14, public since the discard pile lay face up: the cards the draw pile was made of at
    # its last reshuffle, sorted (None before the first: it is then what the deal left), and
    # per seat the cards drawn blind from it since. A hand holds at most that many of them.
    draw_pool: tuple[int, ...] | None = None
    pool_draws: tuple[int, ...] = ()

    @property
    def seat(self) -> int | None:
        return None if self.you is None else self.you.seat

    @property
    def hand(self) -> tuple[int, ...] | None:
        return None if self.you is None else self.you.hand

    @property
    def variants(self) -> Variants:
        return self.table.variants

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @classmethod
    def lobby(cls, table: TableInfo, seats: tuple[SeatInfo, ...], seat: int | None) -> View:
        """The view before the deal: the seats taken so far, empty piles, nothing to decide."""
        players = tuple(
            Player(
                **msgspec.structs.asdict(info),
                hand_count=0,
                hand_limit=HAND_SIZE,
                fate=(),
                scores=Scores(goth=0, sickness=0, money=0),
                in_debt=False,
                known_hand=(),
            )
            for info in seats
        )
        return cls(
            table=table,
            phase="lobby",
            turn=None,
            dealer=None,
            to_act=None,
            round=0,
            round_cap=table.variants.round_cap,
            deck_count=0,
            discard=(),
            players=players,
            you=None if seat is None else You(seat=seat, hand=()),
            legal=None,
            winner=None,
            log=(),
        )

    @classmethod
    def from_wire(cls, data: Any) -> View:
        return convert(data, cls, "view")
