"""The leak test (Principle 1): whole games over the network, every frame each seat
and spectator receives recorded and checked against the truth.

After the game the test replays it on the engine from the table's seed and moves, which
gives, for every `seq`, each hand, the draw pile and everything public. Each `state` frame
sent before the game is over must then hold:

- `you`: the viewer's own seat and exactly its hand (nil for a spectator);
- no `players[*].hand`, no `reveal`;
- outside the log, only cards the viewer may see *now*: its own hand, the Fate piles, the
  discard pile and the publicly known parts of hands;
- a log equal to the recent events with blind draws redacted for everyone but the drawer,
  and naming only cards the viewer could legitimately have seen at some point.

Cards are found structurally: every integer in the frame is taken for a card id unless its
key is one of the known non-card fields below, so a new field holding cards is scanned too.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from protocol import MAX_FRAME
from protocol import requests as rq
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from server.game import Drew, Event, Game, Reshuffled
from server.game.view import LOG_SIZE
from tests.kits.netkit import Client, close_all, first_legal_move

# Keys whose integer values (and whole subtrees, for `scores`) are not card ids.
NON_CARD_KEYS = frozenset(
    {
        "seq",
        "rid",
        "seat",
        "turn",
        "dealer",
        "to_act",
        "round",
        "round_cap",
        "deck_count",
        "log_start",  # how many events came before log[0], not a card
        "pool_draws",  # blind draws per seat
        "wins",  # games won per seat
        "hand_count",
        "hand_limit",
        "scores",
        "winner",
        "winners",
        "recipients",
        "count",
        "remaining",
        "to",
        "seats",
        "game",
        "spectators",
        "clock",
        "initial",
        "increment",
    }
)


def cards_in(value: Any, key: str | None = None) -> set[int]:
    """Every integer in `value` not under a NON_CARD_KEYS key: the card ids it mentions."""
    if key in NON_CARD_KEYS:
        return set()
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return set().union(*(cards_in(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(cards_in(v, key) for v in value))
    return set()


@dataclass(frozen=True)
class Position:
    """The truth after k moves."""

    hands: tuple[tuple[int, ...], ...]
    fates: tuple[tuple[int, ...], ...]
    discard: tuple[int, ...]
    draw_pile: tuple[int, ...]
    known: tuple[frozenset[int], ...]
    events: int  # how many events had happened
    phase: str
    turn: int
    to_act: int | None

    @classmethod
    def of(cls, game: Game) -> Position:
        return cls(
            tuple(tuple(h) for h in game.hands),
            tuple(tuple(f) for f in game.fates),
            tuple(game.discard),
            tuple(game.draw_pile),
            tuple(frozenset(k) for k in game.known),
            len(game.events),
            game.phase,
            game.turn,
            game.to_act(),
        )

    def public(self) -> set[int]:
        cards = set(self.discard).union(*self.fates)
        return cards.union(*self.known)

    def visible_to(self, seat: int | None) -> set[int]:
        return self.public() | (set() if seat is None else set(self.hands[seat]))


def replay(played: Game) -> list[Position]:
    """The position after each move of a finished game, rebuilt from its seed and moves."""
    assert played.over
    game = Game.new(played.deck, played.players, played.seed, played.variants, played.dealer)
    positions = [Position.of(game)]
    for seat, move in played.moves:
        game.apply(seat, move)
        positions.append(Position.of(game))
    assert game.events == played.events and game.winners == played.winners
    return positions


def expected_log(game: Game, position: Position, viewer: int | None) -> list[dict[str, Any]]:
    """docs/protocol.md's log table, written out independently of view.py."""
    return redacted_for(game.events[: position.events][-LOG_SIZE:], viewer)


def redacted_for(events: list[Event], viewer: int | None) -> list[dict[str, Any]]:
    """Events as the wire carries them to `viewer` before the end: a blind draw names its
    card to its drawer only."""
    log = []
    for event in events:
        entry: dict[str, Any] = {"kind": event.kind}
        for name in event.__struct_fields__:
            value = getattr(event, name)
            entry[name] = list(value) if isinstance(value, tuple) else value
        if isinstance(event, Drew) and event.source == "deck" and viewer != event.seat:
            del entry["card"]
        log.append(entry)
    return log


def check_lobby_frames(client: Client, game: Game) -> None:
    """Frames before the first deal: no card at all, and the catalogue only in replies."""
    for message in client.received:
        assert message["t"] in {"welcome", "joined", "watching", "state", "created"}, message
        if message["t"] in ("joined", "watching"):
            assert set(message) <= {"t", "rid", "table", "seat", "token", "cards"}
            assert len(message["cards"]) == len(game.deck)
        elif message["t"] == "state" and message["view"]["phase"] == "lobby":
            assert message["view"]["table"]["game"] == 0
            assert cards_in(message["view"]) == set(), message


def check_frames(
    client: Client, viewer: int | None, game_no: int, game: Game, positions: list[Position]
) -> None:
    """Check every frame `client` received about game `game_no` against its positions."""
    states = [
        m for m in client.received if m["t"] == "state" and m["view"]["table"]["game"] == game_no
    ]
    assert states, "the client saw no game"
    start = states[0]["seq"]
    assert states[0]["view"]["phase"] != "lobby"
    seen: set[int] = set()  # every card this viewer could legitimately have seen so far
    for k, position in enumerate(positions):
        seen |= position.visible_to(viewer)
        frames = [m for m in states if m["seq"] - start == k]
        assert len(frames) == 1, f"seq {start + k}: {len(frames)} frames"
        view = frames[0]["view"]
        where = f"game {game_no}, viewer {viewer}, seq {start + k}"
        if position.phase == "over":
            assert k == len(positions) - 1
            # the secrets are revealed only now
            assert view["reveal"]["draw_pile"] == list(position.draw_pile), where
            assert [p["hand"] for p in view["players"]] == [list(h) for h in position.hands]
            continue
        # the frame describes this very position (so the seq -> position mapping is right)
        assert view["phase"] == position.phase and view["turn"] == position.turn, where
        assert view["to_act"] == position.to_act, where
        assert view["deck_count"] == len(position.draw_pile), where
        assert view["discard"] == list(position.discard), where
        for p, player in enumerate(view["players"]):
            assert player["seat"] == p, where
            assert player["fate"] == list(position.fates[p]), where
            assert player["hand_count"] == len(position.hands[p]), where
            assert player["known_hand"] == sorted(position.known[p]), where
            assert "hand" not in player, f"{where}: seat {p}'s hand sent before the end"
        assert "reveal" not in view, f"{where}: the draw pile's order sent before the end"
        if viewer is None:
            assert view["you"] is None, where
            assert view["legal"] is None, where
        else:
            assert view["you"] == {"seat": viewer, "hand": list(position.hands[viewer])}, where
        assert (view["legal"] is not None) == (viewer is not None and viewer == position.to_act)
        # the draw pile's pool (R14): cards that lay face up at the last reshuffle, so seen
        # then; it holds the draw pile, and as many cards as that reshuffle dealt
        pool = view.get("draw_pool")
        shuffles = [e for e in game.events[: position.events] if isinstance(e, Reshuffled)]
        if shuffles:
            assert pool is not None and len(pool) == shuffles[-1].count, where
            assert set(pool) <= seen and set(position.draw_pile) <= set(pool), where
        else:
            assert pool is None, where
        # outside the log and the pool: only what the viewer may see now
        outside = cards_in(
            {key: value for key, value in view.items() if key not in ("log", "draw_pool")}
        )
        hidden = outside - position.visible_to(viewer)
        assert not hidden, f"{where}: hidden cards {sorted(hidden)} sent"
        # the log: naming only cards seen at some point, and exactly the documented redaction
        unseen = cards_in(view["log"]) - seen
        assert not unseen, f"{where}: the log names cards {sorted(unseen)} never shown"
        assert view["log"] == expected_log(game, position, viewer), where
    # after the end, only more `over` frames (rematch votes)
    assert all(m["view"]["phase"] == "over" for m in states if m["seq"] - start >= k)


class Coverage:
    """What the games played so far exercised of what the redaction is about."""

    WANTED = (("draw", "deck"), ("draw", "discard"), ("swoon", None), ("reshuffle", None))

    def __init__(self) -> None:
        self.events: Counter[tuple[str, str | None]] = Counter()
        self.known_hands = 0  # positions in which some hand held a publicly known card
        self.off_turn_discards = 0  # discarding down on another's turn (overflow immediate)

    def add(self, game: Game, positions: list[Position]) -> None:
        self.events.update((e.kind, getattr(e, "source", None)) for e in game.events)
        self.known_hands += sum(any(p.known) for p in positions)
        self.off_turn_discards += sum(
            move.kind == "discard_hand" and seat != before.turn
            for (seat, move), before in zip(game.moves, positions, strict=False)
        )

    def enough(self, variants: dict[str, Any]) -> bool:
        return (
            all(self.events[kind] >= 3 for kind in self.WANTED)
            and self.known_hands > 0
            and (variants.get("overflow") != "immediate" or self.off_turn_discards > 0)
        )


# -- playing over the network ---------------------------------------------------------


def random_move(legal: dict[str, Any], rng: random.Random) -> Move:
    """Any legal move, drawing from the discard pile often (so hands get known cards)."""
    kind = legal["kind"]
    if kind == "distribute":
        cards = rng.sample(legal["hand"], legal["count"])
        seats = rng.sample(legal["recipients"], legal["count"])
        return Distribute(tuple(zip(seats, cards, strict=True)))
    if kind == "draw":
        if legal["discard"] and (not legal["deck"] or rng.random() < 0.5):
            return Draw("discard", rng.choice(legal["discard"]))
        return Draw("deck")
    card = rng.choice(legal["cards"])
    return DiscardFate(card) if kind == "discard_fate" else DiscardHand(card)


async def play(
    player: Client, rng: random.Random, game_no: int, seen: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Make this seat's moves in game `game_no` until it is over. `seen`: the view this
    seat was last answered with (the rematch that started the game may have carried its
    first decision; no other state would come for it)."""

    def ours(v: dict[str, Any]) -> bool:
        return v["table"]["game"] == game_no and (v["phase"] == "over" or v["legal"] is not None)

    view = seen if seen is not None and ours(seen) else await player.state(ours)
    while view["phase"] != "over":
        reply = await player.ask(rq.Play(move=random_move(view["legal"], rng)))
        assert reply["t"] == "state", reply
        view = reply["view"] if ours(reply["view"]) else await player.state(ours)
    return view


MAX_GAMES = 10


def over(game_no: int) -> Callable[[dict[str, Any]], bool]:
    return lambda v: v["table"]["game"] == game_no and v["phase"] == "over"


@pytest.mark.parametrize(
    ("seats", "humans", "variants"),
    [
        (4, 4, {"round_cap": 40}),
        (5, 3, {"round_cap": 30, "overflow": "immediate", "fate_discard": "top"}),
    ],
    ids=["4-players", "3-players-2-bots-variants"],
)
# The players move as fast as replies come: on a fast machine that outruns the per-connection
# rate limit, which is not what this test is about.
@pytest.mark.parametrize("config", [{"rate": 1e6, "burst": 1e6}], indirect=True)
async def test_no_frame_leaks_a_secret(server, url, seats, humans, variants):
    host = await Client.connect(url, "Host")
    created = await host.ask(
        rq.Create(name="Leaks", seats=seats, bots=seats - humans, variants=variants)
    )
    table = created["table"]
    await host.close()
    spectators = [await Client.connect(url, f"Watcher{i}") for i in range(2)]
    for watcher in spectators:
        assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
    players, seat_of = [], {}
    for i in range(humans):
        player = await Client.connect(url, f"P{i}")
        joined = await player.ask(rq.Join(table=table))
        assert joined["t"] == "joined"
        players.append(player)
        seat_of[player] = joined["seat"]
    rngs = [random.Random(i) for i in range(humans)]

    # play games (rematches at the same table) until they have exercised enough
    games: list[Game] = []
    coverage = Coverage()
    while not coverage.enough(variants):
        assert len(games) < MAX_GAMES, f"{MAX_GAMES} games exercised too little"
        game_no = len(games) + 1
        seen: dict[Client, dict[str, Any]] = {}
        if games:
            for player in players:
                again = await player.ask(rq.Rematch())
                assert again["t"] == "state"
                seen[player] = again["view"]
        finals = await asyncio.gather(
            *(play(p, r, game_no, seen.get(p)) for p, r in zip(players, rngs, strict=True))
        )
        for watcher in spectators:
            await watcher.state(over(game_no))
        assert len({tuple(f["winner"]) for f in finals}) == 1
        played = server.lobby.tables[table].game
        assert played is not None and played.over
        games.append(played)
        coverage.add(played, replay(played))

    for client in (*players, *spectators):
        check_lobby_frames(client, games[0])
    for game_no, game in enumerate(games, start=1):
        positions = replay(game)
        for player in players:
            check_frames(player, seat_of[player], game_no, game, positions)
        for watcher in spectators:
            check_frames(watcher, None, game_no, game, positions)
    for client in (*players, *spectators):
        await client.close()


def story_of(client: Client) -> list[dict[str, Any]]:
    """The `story` parts a client received, checked to come in order, each under MAX_FRAME,
    all before its first `state`; their events joined."""
    kinds = [m["t"] for m in client.received]
    assert "story" in kinds and kinds.index("state") > len(kinds) - kinds[::-1].index("story") - 1
    events: list[dict[str, Any]] = []
    for frame, part in zip(client.raw, client.received, strict=True):
        if part["t"] == "story":
            assert part["start"] == len(events) and len(frame) <= MAX_FRAME
            events += part["log"]
    return events


async def test_a_seat_coming_back_and_a_late_spectator_get_the_story_of_their_own_view(server, url):
    """Mid-game, before anything is revealed: the whole log so far, redacted as the view
    redacts it (a blind draw names its card to its drawer only), to the returning seat and
    to a new spectator."""
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Story", seats=3, bots=2)))["table"]
    joined = await host.ask(rq.Join(table=table))
    seat, token = joined["seat"], joined["token"]

    def asks(v: dict[str, Any]) -> bool:
        return v["legal"] is not None

    view = await host.state(asks)
    game = server.lobby.tables[table].game
    while len(game.events) < 60:  # a few rounds, the bots drawing blind
        reply = await host.ask(rq.Play(move=first_legal_move(view["legal"])))
        view = reply["view"] if asks(reply["view"]) else await host.state(asks)
    await host.close()
    back = await Client.connect(url, "Host")
    assert (await back.ask(rq.Resume(token=token)))["t"] == "joined"
    watcher = await Client.connect(url, "Crow")
    assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
    await back.next(lambda m: m["t"] == "state")
    await watcher.next(lambda m: m["t"] == "state")
    assert not game.over
    for client, viewer in ((back, seat), (watcher, None)):
        told = story_of(client)
        assert len(told) >= 60 and told == redacted_for(list(game.events[: len(told)]), viewer)
        blind = [e for e in told if e["kind"] == "draw" and e["source"] == "deck"]
        assert any("card" not in e for e in blind)  # the bots' blind draws name no card
        mine = [e for e in blind if e["seat"] == seat]
        assert all(("card" in e) == (viewer == seat) for e in mine)
    await close_all(back, watcher)


def test_the_card_scan_finds_cards_anywhere():
    """cards_in is what makes the check 'anywhere in the frame': prove it on its own."""
    frame = {
        "seq": 7,
        "view": {
            "turn": 1,
            "players": [{"seat": 0, "fate": [3], "scores": {"goth": 9}, "hand_count": 5}],
            "you": {"seat": 0, "hand": [4, 5]},
            "secret": {"deep": [[11]]},  # an unknown field is scanned, not trusted
            "log": [{"kind": "place", "seat": 0, "to": 2, "card": 6}],
            "legal": {"kind": "draw", "deck": True, "discard": [8], "remaining": 2},
        },
    }
    assert cards_in(frame) == {3, 4, 5, 6, 8, 11}
