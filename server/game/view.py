"""`view(game, viewer)`: the one choke point for secrets (Principle 1).

Everything a seat, a spectator or a bot learns about a game is built here, as the protocol's
`View`. Until the game is over, nobody but a hand's owner sees that hand, nobody sees the
draw pile's order or the seed, and a card drawn blind appears in the log only for its
drawer. After `over` (and for the referee, who is the server itself) everything is revealed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Literal
from weakref import WeakKeyDictionary

from protocol.constants import HAND_SIZE
from protocol.view import (
    Drew,
    Event,
    Player,
    Reveal,
    Scores,
    SeatInfo,
    TableInfo,
    View,
    You,
)

from .legal import decision
from .state import Game

Viewer = int | Literal["spectator", "referee"]
SPECTATOR: Viewer = "spectator"
REFEREE: Viewer = "referee"
LOG_SIZE = 30


@cache
def anonymous_seats(players: int) -> tuple[SeatInfo, ...]:
    """Lobby facts for a game played without a lobby (bots in process, simulations)."""
    return tuple(
        SeatInfo(seat, None, bot=False, connected=True, covered=False, rematch=False)
        for seat in range(players)
    )


def local_table(game: Game) -> TableInfo:
    """The table facts of a game played without a server."""
    return TableInfo(
        variants=game.variants,
        id="",
        name="",
        deck=game.deck.name,
        seats=game.players,
        game=1,
        spectators=0,
        password=False,
    )


def view(
    game: Game,
    viewer: Viewer,
    log_size: int = LOG_SIZE,
    *,
    table: TableInfo | None = None,
    seats: Sequence[SeatInfo] | None = None,
) -> View:
    """What `viewer` (a seat, SPECTATOR or REFEREE) may know of `game`, right now.

    `table` and `seats` are the lobby facts the server adds (names, presence, clocks);
    without them the view describes a game played without a lobby."""
    seat = viewer if isinstance(viewer, int) else None
    revealed = game.phase == "over" or (seat is None and viewer == REFEREE)
    actor = game.to_act()
    memo = _MEMOS.get(game) or _remember(game)
    events = _log(game, memo, seat, log_size, revealed) if log_size else ()
    return View(
        table=table or memo.table,
        phase=game.phase,
        turn=game.turn,
        dealer=game.dealer,
        to_act=actor,
        round=game.round,
        round_cap=game.variants.round_cap,
        deck_count=len(game.draw_pile),
        discard=tuple(game.discard),
        players=_players(game, memo, seats or memo.anonymous, revealed),
        you=None if seat is None else You(seat, tuple(game.hands[seat])),
        legal=decision(game, seat) if seat == actor and seat is not None else None,
        winner=game.winners,
        log=events,
        reveal=Reveal(tuple(game.draw_pile), game.seed) if revealed else None,
        log_start=len(game.events) - len(events),
        draw_pool=None if game.draw_pool is None else tuple(sorted(game.draw_pool)),
        pool_draws=() if game.draw_pool is None else tuple(game.pool_draws),
    )


def story(game: Game, viewer: Viewer, start: int = 0, end: int | None = None) -> tuple[Event, ...]:
    """Events `start`..`end` of the game's log as `viewer`'s view tells them (a blind draw
    names its card only to its drawer until the game is over): the whole story for a
    client that comes in late or comes back."""
    events = game.events[start:end]
    if game.phase == "over" or viewer == REFEREE:
        return tuple(events)
    return tuple(_redacted(e, viewer) for e in events)


class Memo:
    """What the views of one game keep from one view to the next (used only here). Each
    seat's public entry is the same for every viewer, so it is rebuilt only when that seat's
    piles (`Game.changes`) or lobby facts changed: a view per viewer after every move then
    costs a few comparisons instead of a player per seat. The log is redacted once per
    change of it, for every viewer at once."""

    __slots__ = (
        "anonymous",
        "built_at",
        "infos",
        "log",
        "log_at",
        "log_size",
        "own_draws",
        "players",
        "revealed",
        "seats",
        "shown",
        "table",
    )

    def __init__(self, game: Game) -> None:
        self.table = local_table(game)  # the lobby facts of a game without a server
        self.anonymous = anonymous_seats(game.players)
        self.built_at: list[int] = []  # the `Game.changes` each seat's entry was built at
        self.infos: list[SeatInfo] = []  # and the lobby facts it was built from
        self.players: list[Player] = []
        self.shown: tuple[Player, ...] = ()  # `players` as every view of them holds it
        self.seats: Sequence[SeatInfo] = ()
        self.revealed = False
        # The newest `log_size` events as anyone but their drawers may read them, built at
        # `log_at` events (a game's log only grows), and each seat's own blind draws in it
        # by their index in the game's events: a seat's log is that one, its draws named.
        self.log: tuple[Event, ...] = ()
        self.log_at = -1
        self.log_size = 0
        self.own_draws: dict[int, list[int]] = {}


def _players(
    game: Game, memo: Memo, seats: Sequence[SeatInfo], revealed: bool
) -> tuple[Player, ...]:
    changes, players = game.changes, memo.players
    if not players or revealed != memo.revealed:  # the first view, or hands shown or hidden
        players[:] = [_player(game, info, revealed) for info in seats]
        memo.built_at, memo.infos = changes[:], list(seats)
        memo.seats, memo.revealed = seats, revealed
        memo.shown = tuple(players)
        return memo.shown
    built_at, infos = memo.built_at, memo.infos
    same_seats = memo.seats == seats
    if built_at != changes or not same_seats:
        for seat, info in enumerate(seats):
            if built_at[seat] != changes[seat] or (not same_seats and infos[seat] != info):
                players[seat] = _player(game, info, revealed)
                built_at[seat], infos[seat] = changes[seat], info
        memo.seats = seats
        memo.shown = tuple(players)
    return memo.shown


def _log(
    game: Game, memo: Memo, seat: int | None, log_size: int, revealed: bool
) -> tuple[Event, ...]:
    """The newest `log_size` events as `seat` (None: a spectator) may read them: the log
    everyone shares is redacted once per change of the log, not once per viewer."""
    events = game.events
    start = max(0, len(events) - log_size)
    if revealed:
        return tuple(events[start:])
    if memo.log_at != len(events) or memo.log_size != log_size:
        _slide(memo, events, start, log_size)
    own = memo.own_draws.get(seat) if seat is not None else None
    if not own:
        return memo.log
    log = list(memo.log)
    for i in own:  # where in the game's events: in the window, from its start
        log[i - start] = events[i]
    return tuple(log)


def _slide(memo: Memo, events: Sequence[Event], start: int, log_size: int) -> None:
    """Bring the shared log to the newest `log_size` events, from `start` on. A game's log
    only grows: after a move only the events since the last view are redacted, the rest of
    the window kept (a view after every move read all `log_size` of them again)."""
    if memo.log_size == log_size and start <= memo.log_at:  # -1 before the first view
        memo.log = memo.log[start - max(0, memo.log_at - log_size) :]  # slid out: dropped
        for draws in memo.own_draws.values():
            while draws and draws[0] < start:
                draws.pop(0)
        kept_from = memo.log_at
    else:  # the first view, another length, or more new events than the window holds
        memo.log, memo.own_draws = (), {}
        kept_from = start
    fresh = events[kept_from:]
    shown = tuple(_redacted(e, SPECTATOR) for e in fresh)
    for i, (told, event) in enumerate(zip(shown, fresh, strict=True), start=kept_from):
        if told is not event and type(event) is Drew:  # a blind draw: its drawer reads it
            memo.own_draws.setdefault(event.seat, []).append(i)
    memo.log += shown
    memo.log_at, memo.log_size = len(events), log_size


# Each game's Memo, here rather than on the Game: the engine's state knows nothing of views
# (no import circle), and a game gone is a memo gone.
_MEMOS: WeakKeyDictionary[Game, Memo] = WeakKeyDictionary()


def _remember(game: Game) -> Memo:
    memo = _MEMOS[game] = Memo(game)
    return memo


def _player(game: Game, info: SeatInfo, revealed: bool) -> Player:
    """One seat's public position (R5-R9), its hand only once revealed."""
    seat = info.seat
    hand, known = game.hands[seat], game.known[seat]
    sickness, money = game.sickness_sum[seat], game.money[seat]
    sickness = sickness if sickness > 0 else 0  # R6
    return Player(
        seat,
        info.name,
        info.bot,
        info.connected,
        info.covered,
        info.rematch,
        info.clock,
        trait=info.trait,
        hand_count=len(hand),
        hand_limit=HAND_SIZE - sickness,
        fate=tuple(game.fates[seat]),
        scores=Scores(game.goth[seat], sickness, money),
        in_debt=money < 0,
        known_hand=tuple(sorted(known)) if known else (),
        hand=tuple(hand) if revealed else None,
    )


def _redacted(event: Event, viewer: Viewer) -> Event:
    """A blind draw is seen only by its drawer: to anyone else it names no card."""
    if type(event) is Drew and event.source == "deck" and event.seat != viewer:
        return Drew(event.seat, "deck")
    return event
