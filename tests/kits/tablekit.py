"""A table core on its own, for tests without a network: a real engine, a real SQLite store,
connections that keep what they are sent, and a clock moved by hand (like the engine's
seeded RNG, the time is the test's to choose)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol import decode
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.server_messages import parse
from protocol.view import (
    ClockRule,
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
)
from server.bots.heuristic import HeuristicBot
from server.bots.registry import BotKind
from server.game import Variants, default_deck, default_deck_text, view
from server.store.sqlite import SqliteStore
from server.store.tables import TableRecord
from server.tables.table import Settings, Table

GRACE = 60.0
BOT_DELAY = 0.4
IDLE = 300.0


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass(eq=False)
class Keeper:
    """A connection as the table sees it, keeping every message sent to it."""

    name: str
    received: list[Any] = field(default_factory=list)

    def send(self, message: Any) -> None:
        # a frame the fanout encoded is kept as the message a client reads in it
        self.received.append(parse(decode(message)) if isinstance(message, bytes) else message)


def make_table(
    clock: Callable[[], float],
    seats: int = 3,
    bots: int = 0,
    clock_rule: ClockRule | None = None,
    store: SqliteStore | None = None,
    variants: Variants | None = None,
    bot_kind: BotKind = "heuristic",
    table_id: str = "t1",
    warn: float = 0.0,
) -> Table:
    """A table as the lobby makes it, its last `bots` seats taken by bots. Warnings before
    a bot covers a player are off unless `warn` is given: most tests are about the rest."""
    store = store or SqliteStore()
    table = Table(
        id=table_id,
        name="Crypt",
        seat_count=seats,
        deck=default_deck(),
        deck_name="original",
        variants=variants or Variants(),
        settings=Settings(grace=GRACE, bot_delay=BOT_DELAY, idle=IDLE, warn=warn, clock=clock),
        store=store.tables,
        outcomes=store.outcomes,
        bot_kind=bot_kind,
        clock_rule=clock_rule,
        seats=[None] * seats,
    )
    store.tables.save_table(
        TableRecord(
            id=table.id,
            name=table.name,
            seats=seats,
            bot_kind=table.bot_kind,
            variants=table.variants,
            deck_name=table.deck_name,
            deck_toml=default_deck_text(),
            password_hash=None,
            clock=None,
        )
    )
    table.add_bots(bots)
    return table


def seat_players(table: Table) -> list[Keeper]:
    """A player at every free seat, in seat order (the table is then full)."""
    players = []
    for seat, holder in enumerate(table.seats):
        if holder is None:
            player = Keeper(f"P{seat}")
            table.join(player, seat)
            players.append(player)
    return players


def play_one(table: Table) -> int:
    """Make the first legal move for whoever is to act; returns that seat."""
    assert table.game is not None
    seat = table.game.to_act()
    assert seat is not None
    legal = table.wire_view(seat).legal
    assert legal is not None
    table.move(seat, first_legal(legal))
    return seat


def first_legal(legal: Legal) -> Move:
    """A simple legal move of a decision (netkit's `first_legal_move`, as a typed move)."""
    match legal:
        case LegalDiscardFate(cards):
            return DiscardFate(cards[0])
        case LegalDistribute(hand, recipients, count):
            return Distribute(tuple(zip(recipients, hand[:count], strict=False)))
        case LegalDraw(deck, discard):
            return Draw("deck") if deck else Draw("discard", discard[0])
        case LegalDiscardHand(cards):
            return DiscardHand(cards[0])
    raise AssertionError(f"no such decision: {legal!r}")


def play_turn(table: Table) -> None:
    """Moves until the decision passes from the seat now acting to another."""
    assert table.game is not None
    seat = table.game.to_act()
    while not table.game.over and table.game.to_act() == seat:
        play_one(table)


def finished_games(db: Path, count: int) -> list[str]:
    """A database of `count` tables whose one game three bots played to the end."""
    store = SqliteStore(str(db))
    ids = []
    for i in range(count):
        table = make_table(FakeClock(), bots=3, store=store, table_id=f"done{i}")
        assert table.start_if_full() and table.game is not None
        bots = [HeuristicBot(table.deck, random.Random(i * 3 + s)) for s in range(3)]
        while not table.game.over:
            seat = table.game.to_act()
            assert seat is not None
            table.apply(seat, bots[seat].choose(view(table.game, seat)))
        ids.append(table.id)
    store.close()
    return ids
