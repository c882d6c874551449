"""One table: its seats and tokens, spectators, chat, and the game played at it.

The synchronous core. A method either changes the table whole or raises and changes nothing;
each change that everyone can see adds one to `seq`, the number of the `state` that tells
them. Nothing here sends a frame or arms a timer: telling people is fanout.py's job,
deciding when a bot or a clock acts is pace.py's, and pacer.py runs both on the
event loop after each change. A change is verified, then written to the store, then applied
(Principle 6): a write that fails leaves the table as it was.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from protocol import ProtocolError, server_messages
from protocol.constants import SEED_BITS
from protocol.lengths import how_long
from protocol.text import looks_like
from protocol.view import ClockRule, CoverWarning, SeatInfo, TableInfo, View
from server.bots.base import Trait
from server.bots.registry import DEFAULT_KIND, BotKind, word
from server.game import (
    Deck,
    Game,
    Move,
    Start,
    Variants,
    Viewer,
    dealer_for,
    view,
)
from server.store.database import StoreError
from server.store.outcomes import OutcomeStore
from server.store.tables import ChatLine, SeatRecord, TableStore
from server.tables.clock import TurnClock
from server.tables.outcome import Outcome, SeatResult, turn_share
from server.tables.passwords import check_password
from server.tables.players import player_id
from server.tokens import hash_secret, new_token, same

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
CHAT_KEPT = 50  # lines kept in memory; a newcomer gets the newest CHAT_REPLAY_BYTES of them
CHAT_REPLAY_BYTES = 8 * 1024  # of chat text replayed on join or watch: a bounded cost


class StoreFailed(ProtocolError):
    """A write failed: the request changed nothing and `table` now takes no moves."""

    def __init__(self, table: Table | None, message: str) -> None:
        super().__init__("store_failed", message)
        self.table = table


LobbyFacts = tuple[TableInfo, tuple[SeatInfo, ...]]


class Peer(Protocol):
    """A connection as a table sees it: a name, and somewhere frames can be sent."""

    name: str

    def send(self, message: Any) -> None: ...


@dataclass
class Seat:
    name: str
    token_hash: str | None = None  # None for a bot's seat
    bot_kind: BotKind | None = None
    peer: Peer | None = None
    away_since: float | None = None  # when the player's connection went (Settings.clock)
    rematch: bool = False
    pause: bool = False  # votes to pause the game (or to go on, once paused: False)
    end: bool = False  # votes to end the game unfinished
    address: str = ""  # where the player connected from (seat quotas; not stored)
    left_game: int | None = None  # the game its player left in: a bot has played it since
    identity: str | None = None  # the proven identity that holds it (server/edge/identity.py)

    def record(self, seat: int, bank: float) -> SeatRecord:
        return SeatRecord(
            seat,
            self.name,
            self.token_hash,
            self.bot_kind,
            bank,
            self.left_game,
            self.identity,
        )

    @property
    def is_bot(self) -> bool:
        return self.bot_kind is not None


@dataclass
class Settings:
    """Server-wide policies a table follows."""

    grace: float = 60.0  # seconds an absent player keeps the seat before a bot covers
    bot_delay: float = 0.4  # seconds a bot waits before moving, so people can follow
    # When the one listener of a private server will have heard the last line said to
    # them (gother play --plain): a bot waits for that too. None: no one to wait for.
    heard_by: Callable[[], float] | None = None
    cover_kind: BotKind = DEFAULT_KIND  # the bot that covers absent players and runs out clocks
    idle: float = 300.0  # seconds a present player may think before a bot finishes the turn
    warn: float = 30.0  # seconds of warning before a bot covers an idle player (0: none)
    pause_max: float = 3600.0  # a pause ends by itself after this long
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
    store: TableStore  # the table's log: each change is written here before it is made
    outcomes: OutcomeStore  # how its games ended, for the standings
    bot_kind: BotKind = DEFAULT_KIND
    trait: Trait = "vengeful"  # whom its bots hurt (the lobby gives it its seat count's)
    password_hash: str | None = None
    clock_rule: ClockRule | None = None
    seats: list[Seat | None] = field(default_factory=list)
    spectators: set[Peer] = field(default_factory=set)
    game: Game | None = None
    game_no: int = 0
    seq: int = 0
    chat: list[ChatLine] = field(default_factory=list)
    # The banks and the decision the game waits on (server/tables/clock.py): only a deal or
    # a move starts a new decision, whatever else happens meanwhile (players coming and
    # going, chat)
    turn: TurnClock = field(init=False)
    paused_by: frozenset[int] = frozenset()  # the seats whose votes paused it (the voters then)
    stopped: str | None = None  # why the table takes no change: its last write failed
    write_failed_at: float = 0.0  # when a write (or a retry) last failed
    attended: float = 0.0  # when someone was last at the table (the lobby expires tables)
    wins: dict[int, int] = field(default_factory=dict)  # the series: games won per seat
    deal_seed: int | None = None  # the next deal's seed when given (duplicate deals)
    deal_start: Start | None = None  # the next game's position instead of a deal (play on)
    outcome: Outcome | None = None  # how the current game ended, once it is over
    retired: bool = False  # out of the live tables (archived or gone): nothing more happens here
    # the tournament and round this table seats, as it was made, or as the store's rounds
    # say when it is restored or taken over: its players connected at another process of
    # the host are called to it (server/edge/elsewhere.py)
    tournament: tuple[str, int] | None = None
    # the listing's row and what it was made from (seq, spectators): made once per change
    _row: tuple[tuple[int, int], server_messages.TableRow] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.turn = TurnClock((0.0,) * self.seat_count)

    def changed(self) -> None:
        """Record a change everyone can see: the next `state` has the next number."""
        self.seq += 1

    # -- durability ----------------------------------------------------------------------

    def _write(self, write: Callable[[], None]) -> None:
        """Run a store write before the change it records (Principle 6). If it fails the
        table stops taking changes until a write lands again; nothing has changed yet."""
        self.check_open()
        try:
            write()
        except StoreError as exc:
            self.stopped = (
                "the server cannot save this table's changes right now"
                f" ({exc}); it waits until it can"
            )
            self.write_failed_at = self.settings.clock()
            log.error("table %s stopped: a write failed (%s)", self.id, exc)
            self.changed()  # everyone is told the table stopped
            raise StoreFailed(self, f"not saved, nothing changed: {self.stopped}") from exc

    def check_open(self) -> None:
        if self.stopped is not None:
            raise ProtocolError("table_stopped", f"table {self.id} is stopped: {self.stopped}")

    def try_reopen(self) -> bool:
        """After a failed write: does a write land now? Then the table takes changes again."""
        if self.stopped is None:
            return True
        try:
            self.store.probe(int(time.time()))
        except StoreError:
            self.write_failed_at = self.settings.clock()
            return False
        self.stopped = None
        log.info("table %s: writes land again; the table goes on", self.id)
        # nobody could act while it was stopped
        self.turn = replace(self.turn.begun(self.settings.clock()), warned=None)
        self.changed()
        return True

    # -- the lobby -----------------------------------------------------------------------

    def summary(self) -> server_messages.TableRow:
        """One row of the `tables` listing: made again only once the table has changed
        (every change everyone sees adds to `seq`) or its spectators have."""
        made_of = (self.seq, len(self.spectators))
        if self._row is None or self._row[0] != made_of:
            self._row = made_of, self._summary()
        return self._row[1]

    def _summary(self) -> server_messages.TableRow:
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
            bot=word(self.bot_kind),
            trait=self.trait,
            lasts=how_long(
                self.seat_count, word(self.bot_kind), self.trait, self.variants.round_cap
            ),
        )

    @property
    def phase(self) -> str:
        return "lobby" if self.game is None else self.game.phase

    def add_bots(self, count: int) -> None:
        """Seat `count` bots in the last free seats (the host's choice at create)."""
        free = [i for i, s in enumerate(self.seats) if s is None]
        bots = self._bots_for(free[len(free) - count :])
        self._write(
            lambda: self.store.save_seats(
                self.id, [b.record(i, self.turn.banks[i]) for i, b in bots]
            )
        )
        for seat, bot in bots:
            self.seats[seat] = bot

    def _bots_for(self, seats: list[int]) -> list[tuple[int, Seat]]:
        """Bots (with names that look like no one's at the table) for these free seats."""
        used = [s.name for s in self.seats if s is not None]
        bots = []
        for seat in seats:
            unlike = (n for n in BOT_NAMES if not any(looks_like(n, u) for u in used))
            name = next(unlike, f"Bot {seat}")
            used.append(name)
            bots.append((seat, Seat(name=name, bot_kind=self.bot_kind)))
        return bots

    def password_opens(self, password: str | None) -> bool:
        """Whether `password` opens this table (any does when it has none). An older
        server's unsalted hash, once the right password is given, is stored salted (if that
        write fails the old hash stays: it still opens the table)."""
        if self.password_hash is None:
            return True
        ok, better = check_password(password or "", self.password_hash)
        if better is not None:
            try:
                self.store.set_password_hash(self.id, better)
            except StoreError as exc:
                log.warning("table %s: could not store the salted password hash: %s", self.id, exc)
            else:
                self.password_hash = better
        return ok

    def check_name(self, name: str, peer: Peer) -> None:
        """Refuse a seat to a name that would pass for someone else's here (the table's
        seats, as its screen and the lobby's table list show them)."""
        clash = self.name_clash(name, peer)
        if clash is not None:
            who = "a bot's name" if clash.is_bot else "the name of a player at this table"
            raise ProtocolError(
                "name_taken", f"{name!r} looks like {clash.name!r}, {who}: choose another name"
            )

    def name_clash(self, name: str, peer: Peer, mine: Seat | None = None) -> Seat | None:
        """The seat whose name `name` would pass for, if any: a bot's, or one other than
        `mine` that `peer` does not hold. (A bot dealt in later takes a name unlike all.)"""
        return next(
            (
                s
                for s in self.seats
                if s is not None
                and s is not mine
                and (s.is_bot or s.peer is not peer)
                and looks_like(name, s.name)
            ),
            None,
        )

    def check_join(self, seat: int | None) -> int:
        """The seat a `join` would take, or the ProtocolError it gets; changes nothing. The
        table's password is the caller's to check first (server/edge/passwords.py limits
        guesses)."""
        self.check_open()
        if self.game is not None:
            raise ProtocolError(
                "already_started", "the game has started: watch it, or join another table"
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

    def join(self, peer: Peer, seat: int | None, identity: str | None = None) -> tuple[int, str]:
        """Seat a player (held by `identity` when it proved one); returns (seat, token)."""
        seat = self.check_join(seat)
        token = new_token()
        holder = Seat(name=peer.name, token_hash=hash_secret(token), peer=peer, identity=identity)
        self._write(
            lambda: self.store.save_seats(self.id, [holder.record(seat, self.turn.banks[seat])])
        )
        self.seats[seat] = holder
        log.info("table %s: %s sits at seat %d", self.id, peer.name, seat)
        self.changed()
        return seat, token

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    def seat_of(self, peer: Peer) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s is not None and s.peer is peer), None)

    def identities(self) -> tuple[tuple[str, int], ...]:
        """Each seat an identity holds here, as (identity, seat): see seat_for_identity."""
        return tuple(
            (s.identity, i)
            for i, s in enumerate(self.seats)
            if s is not None and s.identity is not None and s.bot_kind is None
        )

    def seat_for_identity(self, identity: str) -> int | None:
        """The seat `identity` holds here, if any: in play, or at a game over while the table
        stands for its rematch, as a seat's token does (one it left for good is a bot's:
        coming back is joining afresh)."""
        return next(
            (
                i
                for i, s in enumerate(self.seats)
                if s is not None and s.identity == identity and s.bot_kind is None
            ),
            None,
        )

    def new_token(self, seat: int) -> str:
        """A fresh token for `seat` (its identity came back without the old one); the old
        one no longer opens it."""
        holder = self.seats[seat]
        assert holder is not None
        token = new_token()
        record = holder.record(seat, self.turn.banks[seat])
        record.token_hash = hash_secret(token)
        self._write(lambda: self.store.save_seats(self.id, [record]))
        holder.token_hash = record.token_hash
        return token

    def seat_for_token(self, digest: str) -> int | None:
        """The seat whose token has this digest (`tokens.hash_secret`: hashed once by the
        asker, not once a seat)."""
        return next(
            (i for i, s in enumerate(self.seats) if s is not None and same(digest, s.token_hash)),
            None,
        )

    def resume(self, peer: Peer, seat: int) -> Peer | None:
        """Give `seat` to `peer`; returns the connection it replaces, if any."""
        holder = self.seats[seat]
        assert holder is not None
        renaming = holder.name != peer.name and self.name_clash(peer.name, peer, holder) is None
        if renaming and self.stopped is None:
            # the name shown is the one the player comes back with, once it is stored, unless
            # it would pass for someone else's: then the seat keeps the name it had
            renamed = Seat(peer.name, holder.token_hash, identity=holder.identity)
            try:
                self._write(
                    lambda: self.store.save_seats(
                        self.id, [renamed.record(seat, self.turn.banks[seat])]
                    )
                )
                holder.name = peer.name
            except StoreFailed:
                pass  # the seat is still theirs; the table is stopped and says why
        self.spectators.discard(peer)  # watching this table, it sits down again: one role
        for other in self.seats:  # one connection plays one seat: any other it held is away
            if other is not None and other is not holder and other.peer is peer:
                other.peer, other.away_since = None, self.settings.clock()
        replaced, holder.peer, holder.away_since = holder.peer, peer, None
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
        self.give_up(seat)
        return True

    def give_up(self, seat: int) -> None:
        """Its player leaves `seat` (whether or not they are here): before the game it is
        freed; during it a bot takes it for good."""
        holder = self.seats[seat]
        assert holder is not None
        if self.game is None:
            self._write(lambda: self.store.delete_seat(self.id, seat))
            self.seats[seat] = None
        else:
            kind, left = self.settings.cover_kind, self.game_no
            # the identity stays, for the game's result: a bot's seat is no one's to resume
            bot = Seat(holder.name, None, kind, left_game=left, identity=holder.identity)
            bank = self.turn.banks[seat]
            self._write(lambda: self.store.save_seats(self.id, [bot.record(seat, bank)]))
            holder.peer, holder.token_hash, holder.bot_kind = None, None, kind
            holder.left_game = left
            holder.pause = holder.end = False
        log.info("table %s: %s leaves seat %d", self.id, holder.name, seat)
        self.changed()

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
        self.check_open()
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
        """Fill empty seats with bots and deal a new game (also a rematch's), or set up the
        position it was given to start from (`deal_start`): one write."""
        bots = self._bots_for([i for i, s in enumerate(self.seats) if s is None])
        game_no = self.game_no + 1
        seed = secrets.randbits(SEED_BITS) if self.deal_seed is None else self.deal_seed
        dealer = dealer_for(game_no, self.seat_count)  # R4: the deal passes left
        start = self.deal_start
        game = Game.new(self.deck, self.seat_count, seed, self.variants, dealer, start)
        turn = TurnClock.dealt(self.clock_rule, self.seat_count, self.settings.clock())
        seats = dict(bots) | {i: s for i, s in enumerate(self.seats) if s is not None}
        records = [
            SeatRecord(i, s.name, s.token_hash, s.bot_kind, turn.banks[i], identity=s.identity)
            for i, s in sorted(seats.items())
        ]
        self._write(lambda: self.store.start_game(self.id, game_no, seed, records, start))
        for seat, bot in bots:
            self.seats[seat] = bot
        self.game_no, self.game, self.outcome = game_no, game, None
        self.deal_seed = self.deal_start = None  # a rematch is dealt afresh
        for holder in self.seats:
            assert holder is not None
            holder.rematch = holder.pause = holder.end = False
        self.turn = turn
        log.info("table %s: game %d starts", self.id, self.game_no)
        self.changed()

    def restore_game(self, game: Game, banks: tuple[float, ...]) -> None:
        """A game replayed from the store after a restart: its current decision starts now,
        with the banks the store kept (the time the server was down is nobody's)."""
        self.game = game
        self.turn = TurnClock(banks, since=self.settings.clock())

    def move(self, seat: int, move: Move) -> None:
        """A player's own move."""
        if self.game is None:
            raise ProtocolError("not_started", "the game has not started yet")
        self.apply(seat, move, by_player=True)

    def hinted(self, seat: int, move: Move) -> None:
        """Keep the hint `seat` is given for its decision now, before it is sent (issue 29
        §3: a review says which moves were the hint's own). StoreFailed, as any write."""
        assert self.game is not None
        step = len(self.game.moves)
        self._write(lambda: self.store.add_hint(self.id, self.game_no, step, seat, move))

    def apply(self, seat: int, move: Move, by_player: bool = False) -> None:
        """`seat`'s move: verified once by the engine, then written to the store (with the
        mover's clock bank, and whether a bot made it for the seat's player), then made
        (MoveError, or StoreFailed, and nothing changed). A bot's move is `by_player` False."""
        game = self.game
        assert game is not None
        self.check_open()
        if self.turn.paused_at is not None:
            raise ProtocolError("paused", "the game is paused: vote to go on first")
        now = self.settings.clock()
        holder = self.seats[seat]
        assert holder is not None
        # the mover's bank after this move (None: no clock to keep, or a bot's seat)
        bank = (
            None
            if holder.is_bot
            else self.turn.bank_after(seat, self._acting(), self.clock_rule, now)
        )
        idx = len(game.moves)
        cover = not by_player and self._players_seat(seat)

        def write() -> None:  # between the engine's verdict and the move (Principle 6)
            self._write(
                lambda: self.store.add_move(self.id, self.game_no, idx, seat, move, bank, cover)
            )

        game.apply(seat, move, first=write)
        self.turn = self.turn.moved(seat, bank, now)
        for holder in self.seats:
            assert holder is not None
            holder.end = False  # a game that moves is not abandoned: end votes start over
        if self.turn.timed_out is not None and game.to_act() != self.turn.timed_out:
            self.turn = self.turn.time_out(None)  # that turn is done: the player decides again
        if game.over:
            log.info("table %s: game %d over, winners %s", self.id, self.game_no, game.winners)
            for seat_won in game.winners or ():
                self.wins[seat_won] = self.wins.get(seat_won, 0) + 1
            self.finish()
        self.changed()

    def _players_seat(self, seat: int) -> bool:
        """Whether a person plays this seat in the current game (or did, until they left)."""
        holder = self.seats[seat]
        assert holder is not None
        return holder.bot_kind is None or holder.left_game == self.game_no

    def finish(self) -> None:
        """Store how the game that is now over ended, for the standings. The game is over
        whether or not that write lands: if it fails, the table stops, and a restart (which
        finds the outcome missing) writes it again."""
        game = self.game
        assert game is not None and game.winners is not None
        movers = self.store.movers(self.id, self.game_no)
        seats = []
        for seat, holder in enumerate(self.seats):
            assert holder is not None
            person = self._players_seat(seat)
            if person:
                player = player_id(holder.name, None, holder.identity)
            else:
                player = player_id(holder.name, holder.bot_kind)
            share = turn_share(movers, seat) if person else 1.0
            seats.append(SeatResult(player, game.goth[seat], share, holder.name))
        finished = datetime.now(UTC).isoformat(timespec="microseconds")
        practice = self.store.played_on(self.id)  # a table to play on from a position
        self.outcome = Outcome(
            self.id, self.game_no, finished, tuple(seats), game.winners, practice
        )
        outcome = self.outcome.to_json()
        with contextlib.suppress(StoreFailed):
            self._write(lambda: self.outcomes.finish_game(self.id, self.game_no, outcome))

    def time_out(self, seat: int) -> None:
        """A present player's clock or patience ran out: bots finish this turn for them."""
        if self.turn.timed_out != seat:
            self.turn = self.turn.time_out(seat)
            log.info("table %s: seat %d ran out of time; a bot finishes the turn", self.id, seat)

    def warn(self, seat: int) -> None:
        """Tell everyone that a bot covers `seat` soon unless its player acts."""
        self.turn = self.turn.warn(seat)
        self.changed()

    # -- votes: rematch, pause, end ------------------------------------------------------

    def _humans_present(self) -> list[Seat]:
        return [s for s in self.seats if s is not None and not s.is_bot and s.peer is not None]

    def voters(self, now: float) -> list[Seat]:
        """The humans whose pause and end votes count: those present, and those away within
        the grace (a blip must not let the others decide without them; server/tables/pace.py
        counts again when a grace ends)."""
        return [
            s
            for s in self.seats
            if s is not None
            and not s.is_bot
            and (s.away_since is None or now - s.away_since < self.settings.grace)
        ]

    def vote_pause(self, seat: int, pause: bool) -> None:
        """Pause once every voter asks; go on once every voter asks that (alike)."""
        self.check_open()
        game = self.game
        if game is None or game.over:
            raise ProtocolError("not_started", "only a game in progress can be paused")
        holder = self.seats[seat]
        assert holder is not None
        holder.pause = pause
        now = self.settings.clock()
        if self.turn.paused_at is not None and not pause and seat not in self.paused_by:
            # away past the grace when the others paused, this voter never agreed to it
            self.go_on(now)
        self.tally(now)
        self.changed()

    def tally(self, now: float) -> bool:
        """Count the pause and end votes: pause or go on once every voter agrees. Returns
        whether every voter wants the game ended (the lobby then archives it)."""
        game = self.game
        assert game is not None
        voters = self.voters(now)
        if self.turn.paused_at is None and voters and all(s.pause for s in voters):
            to_act = game.to_act()
            assert to_act is not None
            acting = self.seats[to_act]
            assert acting is not None
            # the time thought so far is taken off a person's bank
            charged = self.clock_rule is not None and not acting.is_bot
            self.turn = self.turn.paused(to_act, charged, now)
            self.paused_by = frozenset(
                i for i, s in enumerate(self.seats) if any(s is v for v in voters)
            )
            log.info("table %s: paused", self.id)
        elif self.turn.paused_at is not None and not any(s.pause for s in voters):
            self.go_on(now)
        return bool(voters) and all(s.end for s in voters)

    def go_on(self, now: float) -> None:
        """End the pause (a vote, or its time is up): clocks and cover start where they were."""
        paused_at = self.turn.paused_at
        assert paused_at is not None
        for holder in self.seats:
            assert holder is not None
            holder.pause = False
            if holder.away_since is not None:
                holder.away_since += now - paused_at
        self.turn = self.turn.gone_on(now)
        log.info("table %s: the game goes on", self.id)

    def vote_end(self, seat: int) -> bool:
        """Vote to end the game unfinished; returns True once every voter agrees (the lobby
        then archives the table as abandoned)."""
        self.check_open()
        if self.game is None or self.game.over:
            raise ProtocolError("not_started", "only a game in progress can be ended")
        holder = self.seats[seat]
        assert holder is not None
        holder.end = True
        if all(s.end for s in self.voters(self.settings.clock())):
            log.info("table %s: the players ended game %d", self.id, self.game_no)
            return True
        self.changed()
        return False

    def vote_rematch(self, seat: int) -> None:
        self.check_open()
        if self.game is None or not self.game.over:
            raise ProtocolError("not_started", "a rematch can be asked for once the game is over")
        holder = self.seats[seat]
        assert holder is not None
        holder.rematch = True
        if all(s.rematch for s in self._humans_present()):
            self._deal()
        else:
            self.changed()

    def say(self, peer: Peer, text: str) -> ChatLine:
        """Keep a chat line (it is a broadcast of its own, not a change of the state): a
        seated player speaks under the seat's name, anyone else as watching."""
        seat = self.seat_of(peer)
        holder = None if seat is None else self.seats[seat]
        line = ChatLine(peer.name, text, True) if holder is None else ChatLine(holder.name, text)
        self._write(lambda: self.store.add_chat(self.id, self.game_no, line))
        self.chat.append(line)
        del self.chat[:-CHAT_KEPT]
        return line

    # -- presence and clocks (the clock's own questions: server/tables/clock.py) ---------

    def covered(self, seat: int, now: float) -> bool:
        """Is a bot playing for this human seat right now?"""
        holder = self.seats[seat]
        if holder is None or holder.is_bot:
            return False
        gone = holder.away_since is not None and now - holder.away_since >= self.settings.grace
        return gone or self.turn.timed_out == seat

    def _acting(self) -> int | None:
        """The seat the game waits on (None: no game in progress)."""
        game = self.game
        return None if game is None or game.over else game.to_act()

    def bank_left(self, seat: int, now: float) -> float:
        """Seconds left on this seat's clock: its bank runs while the game waits on it."""
        return self.turn.bank_left(seat, self._acting(), now)

    def patience(self, seat: int) -> tuple[float, bool]:
        """How long a present player may think, and whether it is their clock's bank (not
        the table's patience, `idle`) that runs out first."""
        return self.turn.patience(seat, self.clock_rule, self.settings.idle)

    # -- what each viewer sees -----------------------------------------------------------

    def listeners(self) -> list[Peer]:
        """Everyone told of this table's changes: the connected seats, then the spectators."""
        seated = [s.peer for s in self.seats if s is not None and s.peer is not None]
        return seated + list(self.spectators)

    def table_info(self) -> TableInfo:
        now = self.settings.clock()
        warning = self.turn.cover_warning(self._acting(), self.clock_rule, self.settings.idle, now)
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
            paused=self.turn.paused_at is not None,
            pause_votes=self._votes("pause"),
            end_votes=self._votes("end"),
            warning=None if warning is None else CoverWarning(*warning),
            stopped=self.stopped,
            wins=tuple(self.wins.get(s, 0) for s in range(self.seat_count)) if self.wins else (),
        )

    def _votes(self, kind: str) -> tuple[int, ...]:
        return tuple(
            i for i, s in enumerate(self.seats) if s is not None and getattr(s, kind) is True
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
                trait=self.trait if holder.is_bot else None,
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
