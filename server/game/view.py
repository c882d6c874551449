"""`view(game, viewer)`: the one choke point for secrets (DESIGN Principle 1).

Everything a seat, a spectator or a bot learns about a game is built here, as the protocol's
`View`. Until the game is over, nobody but a hand's owner sees that hand, nobody sees the
draw pile's order or the seed, and a card drawn blind appears in the log only for its
drawer. After `over` (and for the referee, who is the server itself) everything is revealed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from protocol.constants import HAND_SIZE
from protocol.view import Drew, Event, Player, Reveal, Scores, SeatInfo, TableInfo, View, You

from .legal import legal
from .state import Game

Viewer = int | Literal["spectator", "referee"]
SPECTATOR: Viewer = "spectator"
REFEREE: Viewer = "referee"
LOG_SIZE = 30


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
    revealed = viewer == REFEREE or game.over
    seat = viewer if isinstance(viewer, int) else None
    seats = seats or anonymous_seats(game.players)
    players = tuple(
        Player(
            info.seat,
            info.name,
            info.bot,
            info.connected,
            info.covered,
            info.rematch,
            info.clock,
            hand_count=len(hand),
            hand_limit=HAND_SIZE - max(0, sick),
            fate=tuple(fate),
            scores=Scores(goth, max(0, sick), money),
            in_debt=money < 0,
            known_hand=tuple(sorted(known)) if known else (),
            hand=tuple(hand) if revealed else None,
        )
        for info, hand, fate, goth, sick, money, known in zip(
            seats,
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
    return View(
        table=table or local_table(game),
        phase=game.phase,
        turn=game.turn,
        dealer=game.dealer,
        to_act=game.to_act(),
        round=game.round,
        round_cap=game.variants.round_cap,
        deck_count=len(game.draw_pile),
        discard=tuple(game.discard),
        players=players,
        you=None if seat is None else You(seat, tuple(game.hands[seat])),
        legal=None if seat is None else legal(game, seat),
        winner=game.winners,
        log=tuple(events) if revealed else tuple(_redacted(e, viewer) for e in events),
        reveal=Reveal(tuple(game.draw_pile), game.seed) if revealed else None,
    )


def _redacted(event: Event, viewer: Viewer) -> Event:
    """A blind draw is seen only by its drawer: to anyone else it names no card."""
    if type(event) is Drew and event.source == "deck" and event.seat != viewer:
        return Drew(event.seat, "deck")
    return event
