"""One table: its seats and tokens, spectators, chat, and the game played at it.

The synchronous core. A method either changes the table whole or raises and changes nothing;
each change that everyone can see adds one to `seq`, the number of the `state` that tells
them. Nothing here sends a frame or arms a timer: telling people is server/fanout.py's job,
deciding when a bot or a clock acts is server/pace.py's, and server/pacer.py runs both on the
event loop after each change. A change is verified, then written to the store, then applied
(DESIGN Principle 6): a write that fails leaves the table as it was.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol import ProtocolError, server_messages
from protocol.view import ClockRule, SeatInfo, TableInfo, View
from server.game import (
    REFEREE,
    Deck,
    Game,
    Move,
    Variants,
    Viewer,
    dealer_for,
    move_from_wire,
    view,
)
from server.passwords import check_password
from server.store import Store
from server.tokens import hash_secret, matches, new_token

log = logging.getLogger("gother.server")

BOT_NAMES = (
    "Morticia",
    "Vlad",
    "Lenore",
    "Siouxsie",
    "Nosferatu",
    "Wednesday",
    "Lestat",
    "Ophelia",
)
CHAT_KEPT = 50  # lines replayed to a newcomer

LobbyFacts = tuple[TableInfo, tuple[SeatInfo, ...]]


class Peer(Protocol):
    """A connection as a table sees it: a name, and somewhere frames can be sent."""

    name: str

    def send(self, message: Any) -> None: ...


@dataclass
class Seat:
    name: str
    token_hash: str | None = None  # None for a bot's seat
    bot_kind: str | None = None
    peer: Peer | None = None
    away_since: float | None = None  # when the player's connection went (Settings.clock)
    bank: float = 0.0  # clock seconds left as the current decision began (table with a clock)
    rematch: bool = False

    @property
    def is_bot(self) -> bool:
        return self.bot_kind is not None


@dataclass
class Settings:
    """Server-wide policies a table follows."""

    grace: float = 60.0  # seconds an absent player keeps the seat before a bot covers
    bot_delay: float = 0.4  # seconds a bot waits before moving, so people can follow
    cover_kind: str = "heuristic"  # the bot that covers absent players and runs out clocks
    clock: Callable[[], float] = time.monotonic


@dataclass
class Table:
    id: str
    name: str
    seat_count: int
    deck: Deck
    deck_name: str
    variants: Variants
    settings: Settings
    store: Store
    bot_kind: str = "heuristic"
    password_hash: str | None = None
    clock_rule: ClockRule | None = None
    seats: list[Seat | None] = field(default_factory=list)
    spectators: set[Peer] = field(default_factory=set)
    game: Game | None = None
    game_no: int = 0
    seq: int = 0
    chat: list[tuple[str, str]] = field(default_factory=list)
    # When the game began waiting on its current decision: only a deal or a move starts a
    # new one, whatever else happens meanwhile (players coming and going, chat).
    decision_since: float = 0.0
    clock_out: int | None = None  # seat whose clock ran out: a bot finishes its turn

    def changed(self) -> None:
        """Record a change everyone can see: the next `state` has the next number."""
        self.seq += 1

    # -- the lobby -----------------------------------------------------------------------

    def summary(self) -> server_messages.TableRow:
        """One row of the `tables` listing."""
        taken = sum(s is not None for s in self.seats)
        return server_messages.TableRow(
            id=self.id,
            name=self.name,
            seats=self.seat_count,
            seated=taken,
            free=self.seat_count - taken,
            bots=sum(s is not None and s.is_bot for s in self.seats),
            players=tuple(s.name if s else None for s in self.seats),
            phase=self.phase,
            started=self.game is not None,
            spectators=len(self.spectators),
            password=self.password_hash is not None,
            variants=self.variants,
            deck=self.deck_name,
        )

    @property
    def phase(self) -> str:
        return "lobby" if self.game is None else self.game.phase

    def add_bots(self, count: int) -> None:
        """Seat `count` bots in the last free seats (the host's choice at create)."""
        free = [i for i, s in enumerate(self.seats) if s is None]
        for seat in free[len(free) - count :]:
            self._seat_bot(seat)

    def _seat_bot(self, seat: int) -> None:
        used = {s.name for s in self.seats if s is not None}
        name = next((n for n in BOT_NAMES if n not in used), f"Bot {seat}")
        self.store.save_seat(self.id, seat, name, None, self.bot_kind)
        self.seats[seat] = Seat(name=name, bot_kind=self.bot_kind)

    def password_opens(self, password: str | None) -> bool:
        """Whether `password` opens this table (any does when it has none). An older
        server's unsalted hash, once the right password is given, is stored salted."""
        if self.password_hash is None:
            return True
        ok, better = check_password(password or "", self.password_hash)
        if better is not None:
            self.store.set_password_hash(self.id, better)
            self.password_hash = better
        return ok

    def check_join(self, seat: int | None) -> int:
        """The seat a `join` would take, or the ProtocolError it gets; changes nothing. The
        table's password is the caller's to check first (server/app.py limits guesses)."""
        if self.game is not None:
            raise ProtocolError(
                "already_started", "the game has started: resume your seat with its token"
            )
        if seat is None:
            seat = next((i for i, s in enumerate(self.seats) if s is None), None)
            if seat is None:
                raise ProtocolError("table_full", f"table {self.id} has no free seat")
        elif seat >= self.seat_count:
            raise ProtocolError(
                "no_such_seat", f"table {self.id} has seats 0-{self.seat_count - 1}"
            )
        elif self.seats[seat] is not None:
            raise ProtocolError("seat_taken", f"seat {seat} is taken")
        return seat

    def join(self, peer: Peer, seat: int | None) -> tuple[int, str]:
        """Seat a player; returns (seat, token)."""
        seat = self.check_join(seat)
        token = new_token()
        holder = Seat(name=peer.name, token_hash=hash_secret(token), peer=peer)
        self.store.save_seat(self.id, seat, holder.name, holder.token_hash, None)
        self.seats[seat] = holder
        log.info("table %s: %s sits at seat %d", self.id, peer.name, seat)
        self.changed()
        return seat, token

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    def seat_of(self, peer: Peer) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s is not None and s.peer is peer), None)

    def seat_for_token(self, token: str) -> int | None:
        return next(
            (i for i, s in enumerate(self.seats) if s is not None and matches(token, s.token_hash)),
            None,
        )

    def resume(self, peer: Peer, seat: int) -> Peer | None:
        """Give `seat` to `peer`; returns the connection it replaces, if any."""
        holder = self.seats[seat]
        assert holder is not None
        replaced, holder.peer, holder.away_since = holder.peer, peer, None
        holder.name = peer.name
        log.info("table %s: %s resumes seat %d", self.id, peer.name, seat)
        self.changed()
        return replaced if replaced is not peer else None

    def leave(self, peer: Peer) -> bool:
        """Before the game a seat is freed; during it a bot takes the seat for good.
        Returns whether that changed the table (a spectator's leaving does not)."""
        self.spectators.discard(peer)
        seat = self.seat_of(peer)
        if seat is None:
            return False
        holder = self.seats[seat]
        assert holder is not None
        if self.game is None:
            self.store.delete_seat(self.id, seat)
            self.seats[seat] = None
        else:
            self.store.save_seat(self.id, seat, holder.name, None, self.settings.cover_kind)
            holder.peer, holder.token_hash, holder.bot_kind = None, None, self.settings.cover_kind
        log.info("table %s: %s leaves seat %d", self.id, peer.name, seat)
        self.changed()
        return True

    def disconnected(self, peer: Peer) -> bool:
        """The connection went: the player keeps the seat, marked away. Returns whether
        that changed the table (a spectator's going does not)."""
        self.spectators.discard(peer)
        seat = self.seat_of(peer)
        if seat is None:
            return False
        holder = self.seats[seat]
        assert holder is not None
        holder.peer, holder.away_since = None, self.settings.clock()
        log.info("table %s: seat %d (%s) disconnected", self.id, seat, holder.name)
        self.changed()
        return True

    def watch(self, peer: Peer) -> None:
        self.spectators.add(peer)

    # -- the game ------------------------------------------------------------------------

    def start(self) -> None:
        """A seated player's `start`: fill the empty seats with bots and deal."""
        if self.game is not None:
            raise ProtocolError("already_started", "the game has already started")
        self._deal()

    def start_if_full(self) -> bool:
        """Deal once every seat is taken; returns whether it did."""
        if self.game is not None or not self.full:
            return False
        self._deal()
        return True

    def _deal(self) -> None:
        """Fill empty seats with bots and deal a new game (also a rematch's)."""
        for seat, holder in enumerate(self.seats):
            if holder is None:
                self._seat_bot(seat)
        game_no = self.game_no + 1
        seed = secrets.randbits(63)
        dealer = dealer_for(game_no, self.seat_count)  # R4: the deal passes left
        game = Game.new(self.deck, self.seat_count, seed, self.variants, dealer)
        self.store.start_game(self.id, game_no, seed)
        self.game_no, self.game = game_no, game
        for holder in self.seats:
            assert holder is not None
            holder.rematch = False
            holder.bank = self.clock_rule.initial if self.clock_rule else 0.0
        self.clock_out = None
        self.decision_since = self.settings.clock()
        log.info("table %s: game %d starts", self.id, self.game_no)
        self.changed()

    def restore_game(self, game: Game) -> None:
        """A game replayed from the store after a restart: its current decision starts now,
        and clocks restart full (the store keeps no banks)."""
        self.game = game
        for holder in self.seats:
            if holder is not None and self.clock_rule is not None:
                holder.bank = self.clock_rule.initial
        self.decision_since = self.settings.clock()

    def move(self, seat: int, wire_move: dict[str, Any]) -> None:
        if self.game is None:
            raise ProtocolError("not_started", "the game has not started yet")
        self.apply(move_from_wire(seat, wire_move))

    def apply(self, move: Move) -> None:
        """Verify one move, write it to the store, then apply it (MoveError, or a store
        error, and nothing changed)."""
        game = self.game
        assert game is not None
        game.verify(move)
        self.store.add_move(self.id, self.game_no, len(game.moves), move.seat, move.to_wire())
        game.apply(move)
        now = self.settings.clock()
        self._charge_clock(move.seat, now)
        self.decision_since = now
        if self.clock_out is not None and game.to_act() != self.clock_out:
            self.clock_out = None  # that turn is done: the player is back on their clock
        if game.over:
            log.info("table %s: game %d over, winners %s", self.id, self.game_no, game.winners)
        self.changed()

    def clock_ran_out(self, seat: int) -> None:
        """A present player's clock ran out: bots finish this turn for them."""
        if self.clock_out != seat:
            self.clock_out = seat
            log.info("table %s: seat %d ran out of time; a bot finishes the turn", self.id, seat)

    def vote_rematch(self, seat: int) -> None:
        if self.game is None or not self.game.over:
            raise ProtocolError("not_started", "a rematch can be asked for once the game is over")
        holder = self.seats[seat]
        assert holder is not None
        holder.rematch = True
        humans = [s for s in self.seats if s is not None and not s.is_bot and s.peer is not None]
        if all(s.rematch for s in humans):
            self._deal()
        else:
            self.changed()

    def say(self, sender: str, text: str) -> None:
        """Keep a chat line (it is a broadcast of its own, not a change of the state)."""
        self.store.add_chat(self.id, self.game_no, sender, text)
        self.chat.append((sender, text))
        del self.chat[:-CHAT_KEPT]

    # -- presence and clocks -------------------------------------------------------------

    def covered(self, seat: int, now: float) -> bool:
        """Is a bot playing for this human seat right now?"""
        holder = self.seats[seat]
        if holder is None or holder.is_bot:
            return False
        gone = holder.away_since is not None and now - holder.away_since >= self.settings.grace
        return gone or self.clock_out == seat

    def bank_left(self, seat: int, now: float) -> float:
        """Seconds left on this seat's clock: its bank runs while the game waits on it."""
        holder = self.seats[seat]
        assert holder is not None
        acting = self.game is not None and not self.game.over and self.game.to_act() == seat
        spent = now - self.decision_since if acting else 0.0
        return max(0.0, holder.bank - spent)

    def _charge_clock(self, seat: int, now: float) -> None:
        holder = self.seats[seat]
        assert holder is not None
        if self.clock_rule is None or holder.is_bot:
            return
        holder.bank = max(0.0, holder.bank - (now - self.decision_since))
        holder.bank += self.clock_rule.increment

    # -- what each viewer sees -----------------------------------------------------------

    def listeners(self) -> list[Peer]:
        """Everyone told of this table's changes: the connected seats, then the spectators."""
        seated = [s.peer for s in self.seats if s is not None and s.peer is not None]
        return seated + list(self.spectators)

    def table_info(self) -> TableInfo:
        return TableInfo(
            variants=self.variants,
            id=self.id,
            name=self.name,
            deck=self.deck_name,
            seats=self.seat_count,
            game=self.game_no,
            spectators=len(self.spectators),
            password=self.password_hash is not None,
            clock=self.clock_rule,
        )

    def seats_meta(self) -> tuple[SeatInfo, ...]:
        now = self.settings.clock()
        return tuple(
            SeatInfo(seat, None, bot=False, connected=False, covered=False, rematch=False)
            if holder is None
            else SeatInfo(
                seat,
                holder.name,
                bot=holder.is_bot,
                connected=holder.is_bot or holder.peer is not None,
                covered=self.covered(seat, now),
                rematch=holder.rematch,
                clock=None if self.clock_rule is None else round(self.bank_left(seat, now), 1),
            )
            for seat, holder in enumerate(self.seats)
        )

    def lobby_facts(self) -> LobbyFacts:
        """The facts of the table and its seats, the same for every viewer of a change."""
        return self.table_info(), self.seats_meta()

    def wire_view(self, viewer: Viewer, lobby_facts: LobbyFacts | None = None) -> View:
        """The protocol `view` for a seat, a spectator or the referee (tests, export);
        a broadcast passes the `lobby_facts` it computed once for all its viewers."""
        info, seats = lobby_facts or self.lobby_facts()
        if self.game is None:
            return View.lobby(info, seats, viewer if isinstance(viewer, int) else None)
        return view(self.game, viewer, table=info, seats=seats)

    def referee_view(self) -> View:
        return self.wire_view(REFEREE)
