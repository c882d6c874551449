"""The lobby: every table of this server, the deck folder, and the seat-token index."""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol import ProtocolError, server_messages
from protocol.view import ClockRule
from server.game import (
    DeckError,
    Game,
    Variants,
    dealer_for,
    default_deck_text,
    move_from_wire,
    parse_deck,
)
from server.passwords import hash_password
from server.store import Store, TableRecord
from server.table import CHAT_KEPT, Seat, Settings, Table

log = logging.getLogger("gother.server")

DEFAULT_DECK = "original"
_ID_ALPHABET = string.ascii_lowercase + string.digits


class Lobby:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        changed: Callable[[Table], None],
        decks_dir: Path | None = None,
        max_tables: int = 200,
    ) -> None:
        self.store = store
        self.settings = settings
        self.decks_dir = decks_dir
        self.max_tables = max_tables
        self.changed = changed  # a table started by itself: tell its people, pace its bots
        self.tables: dict[str, Table] = {}

    # -- tables -------------------------------------------------------------------------

    def listing(self) -> list[server_messages.TableRow]:
        return [t.summary() for t in self.tables.values()]

    def find(self, table_id: str) -> Table:
        try:
            return self.tables[table_id]
        except KeyError:
            raise ProtocolError("no_such_table", f"there is no table {table_id!r}") from None

    def create(self, request: dict[str, Any]) -> Table:
        """A new table from a validated `create` request; bot seats are filled at once, and
        a table of bots only starts at once (a show for spectators)."""
        if len(self.tables) >= self.max_tables:
            raise ProtocolError(
                "too_many_tables", f"this server holds at most {self.max_tables} tables"
            )
        variants = Variants.from_wire(request.get("variants"))
        deck_name = request.get("deck", DEFAULT_DECK)
        deck_toml = self._deck_text(deck_name, request["seats"])
        clock = request.get("clock")
        table = self._build(
            TableRecord(
                id=self._new_id(),
                name=request["name"],
                seats=request["seats"],
                bot_kind=request.get("bot", "heuristic"),
                variants=variants.to_wire(),
                deck_name=deck_name,
                deck_toml=deck_toml,
                password_hash=hash_password(request["password"]) if "password" in request else None,
                clock=clock,
            )
        )
        self.store.save_table(self._record_of(table, deck_toml))
        table.add_bots(request["bots"])
        log.info("table %s created: %r, %d seats", table.id, table.name, table.seat_count)
        self.start_if_full(table)
        return table

    def start_if_full(self, table: Table) -> None:
        """A table deals by itself once every seat is taken."""
        if table.start_if_full():
            self.changed(table)

    def restore(self) -> None:
        """Rebuild every stored table; games are replayed move by move (Principle 3)."""
        for record in self.store.load():
            table = self._build(record)
            for seat in record.seat_records:
                table.seats[seat.seat] = Seat(
                    name=seat.name,
                    token_hash=seat.token_hash,
                    bot_kind=seat.bot_kind,
                    away_since=None if seat.bot_kind else self.settings.clock(),
                )
            table.game_no = record.game_no
            if record.seed is not None:
                game = Game.replay(
                    table.deck,
                    record.seats,
                    record.seed,
                    (move_from_wire(seat, move) for seat, move in record.moves),
                    table.variants,
                    dealer_for(record.game_no, record.seats),
                )
                table.restore_game(game)
            table.chat = record.chat[-CHAT_KEPT:]
            log.info("table %s restored (%d moves)", table.id, len(record.moves))

    def _build(self, record: TableRecord) -> Table:
        deck = parse_deck(record.deck_toml, record.deck_name)
        clock = record.clock
        table = Table(
            id=record.id,
            name=record.name,
            seat_count=record.seats,
            deck=deck,
            deck_name=record.deck_name,
            variants=Variants.from_wire(record.variants),
            settings=self.settings,
            store=self.store,
            bot_kind=record.bot_kind,
            password_hash=record.password_hash,
            clock_rule=None if clock is None else ClockRule(clock["initial"], clock["increment"]),
            seats=[None] * record.seats,
        )
        self.tables[table.id] = table
        return table

    @staticmethod
    def _record_of(table: Table, deck_toml: str) -> TableRecord:
        rule = table.clock_rule
        return TableRecord(
            id=table.id,
            name=table.name,
            seats=table.seat_count,
            bot_kind=table.bot_kind,
            variants=table.variants.to_wire(),
            deck_name=table.deck_name,
            deck_toml=deck_toml,
            password_hash=table.password_hash,
            clock=None if rule is None else {"initial": rule.initial, "increment": rule.increment},
        )

    def _new_id(self) -> str:
        while True:
            table_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(6))
            if table_id not in self.tables:
                return table_id

    def _deck_text(self, name: str, seats: int) -> str:
        """The TOML of a deck, validated for this many seats before any game (H3)."""
        if name == DEFAULT_DECK:
            return default_deck_text()
        if self.decks_dir is None:
            raise ProtocolError("bad_deck", f"this server offers only the {DEFAULT_DECK} deck")
        path = self.decks_dir / f"{name.removesuffix('.toml')}.toml"
        # the protocol already refuses separators; resolve() guards against links out
        if path.resolve().parent != self.decks_dir.resolve() or not path.is_file():
            raise ProtocolError("bad_deck", f"no deck named {name!r} on this server")
        try:
            text = path.read_text(encoding="utf-8")
            parse_deck(text, path.name).check_seats(seats, path.name)
        except (OSError, UnicodeDecodeError) as exc:
            raise ProtocolError("bad_deck", f"{path.name} cannot be read ({exc})") from None
        except DeckError as exc:
            raise ProtocolError("bad_deck", str(exc)) from None
        return text

    # -- seats ----------------------------------------------------------------------------

    def find_seat(self, token: str) -> tuple[Table, int]:
        for table in self.tables.values():
            seat = table.seat_for_token(token)
            if seat is not None:
                return table, seat
        raise ProtocolError("bad_token", "that token holds no seat here")
