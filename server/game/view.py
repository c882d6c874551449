"""`view(game, viewer)`: the one choke point for secrets (DESIGN Principle 1).

Everything a seat, a spectator or a bot learns about a game is built here. Until the game
is over, nobody but a hand's owner sees that hand, nobody sees the draw pile's order or the
seed, and a card drawn blind appears in the log only for its drawer. After `over` (and for
the referee, who is the server itself) everything is revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from .cards import HAND_SIZE
from .events import Drew, Event
from .legal import Legal, legal, legal_from_wire, legal_to_wire
from .state import Game, Phase
from .variants import Variants

Viewer = int | Literal["spectator", "referee"]
SPECTATOR: Viewer = "spectator"
REFEREE: Viewer = "referee"
LOG_SIZE = 30


# Views are NamedTuples rather than frozen dataclasses: just as immutable, but built about
# four times faster, and a bot builds one for every decision it makes.
class PlayerView(NamedTuple):
    seat: int
    hand_count: int
    hand_limit: int
    fate: tuple[int, ...]  # bottom first; the top card is the last
    goth: int
    sickness: int  # already floored at 0 (R6)
    money: int
    known_hand: tuple[int, ...]  # taken from the discard pile in plain sight, still held
    hand: tuple[int, ...] | None  # only once revealed (game over, or the referee)

    @property
    def in_debt(self) -> bool:
        return self.money < 0


class Reveal(NamedTuple):
    """The secrets, shown once the game is over."""

    draw_pile: tuple[int, ...]  # top card last
    seed: int


class GameView(NamedTuple):
    viewer: Viewer
    variants: Variants
    phase: Phase
    turn: int
    to_act: int | None
    round: int
    round_cap: int | None
    deck_count: int
    discard: tuple[int, ...]
    players: tuple[PlayerView, ...]
    hand: tuple[int, ...] | None  # the viewer's own hand; None for a spectator
    legal: Legal | None
    winner: tuple[int, ...] | None
    log: tuple[dict[str, Any], ...]
    reveal: Reveal | None

    @property
    def seat(self) -> int | None:
        return self.viewer if isinstance(self.viewer, int) else None

    def to_wire(
        self,
        table: Mapping[str, Any] | None = None,
        seats: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """The `view` map of the protocol. `table` and `seats` (name, bot, connected per
        seat) are lobby facts the server adds; they hold nothing secret."""
        players = []
        for p in self.players:
            entry: dict[str, Any] = dict(seats[p.seat]) if p.seat < len(seats) else {}
            entry.update(
                seat=p.seat,
                hand_count=p.hand_count,
                hand_limit=p.hand_limit,
                fate=list(p.fate),
                scores={"goth": p.goth, "sickness": p.sickness, "money": p.money},
                in_debt=p.in_debt,
                known_hand=list(p.known_hand),
            )
            if p.hand is not None:
                entry["hand"] = list(p.hand)
            players.append(entry)
        you = None if self.seat is None else {"seat": self.seat, "hand": list(self.hand or ())}
        wire: dict[str, Any] = {
            "table": {"variants": self.variants.to_wire(), **(table or {})},
            "phase": self.phase,
            "turn": self.turn,
            "to_act": self.to_act,
            "round": self.round,
            "round_cap": self.round_cap,
            "deck_count": self.deck_count,
            "discard": list(self.discard),
            "players": players,
            "you": you,
            "legal": legal_to_wire(self.legal),
            "winner": None if self.winner is None else list(self.winner),
            "log": list(self.log),
        }
        if self.reveal is not None:
            wire["reveal"] = {"draw_pile": list(self.reveal.draw_pile), "seed": self.reveal.seed}
        return wire


def view_from_wire(wire: Mapping[str, Any]) -> GameView:
    """A GameView rebuilt from a `state.view` map: a bot playing over the network sees
    exactly what the server sent, in the form the in-process bots read."""
    you = wire["you"]
    players = tuple(
        PlayerView(
            p["seat"],
            p["hand_count"],
            p["hand_limit"],
            tuple(p["fate"]),
            p["scores"]["goth"],
            p["scores"]["sickness"],
            p["scores"]["money"],
            tuple(p["known_hand"]),
            tuple(p["hand"]) if "hand" in p else None,
        )
        for p in wire["players"]
    )
    reveal = wire.get("reveal")
    return GameView(
        viewer=SPECTATOR if you is None else you["seat"],
        variants=Variants.from_wire(wire["table"]["variants"]),
        phase=wire["phase"],
        turn=wire["turn"],
        to_act=wire["to_act"],
        round=wire["round"],
        round_cap=wire["round_cap"],
        deck_count=wire["deck_count"],
        discard=tuple(wire["discard"]),
        players=players,
        hand=None if you is None else tuple(you["hand"]),
        legal=legal_from_wire(wire["legal"]),
        winner=None if wire["winner"] is None else tuple(wire["winner"]),
        log=tuple(wire["log"]),
        reveal=None if reveal is None else Reveal(tuple(reveal["draw_pile"]), reveal["seed"]),
    )


def view(game: Game, viewer: Viewer, log_size: int = LOG_SIZE) -> GameView:
    """What `viewer` (a seat, SPECTATOR or REFEREE) may know of `game`, right now."""
    revealed = viewer == REFEREE or game.over
    seat = viewer if isinstance(viewer, int) else None
    # Positional arguments and no helper calls: bots build a view for every decision.
    players = tuple(
        PlayerView(
            s,
            len(hand),
            HAND_SIZE - max(0, sick),
            tuple(fate),
            goth,
            max(0, sick),
            money,
            tuple(sorted(known)) if known else (),
            tuple(hand) if revealed else None,
        )
        for s, hand, fate, goth, sick, money, known in zip(
            range(game.players),
            game.hands,
            game.fates,
            game.goth,
            game.sickness_sum,
            game.money,
            game.known,
            strict=True,
        )
    )
    events = game.events[-log_size:] if log_size else ()
    return GameView(
        viewer=viewer,
        variants=game.variants,
        phase=game.phase,
        turn=game.turn,
        to_act=game.to_act(),
        round=game.round,
        round_cap=game.variants.round_cap,
        deck_count=len(game.draw_pile),
        discard=tuple(game.discard),
        players=players,
        hand=None if seat is None else tuple(game.hands[seat]),
        legal=None if seat is None else legal(game, seat),
        winner=game.winners,
        log=tuple(event_to_wire(e, viewer, revealed) for e in events),
        reveal=Reveal(tuple(game.draw_pile), game.seed) if revealed else None,
    )


# Every view repeats the recent log, so each event's wire map is built once and shared
# (shared maps are only ever encoded, never changed). Keyed by id(): hashing a frozen
# dataclass hashes all its fields on every lookup. The entry keeps its event alive, so an
# id cannot be reused while it is in the cache.
_WIRE_CACHE: dict[int, tuple[Event, dict[str, Any], dict[str, Any] | None]] = {}
_WIRE_CACHE_LIMIT = 100_000


def _cached_wire(event: Event) -> tuple[Event, dict[str, Any], dict[str, Any] | None]:
    cached = _WIRE_CACHE.get(id(event))
    if cached is None:
        wire: dict[str, Any] = {"kind": event.kind}
        for name in event.__dataclass_fields__:
            value = getattr(event, name)
            wire[name] = list(value) if isinstance(value, tuple) else value
        blind = None
        if isinstance(event, Drew) and event.source == "deck":
            blind = {"kind": event.kind, "seat": event.seat, "source": event.source}
        if len(_WIRE_CACHE) >= _WIRE_CACHE_LIMIT:
            _WIRE_CACHE.clear()
        cached = _WIRE_CACHE[id(event)] = (event, wire, blind)
    return cached


def event_to_wire(event: Event, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    _, wire, blind = _cached_wire(event)
    if blind is not None and not revealed and viewer != event.seat:  # type: ignore[union-attr]
        return blind  # a blind draw is seen only by the drawer
    return wire
