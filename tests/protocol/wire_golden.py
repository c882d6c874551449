"""The frames a recorded game sends, byte for byte (issue 8: a refactor of how views are
built must not change what goes on the wire).

`frames()` replays a fixed game (seeded deal of golden/deck.toml, the original deck as it
was when the frames were recorded; moves chosen by a seeded random policy, not by a bot: so
tuning the deck or the bots changes nothing here) through the server's view building and
returns every frame each viewer would receive, labelled. `python -m tests.protocol.wire_golden`
writes them to golden/frames.msgpack.gz; the test compares against that file.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import msgpack

from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.view import Legal, LegalDiscardFate, LegalDiscardHand, LegalDistribute, LegalDraw

GOLDEN = Path(__file__).with_name("golden") / "frames.msgpack.gz"
DECK = GOLDEN.with_name("deck.toml")


def _policy_move(legal: Legal, rng: random.Random) -> Move:
    match legal:
        case LegalDiscardFate(cards):
            return DiscardFate(rng.choice(cards))
        case LegalDistribute(hand, recipients, count):
            cards = list(hand)
            rng.shuffle(cards)
            seats = list(recipients)
            rng.shuffle(seats)
            return Distribute(tuple(sorted(zip(seats, cards[:count], strict=False))))
        case LegalDraw(deck, discard):
            if discard and (not deck or rng.random() < 0.4):
                return Draw("discard", rng.choice(discard))
            return Draw("deck")
        case LegalDiscardHand(cards):
            return DiscardHand(rng.choice(cards))
    raise AssertionError(f"no such decision: {legal!r}")


class _Peer:
    def __init__(self, name: str) -> None:
        self.name = name

    def send(self, message: dict[str, Any]) -> None:  # the frames are built, not sent
        pass


# Two games: the default rules at 4 seats, and both variants at 3 seats with a short cap.
GAMES = (
    {"seats": 4, "seed": 20261201, "variants": {}, "policy_seed": 1},
    {
        "seats": 3,
        "seed": 7,
        "variants": {"fate_discard": "top", "overflow": "immediate", "round_cap": 12},
        "policy_seed": 2,
    },
)


def frames() -> list[tuple[str, bytes]]:
    """Every frame of the recorded games, as (label, bytes), in the order they are made."""
    from protocol import encode, server_messages
    from protocol.view import ClockRule
    from server.game import REFEREE, SPECTATOR, Game, Variants, load_deck
    from server.store.sqlite import SqliteStore
    from server.tables.table import Seat, Settings, Table

    out: list[tuple[str, bytes]] = []
    deck = load_deck(DECK)
    catalogue = server_messages.Watching(table="golden", cards=deck.catalogue())
    out.append(("catalogue", encode(catalogue)))
    for number, spec in enumerate(GAMES):
        variants = Variants.from_wire(spec["variants"])
        store = SqliteStore()
        table = Table(
            id=f"golden{number}",
            name=f"Golden table {number}",
            seat_count=spec["seats"],
            deck=deck,
            deck_name="original",
            variants=variants,
            settings=Settings(clock=lambda: 1000.0),
            store=store.tables,
            outcomes=store.outcomes,
            clock_rule=ClockRule(300, 5) if number == 0 else None,
            seats=[None] * spec["seats"],
        )
        table.seats[0] = Seat("Lydia", token_hash="0" * 64, peer=_Peer("Lydia"))
        table.seats[1] = Seat("Vlad", bot_kind="heuristic")
        viewers = [*range(spec["seats"]), SPECTATOR]
        for viewer in viewers:  # the lobby, before every seat is taken
            out.append((f"{number}/lobby/{viewer}", encode(table.wire_view(viewer))))
        listing = server_messages.Tables(tables=(table.summary(),))
        out.append((f"{number}/listing", encode(listing)))
        for seat in range(2, spec["seats"]):
            table.seats[seat] = Seat(f"Guest {seat}", token_hash="1" * 64)
        table.game_no = 1
        table.game = game = Game.new(deck, spec["seats"], spec["seed"], variants)
        rng = random.Random(spec["policy_seed"])
        moves = 0
        while True:
            table.seq += 1
            for viewer in viewers:
                message = server_messages.State(seq=table.seq, view=table.wire_view(viewer))
                out.append((f"{number}/{moves}/{viewer}", encode(message)))
            out.append((f"{number}/{moves}/referee", encode(table.wire_view(REFEREE))))
            if game.over:
                break
            seat = game.to_act()
            assert seat is not None
            legal = table.wire_view(seat).legal
            assert legal is not None
            game.apply(seat, _policy_move(legal, rng))
            moves += 1
    return out


def load() -> list[tuple[str, bytes]]:
    data = msgpack.unpackb(gzip.decompress(GOLDEN.read_bytes()), raw=False)
    return [(label, frame) for label, frame in data]


def write() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    packed = msgpack.packb([[label, frame] for label, frame in frames()], use_bin_type=True)
    GOLDEN.write_bytes(gzip.compress(packed, mtime=0))


if __name__ == "__main__":
    write()
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size} bytes)")
