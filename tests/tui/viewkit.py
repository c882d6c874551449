"""Real views for client tests, built by the real engine (tests may import `server`; the
client package may not): a small deck whose values the tests rely on, and positions that
put the human at seat 0 in front of each kind of decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.view import SeatInfo, TableInfo, View
from server.game import SPECTATOR, Game, Variants, parse_deck, view

# (name, goth, sickness, money); card id = index.
CARDS = [
    ("Pet Raven", 4, 0, -3),  # 0
    ("Velvet Cape", 3, 0, -2),  # 1
    ("Darkwave Mixtape", 3, 0, 0),  # 2
    ("Black Lipstick", 2, 0, 0),  # 3
    ("Stomach Bug", 0, 3, 0),  # 4
    ("Fishnet Pneumonia", 1, 3, 0),  # 5
    ("Anaemia", 1, 2, 0),  # 6
    ("Chamomile Tea", 0, -1, 0),  # 7
    ("A Long Nap", 0, -2, 0),  # 8
    ("Sunburn", -2, 1, 0),  # 9
    ("Khaki Shorts", -3, 0, 1),  # 10
    ("Student Loan", 0, 0, 3),  # 11
    ("Barista Shift", -1, 0, 2),  # 12
    ("Club Night", 4, 0, -1),  # 13
    ("Grave Rubbings", 2, 0, 0),  # 14
    ("Early Night", -1, -1, 0),  # 15
    ("Pastel Hoodie", -2, 0, 0),  # 16
    ("Birthday Card", 0, 0, 2),  # 17
    ("Mourning Veil", 2, 0, 0),  # 18
    ("Caught Smiling", -1, 0, 0),  # 19
    ("Graveyard Chill", 1, 1, 0),  # 20
    ("Fog Machine Cough", 2, 1, 0),  # 21
    ("Consumption Chic", 3, 1, 0),  # 22
]
ID = {name: i for i, (name, *_rest) in enumerate(CARDS)}


def _deck_toml() -> str:
    lines = ['name = "Client test deck"']
    for i, (name, goth, sickness, money) in enumerate(CARDS):
        lines += [
            "",
            "[[card]]",
            f"id = {i}",
            f'name = "{name}"',
            'flavour = "For the tests."',
            f"goth = {goth}",
            f"sickness = {sickness}",
            f"money = {money}",
        ]
    return "\n".join(lines) + "\n"


DECK = parse_deck(_deck_toml(), "client-test.toml")
CATALOGUE = [card.to_wire() for card in DECK.catalogue()]  # as `joined` carries it
NAMES = ("Raven", "Morticia", "Vlad")
TOKEN = "raven-secret-token-0123456789"
TABLE = "t1"


def seats_meta(names: Sequence[str] = NAMES, away: Sequence[int] = ()) -> tuple[SeatInfo, ...]:
    return tuple(
        SeatInfo(
            seat, name, bot=seat != 0, connected=seat not in away, covered=False, rematch=False
        )
        for seat, name in enumerate(names)
    )


def table_info(game: Game, name: str = "The Crypt") -> TableInfo:
    return TableInfo(
        variants=game.variants,
        id=TABLE,
        name=name,
        deck="client-test",
        seats=game.players,
        game=1,
        spectators=0,
        password=False,
    )


def table_view(
    game: Game, viewer: int | str = 0, names: Sequence[str] = NAMES, away: Sequence[int] = ()
) -> View:
    """`viewer`'s view of the game at table t1, as the engine builds it."""
    seats = seats_meta(names, away)
    return view(game, viewer, table=table_info(game), seats=seats)  # type: ignore[arg-type]


def wire_view(
    game: Game, viewer: int | str = 0, names: Sequence[str] = NAMES, away: Sequence[int] = ()
) -> dict[str, Any]:
    """The same view as a `state` frame carries it."""
    return table_view(game, viewer, names, away).to_wire()  # type: ignore[no-any-return]


def spectator_view(game: Game) -> dict[str, Any]:
    return wire_view(game, SPECTATOR)


def position(
    hands: Sequence[Sequence[int]],
    fates: Sequence[Sequence[int]],
    discard: Sequence[int] = (),
    phase: str = "discard_fate",
    variants: Variants | None = None,
) -> Game:
    """A 3-player position, seat 0 to act; every card not named is in the draw pile."""
    named = {c for pile in (*hands, *fates, discard) for c in pile}
    rest = [c for c in range(len(CARDS)) if c not in named]
    return Game.from_position(
        DECK,
        hands=hands,
        fates=fates,
        draw_pile=rest,
        discard=discard,
        phase=phase,  # type: ignore[arg-type]
        variants=variants,
    )


# Raven's Fate pile at Goth 14, Sickness 4, Money -3: one more Sickness is a swoon.
RAVEN_FATE = [2, 13, 1, 6, 20, 21]


def distribute_game() -> Game:
    return position(
        hands=[[22, 0, 4, 11, 10], [3, 7, 8, 9, 12], [14, 15, 16, 17, 18]],
        fates=[RAVEN_FATE, [], [19]],
        phase="distribute",
    )


def short_hand_game() -> Game:
    """Raven holds 2 cards for 3 players: both go, to different players."""
    return position(
        hands=[[22, 11], [3, 7, 8, 9, 12], [14, 15, 16, 17, 18]],
        fates=[[2], [], [19]],
        phase="distribute",
    )


def fate_discard_game(variants: Variants | None = None) -> Game:
    # Sickness 2 + 3 - 1 = 4: discarding the tea (the top card) swoons Raven.
    return position(
        hands=[[0, 4, 11, 10, 3], [9, 12, 14, 15, 16], [17, 18, 19, 20, 21]],
        fates=[[6, 5, 7], [], []],
        variants=variants,
    )


def draw_game() -> Game:
    """Not in debt, 3 cards to draw, three cards in the discard pile (Sunburn on top)."""
    return position(
        hands=[[0, 4], [3, 7, 8, 10, 12], [14, 15, 16, 17, 18]],
        fates=[[11, 2], [], []],
        discard=[22, 13, 9],
        phase="draw",
    )


def debt_game() -> Game:
    """In debt (Money -3): deck only."""
    return position(
        hands=[[4, 11], [3, 7, 8, 10, 12], [14, 15, 16, 17, 18]],
        fates=[[0, 2], [], []],
        discard=[22, 13, 9],
        phase="draw",
    )


def discard_down_game() -> Game:
    """Sickness 2 (limit 3) with 5 cards at the draw step: discard 2."""
    return position(
        hands=[[0, 4, 11, 10, 3], [9, 12, 14, 15, 16], [17, 18, 19, 20, 1]],
        fates=[[6], [], []],
        phase="draw",
    )


def lobby_view(names: Sequence[str | None] = ("Raven", None, None)) -> dict[str, Any]:
    """The server's view of a table before the deal (the protocol's `View.lobby`), for
    seat 0, as a frame carries it."""
    table = TableInfo(
        variants=Variants(),
        id=TABLE,
        name="The Crypt",
        deck="client-test",
        seats=len(names),
        game=0,
        spectators=0,
        password=False,
    )
    seats = tuple(
        SeatInfo(s, n, bot=False, connected=n is not None, covered=False, rematch=False)
        for s, n in enumerate(names)
    )
    return View.lobby(table, seats, 0).to_wire()  # type: ignore[no-any-return]


def joined(rid: int | None = None, seat: int = 0, token: str = TOKEN) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "t": "joined",
        "table": TABLE,
        "seat": seat,
        "token": token,
        "cards": CATALOGUE,
    }
    if rid is not None:
        frame["rid"] = rid
    return frame


def state(seq: int, wire: dict[str, Any], rid: int | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"t": "state", "seq": seq, "view": wire}
    if rid is not None:
        frame["rid"] = rid
    return frame


def join_with(wire: dict[str, Any], seq: int = 1):  # -> a FakeServer handler
    """A `join` handler seating the client at seat 0 and sending `wire` as the first state."""
    return lambda m: [joined(m.get("rid")), state(seq, wire)]


def played_views(seed: int = 7, round_cap: int = 3, viewer: int | str = 0) -> list[dict[str, Any]]:
    """A whole 3-player game played by the heuristic bot (deterministic): `viewer`'s view
    after the deal and after every move, the last one `over`."""
    from server.bots.heuristic import HeuristicBot

    game = Game.new(DECK, 3, seed, Variants(round_cap=round_cap))
    bot = HeuristicBot(DECK)
    views = [wire_view(game, viewer)]
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        game.apply(seat, bot.choose(view(game, seat)))
        views.append(wire_view(game, viewer))
    return views
