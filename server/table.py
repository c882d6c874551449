"""One table: its seats, spectators, chat and the game played at it.

Every change goes through a Table method that runs without awaiting, so on the single event
loop moves are applied strictly one after another; after each change every seat and
spectator gets a fresh `state {seq, view}` built by the engine's `view()`. The table also
decides when a bot must move: for a bot seat, for a player gone longer than the grace
period, or for a player whose clock ran out.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol import ProtocolError, server_messages
from protocol.view import ClockRule, SeatInfo, TableInfo, View
from server.bots.registry import make_bot
from server.game import (
    REFEREE,
    SPECTATOR,
    Deck,
    Game,
    Move,
    MoveError,
    Variants,
    Viewer,
    dealer_for,
    move_from_wire,
    view,
)
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


class Peer(Protocol):
    """A connection as the table sees it: something with a name that frames can be sent to."""

    name: str

    def send(self, message: Any) -> None: ...


@dataclass
class Seat:
    name: str
    token_hash: str | None = None  # None for a bot's seat
    bot_kind: str | None = None
    peer: Peer | None = None
    away_since: float | None = None  # when the player's connection went (monotonic)
    bank: float = 0.0  # clock time left, when the table has a clock
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
    _timer: asyncio.TimerHandle | None = None
    _acting_since: float = 0.0  # when the current decision began (for clocks)
    _decision: tuple[int, int] | None = None  # (game_no, moves made) of that decision
    _clock_out: int | None = None  # seat whose clock ran out: the bot finishes its turn

    # -- lobby ---------------------------------------------------------------------------

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
        self.seats[seat] = Seat(name=name, bot_kind=self.bot_kind)
        self.store.save_seat(self.id, seat, name, None, self.bot_kind)

    def join(self, peer: Peer, seat: int | None, password: str | None) -> tuple[int, str]:
        """Seat a player; returns (seat, token). Starts the game once every seat is taken."""
        seat = self.check_join(seat, password)
        token = new_token()
        self.seats[seat] = Seat(name=peer.name, token_hash=hash_secret(token), peer=peer)
        self.store.save_seat(self.id, seat, peer.name, self.seats[seat].token_hash, None)
        log.info("table %s: %s sits at seat %d", self.id, peer.name, seat)
        return seat, token

    def check_join(self, seat: int | None, password: str | None) -> int:
        """The seat a `join` would take, or the ProtocolError it gets; changes nothing."""
        if self.password_hash is not None and not matches(password or "", self.password_hash):
            raise ProtocolError("wrong_password", "wrong password for this table")
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

    def leave(self, peer: Peer) -> None:
        """Before the game a seat is freed; during it a bot takes the seat for good."""
        self.spectators.discard(peer)
        seat = self.seat_of(peer)
        if seat is None:
            return
        if self.game is None:
            self.seats[seat] = None
            self.store.delete_seat(self.id, seat)
        else:
            holder = self.seats[seat]
            assert holder is not None
            holder.peer, holder.token_hash, holder.bot_kind = None, None, self.settings.cover_kind
            self.store.save_seat(self.id, seat, holder.name, None, holder.bot_kind)
        log.info("table %s: %s leaves seat %d", self.id, peer.name, seat)
        self.changed()

    def disconnected(self, peer: Peer) -> None:
        """The connection went: the player keeps the seat, marked away."""
        self.spectators.discard(peer)
        seat = self.seat_of(peer)
        if seat is None:
            return
        holder = self.seats[seat]
        assert holder is not None
        holder.peer, holder.away_since = None, self.settings.clock()
        log.info("table %s: seat %d (%s) disconnected", self.id, seat, holder.name)
        self.changed()

    def watch(self, peer: Peer) -> None:
        self.spectators.add(peer)
        peer.send(server_messages.State(seq=self.seq, view=self.wire_view(SPECTATOR)))

    # -- the game ------------------------------------------------------------------------

    def start(self, rid_for: tuple[int, int | None] | None = None) -> None:
        """Fill empty seats with bots and deal (also used for a rematch). `rid_for`: the
        (seat, rid) of the request that started it, answered by the seat's `state`."""
        for seat, holder in enumerate(self.seats):
            if holder is None:
                self._seat_bot(seat)
        self.game_no += 1
        seed = secrets.randbits(63)
        dealer = dealer_for(self.game_no, self.seat_count)  # R4: the deal passes left
        self.game = Game.new(self.deck, self.seat_count, seed, self.variants, dealer)
        self.store.start_game(self.id, self.game_no, seed)
        for holder in self.seats:
            assert holder is not None
            holder.rematch = False
            holder.bank = self.clock_rule.initial if self.clock_rule else 0.0
        self._clock_out = None
        log.info("table %s: game %d starts", self.id, self.game_no)
        self.changed(rid_for=rid_for)

    def start_if_full(self) -> None:
        if self.game is None and all(s is not None for s in self.seats):
            self.start()

    def move(self, seat: int, wire_move: dict[str, Any], rid: int | None = None) -> None:
        if self.game is None:
            raise ProtocolError("not_started", "the game has not started yet")
        self.apply(move_from_wire(seat, wire_move), rid)

    def apply(self, move: Move, rid: int | None = None) -> None:
        """Apply one move (raises MoveError and changes nothing if it is illegal)."""
        game = self.game
        assert game is not None
        game.apply(move)
        self.store.add_move(self.id, self.game_no, len(game.moves) - 1, move.seat, move.to_wire())
        self._charge_clock(move.seat)
        if game.over:
            log.info("table %s: game %d over, winners %s", self.id, self.game_no, game.winners)
        self.changed(rid_for=(move.seat, rid))

    def hint(self, seat: int) -> dict[str, Any]:
        """What the heuristic bot would do in this seat now, from the seat's own view."""
        if self.game is None or self.game.over:
            raise ProtocolError("not_started", "there is no game in progress")
        seen = view(self.game, seat, log_size=0)
        if seen.legal is None:
            raise ProtocolError("not_your_turn", "there is no decision of yours to hint at")
        bot = make_bot(self.settings.cover_kind, self.deck, random.Random(self.seq))
        return bot.choose(seen).to_wire()

    def vote_rematch(self, seat: int, rid: int | None = None) -> None:
        if self.game is None or not self.game.over:
            raise ProtocolError("not_started", "a rematch can be asked for once the game is over")
        holder = self.seats[seat]
        assert holder is not None
        holder.rematch = True
        humans = [s for s in self.seats if s is not None and not s.is_bot and s.peer is not None]
        if all(s.rematch for s in humans):
            self.start(rid_for=(seat, rid))
        else:
            self.changed(rid_for=(seat, rid))

    def say(self, peer: Peer, text: str) -> None:
        self.chat.append((peer.name, text))
        del self.chat[:-CHAT_KEPT]
        self.store.add_chat(self.id, self.game_no, peer.name, text)
        message = server_messages.Chat(sender=peer.name, text=text)
        for listener in self.listeners():
            listener.send(message)

    # -- views and broadcasts ----------------------------------------------------------

    def listeners(self) -> list[Peer]:
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
                covered=self._covered(seat, now),
                rematch=holder.rematch,
                clock=None if self.clock_rule is None else round(self._bank_now(seat, now), 1),
            )
            for seat, holder in enumerate(self.seats)
        )

    def wire_view(
        self, viewer: Viewer, lobby_facts: tuple[TableInfo, tuple[SeatInfo, ...]] | None = None
    ) -> View:
        """The protocol `view` for a seat, a spectator or the referee (tests, export).
        `lobby_facts` (table info, seat names…) is the same for every viewer of a change,
        so a broadcast computes it once."""
        info, seats = lobby_facts or (self.table_info(), self.seats_meta())
        if self.game is None:
            return View.lobby(info, seats, viewer if isinstance(viewer, int) else None)
        return view(self.game, viewer, table=info, seats=seats)

    def changed(self, rid_for: tuple[int, int | None] | None = None) -> None:
        """Something everyone can see changed: seq + 1, a fresh view to each, bots driven."""
        self.seq += 1
        self._track_decision()  # before the views: they show the clocks
        facts = (self.table_info(), self.seats_meta())
        for seat, holder in enumerate(self.seats):
            if holder is not None and holder.peer is not None:
                rid = rid_for[1] if rid_for is not None and rid_for[0] == seat else None
                holder.peer.send(  # with a rid for the mover: the reply to its `move`
                    server_messages.State(seq=self.seq, view=self.wire_view(seat, facts), rid=rid)
                )
        if self.spectators:
            message = server_messages.State(seq=self.seq, view=self.wire_view(SPECTATOR, facts))
            for peer in self.spectators:
                peer.send(message)
        self.drive()

    def referee_view(self) -> View:
        return self.wire_view(REFEREE)

    # -- bots, absence and clocks ---------------------------------------------------------

    def _covered(self, seat: int, now: float) -> bool:
        """Is a bot playing for this human seat right now?"""
        holder = self.seats[seat]
        if holder is None or holder.is_bot:
            return False
        gone = holder.away_since is not None and now - holder.away_since >= self.settings.grace
        return gone or self._clock_out == seat

    def _bank_now(self, seat: int, now: float) -> float:
        holder = self.seats[seat]
        assert holder is not None
        acting = self.game is not None and not self.game.over and self.game.to_act() == seat
        spent = now - self._acting_since if acting else 0.0
        return max(0.0, holder.bank - spent)

    def _track_decision(self) -> None:
        """A decision's clock runs from when it was first asked, whatever else changes
        meanwhile (players coming and going, chat): only a move starts a new one."""
        key = None if self.game is None else (self.game_no, len(self.game.moves))
        if key != self._decision:
            self._decision, self._acting_since = key, self.settings.clock()

    def _charge_clock(self, seat: int) -> None:
        holder = self.seats[seat]
        assert holder is not None
        if self.clock_rule is None or holder.is_bot:
            return
        now = self.settings.clock()
        holder.bank = max(0.0, holder.bank - (now - self._acting_since))
        holder.bank += self.clock_rule.increment

    def drive(self) -> None:
        """Decide who must move next and, if a bot should, when."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        game = self.game
        if game is None or game.over:
            return
        seat = game.to_act()
        assert seat is not None
        self._track_decision()
        now = self.settings.clock()
        if self._clock_out is not None and self._clock_out != seat:
            self._clock_out = None  # that turn is done: the player is back on their clock
        holder = self.seats[seat]
        assert holder is not None
        if holder.is_bot:
            delay = self.settings.bot_delay
        elif self._covered(seat, now):
            delay = 0.0
        elif holder.peer is None:
            assert holder.away_since is not None
            delay = holder.away_since + self.settings.grace - now
        elif self.clock_rule is not None:
            delay = self._bank_now(seat, now)
        else:
            return  # a present human's move: wait for it
        seq = self.seq
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(0.0, delay), self._bot_moves, seat, seq)

    def _bot_moves(self, seat: int, seq: int) -> None:
        if self.seq != seq or self.game is None or self.game.to_act() != seat:
            return  # the game moved on meanwhile
        holder = self.seats[seat]
        assert holder is not None
        if (
            not holder.is_bot
            and holder.peer is not None
            and not self._covered(seat, self.settings.clock())
        ):
            self._clock_out = seat  # only a running-out clock brings a present player here
            log.info("table %s: seat %d ran out of time; a bot finishes the turn", self.id, seat)
        kind = holder.bot_kind or self.settings.cover_kind
        bot = make_bot(kind, self.deck, random.Random(seq))
        asyncio.get_running_loop().create_task(self._think(bot, seat, seq))

    async def _think(self, bot: Any, seat: int, seq: int) -> None:
        assert self.game is not None
        seen = view(self.game, seat)
        if bot.thinks_long:  # seconds of search would stall every table: a worker thread
            move = await asyncio.to_thread(bot.choose, seen)
        else:
            move = bot.choose(seen)
        if self.seq != seq or self.game is None or self.game.to_act() != seat:
            return
        try:
            self.apply(move)
        except MoveError:  # a bot bug must not stop the table: log it and let a human see
            log.exception("table %s: bot move %r refused", self.id, move)
