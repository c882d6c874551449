"""The lobby: every table of this server, the deck folder, and the seat-token index.

Tables come and go here: a stored table that cannot be restored is quarantined (listed as
broken, joined by nobody) while every other starts; a table nobody has been at for
`expire` seconds leaves the live tables, to the archive if it dealt a game (its records
stay), for good if it never did; and creating tables has quotas, per connection and per
address, so that no one can take every table there is.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import secrets
import string
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from protocol import ProtocolError, encode, server_messages
from protocol import requests as rq
from protocol.constants import DEFAULT_BOT, LIST_PAGE, NAME_MAX, TABLE_ID_MAX, TOKEN_MAX
from protocol.fields import RID_MAX
from protocol.view import ClockRule
from server.bots.registry import BotKind, kind_of, trait_for, trait_of
from server.game import (
    DeckError,
    Game,
    MoveError,
    Played,
    Start,
    Variants,
    dealer_for,
    default_deck_text,
    parse_deck,
)
from server.store.database import StoreError
from server.store.outcomes import OutcomeStore
from server.store.tables import BrokenRecord, TableRecord, TableStore
from server.tables.passwords import hash_password
from server.tables.table import CHAT_KEPT, Seat, Settings, StoreFailed, Table
from server.tokens import hash_secret

log = logging.getLogger("gother.server")

DEFAULT_DECK = "original"
MAX_TABLES = 200  # live tables on one server
EXPIRE = 1800.0  # seconds a table nobody is at stays live
_ID_ALPHABET = string.ascii_lowercase + string.digits


class Elsewhere(Protocol):
    """The tables the host's other processes hold, as last read."""

    @property
    def tables(self) -> Sequence[server_messages.TableRow]: ...

    def where(self, table_id: str) -> str | None:
        """The URL of the process holding `table_id`, if another one does."""
        ...

    def held_by(self, identity: str) -> Sequence[tuple[str, int]]:
        """The seats (table id, seat) `identity` holds at the other processes."""
        ...

    @property
    def tournaments(self) -> Sequence[server_messages.TournamentRow]:
        """The tournaments the other processes run, not over."""
        ...

    def runs(self, tournament_id: str) -> str | None:
        """The URL of the process running `tournament_id`, if another one does."""
        ...

    async def read_again(self) -> None:
        """Until the other processes' rows are read again (woken, or a renewal)."""
        ...

    def publish_soon(self) -> None:
        """Tell the other processes this one's tables now, not at the next renewal."""
        ...

    async def publish(self) -> None:
        """Tell the other processes this one's tables now, and wait until that landed."""
        ...


class HeldElsewhere(ProtocolError):
    """The table (or tournament, `what`) lives at another process of the host: its players
    connect to `url`."""

    def __init__(self, what: str, url: str) -> None:
        super().__init__("elsewhere", f"{what} is played at {url}: connect there")
        self.url = url


class Lobby:
    def __init__(
        self,
        store: TableStore,
        outcomes: OutcomeStore,
        settings: Settings,
        changed: Callable[[Table], None],
        decks_dir: Path | None = None,
        max_tables: int = MAX_TABLES,
        expire: float = EXPIRE,
    ) -> None:
        self.store = store
        self.outcomes = outcomes
        self.settings = settings
        self.decks_dir = decks_dir
        self.max_tables = max_tables
        self.expire = expire  # seconds a table nobody is at stays live
        self.changed = changed  # a table started by itself: tell its people, pace its bots
        self.tables: dict[str, Table] = {}
        self.broken: dict[str, BrokenRecord] = {}  # quarantined at restore
        self.creators: dict[str, tuple[object, str]] = {}  # table id -> (connection, address)
        # the tables the host's other processes hold (server/edge/elsewhere.py)
        self.elsewhere: Elsewhere | None = None

    # -- tables -------------------------------------------------------------------------

    def listing(self, offset: int = 0) -> tuple[list[server_messages.TableRow], int]:
        """A page of the tables (live, broken, then those the host's other processes hold,
        as they were last read) from `offset`, and how many there are. Only the page's rows
        are made (each kept by its table until it changes): a `list` costs its page. The
        whole listing, made again after any table's change, cost every `list` 200 rows while
        tables of bots played."""
        rows: Iterator[Callable[[], server_messages.TableRow]] = itertools.chain(
            (table.summary for table in self.tables.values()),
            (functools.partial(_broken_row, broken) for broken in self.broken.values()),
        )
        page = [row() for row in itertools.islice(rows, offset, offset + LIST_PAGE)]
        here = len(self.tables) + len(self.broken)
        elsewhere = () if self.elsewhere is None else self.elsewhere.tables
        if len(page) < LIST_PAGE:
            start = max(0, offset - here)
            page += elsewhere[start : start + LIST_PAGE - len(page)]
        return page, here + len(elsewhere)

    def rows(self) -> list[server_messages.TableRow]:
        """Every live table's row here (each kept by its table until it changes)."""
        return [table.summary() for table in self.tables.values()]

    def tournaments_elsewhere(self) -> tuple[server_messages.TournamentRow, ...]:
        """The tournaments the host's other processes run, not over (after this one's)."""
        return () if self.elsewhere is None else tuple(self.elsewhere.tournaments)

    def published(
        self,
    ) -> list[tuple[server_messages.TableRow, tuple[tuple[str, int], ...], tuple[str, int] | None]]:
        """Every live table's row here, with the seats identities hold at it (identity,
        seat) and the tournament and round it seats: what the host's other processes are
        told (server/edge/elsewhere.py)."""
        return [
            (table.summary(), table.identities(), table.tournament)
            for table in self.tables.values()
        ]

    def find(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        self.check_not_broken(table_id)
        url = None if self.elsewhere is None else self.elsewhere.where(table_id)
        if url is not None:
            raise HeldElsewhere(f"table {table_id}", url)
        raise ProtocolError("no_such_table", f"there is no table {table_id!r}")

    def check_not_broken(self, table_id: str) -> None:
        """A quarantined table answers every request with what is wrong with it."""
        broken = self.broken.get(table_id)
        if broken is not None:
            raise ProtocolError(
                "table_broken", f"table {table_id} could not be restored: {broken.problem}"
            )

    def check_quota(self, owner: object, address: str, per_owner: int, per_address: int) -> None:
        """May this connection (`owner`) from `address` create one more table?"""
        live = [c for t, c in self.creators.items() if t in self.tables]
        if sum(o is owner for o, _ in live) >= per_owner:
            raise ProtocolError(
                "too_many_tables", f"one connection may keep at most {per_owner} tables open"
            )
        if sum(a == address for _, a in live) >= per_address:
            raise ProtocolError(
                "too_many_tables", f"one address may keep at most {per_address} tables open"
            )

    def create(self, request: rq.Create, owner: object = None, address: str = "") -> Table:
        """A new table from a `create` request; bot seats are filled at once, and a table of
        bots only starts at once (a show for spectators)."""
        self._check_room()
        deck_name = request.deck or DEFAULT_DECK
        record = TableRecord(
            id=self._new_id(),
            name=request.name,
            seats=request.seats,
            bot_kind=request.bot or DEFAULT_BOT,
            trait=request.trait or trait_for(request.seats),
            variants=request.variants or Variants(),
            deck_name=deck_name,
            deck_toml=self._deck_text(deck_name, request.seats),
            password_hash=None if request.password is None else hash_password(request.password),
            clock=request.clock,
        )
        table = self._open(record, owner, address)
        # if the bots cannot be stored, the table exists, stopped until a write lands
        with contextlib.suppress(StoreFailed):
            table.add_bots(request.bots)
        log.info("table %s created: %r, %d seats", table.id, table.name, table.seat_count)
        self.start_if_full(table)
        return table

    def play_on(
        self,
        source: TableRecord,
        turn: int,
        start: Start,
        seed: int,
        bot_kind: BotKind,
        owner: object = None,
        address: str = "",
    ) -> Table:
        """A new table like `source` (deck, variants, seats, and its password, so a private
        game stays private), whose first game is set up at `start` with the new `seed`; it
        deals once its asker sits down and starts it (bots take the other seats)."""
        self._check_room()
        suffix = f", turn {turn}"
        record = TableRecord(
            id=self._new_id(),
            name=source.name[: NAME_MAX - len(suffix)].rstrip() + suffix,
            seats=source.seats,
            bot_kind=bot_kind,
            trait=source.trait,
            variants=source.variants,
            deck_name=source.deck_name,
            deck_toml=source.deck_toml,
            password_hash=source.password_hash,
            clock=None,
        )
        table = self._open(record, owner, address)
        table.deal_start, table.deal_seed = start, seed
        log.info("table %s created: played on from table %s, turn %d", table.id, source.id, turn)
        return table

    def _check_room(self) -> None:
        if len(self.tables) >= self.max_tables:
            raise ProtocolError(
                "too_many_tables", f"this server holds at most {self.max_tables} tables"
            )

    def _open(self, record: TableRecord, owner: object, address: str) -> Table:
        """A new table, stored, live and counted against its creator's quotas."""
        table = self._build(record)
        try:
            self.store.save_table(record)
        except StoreError as exc:  # not stored: the table does not exist
            log.error("table %s not created: a write failed (%s)", record.id, exc)
            raise StoreFailed(None, f"the server cannot save a new table now ({exc})") from exc
        self.tables[table.id] = table
        self.creators[table.id] = (owner, address)
        table.attended = self.settings.clock()
        return table

    def start_if_full(self, table: Table) -> None:
        """A table deals by itself once every seat is taken."""
        try:
            started = table.start_if_full()
        except StoreFailed:
            started = True  # not dealt: the table stopped, and its people must hear it
        if started:
            self.changed(table)

    def restore(self) -> None:
        """Rebuild every stored table as the server starts."""
        self.adopt(self.store.load())

    def adopt(self, records: Sequence[TableRecord | BrokenRecord]) -> list[Table]:
        """Rebuild these stored tables (at start, or taken over from a process of the host
        that died), each on its own; games are replayed move by move (Principle 3). A table
        that cannot be rebuilt is quarantined, and logged once. The tables rebuilt."""
        rebuilt = []
        for record in records:
            if isinstance(record, BrokenRecord):
                self._quarantine(record)
                continue
            try:
                table = self._restored(record)
            except Exception as exc:  # whatever is wrong with one table, the rest start
                self._quarantine(BrokenRecord(record.id, record.name, _problem(exc)))
                continue
            self.tables[table.id] = table
            rebuilt.append(table)
            log.info("table %s restored (%d moves)", table.id, len(record.moves))
        return rebuilt

    def _quarantine(self, broken: BrokenRecord) -> None:
        self.broken[broken.id] = broken
        log.error("table %s (%r) cannot be restored: %s", broken.id, broken.name, broken.problem)

    def _restored(self, record: TableRecord) -> Table:
        table = self._build(record)
        now = self.settings.clock()
        for seat in record.seat_records:
            if not 0 <= seat.seat < record.seats:
                raise ValueError(f"a seat {seat.seat} at a table of {record.seats}")
            # a bot this server cannot make: quarantined here, not a crash in a timer later
            bot_kind = None if seat.bot_kind is None else kind_of(seat.bot_kind)
            table.seats[seat.seat] = Seat(
                name=seat.name,
                token_hash=seat.token_hash,
                bot_kind=bot_kind,
                away_since=None if bot_kind else now,
                left_game=seat.left_game,
                identity=seat.identity,
            )
        table.game_no = record.game_no
        if record.seed is not None:
            if any(s is None for s in table.seats):
                raise ValueError(f"game {record.game_no} was dealt with a seat missing")
            replayed = [0]  # how far the replay got, to name the move at fault

            def moves() -> Iterator[Played]:
                for played in record.moves:
                    yield played
                    replayed[0] += 1

            try:
                game = Game.replay(
                    table.deck,
                    record.seats,
                    record.seed,
                    moves(),
                    table.variants,
                    dealer_for(record.game_no, record.seats),
                    record.start,
                )
            except MoveError as exc:
                raise ValueError(
                    f"move {replayed[0]} of game {record.game_no} is refused: {exc}"
                ) from None
            banks = [0.0] * record.seats
            for seat in record.seat_records:
                banks[seat.seat] = seat.bank or 0.0
            table.restore_game(game, tuple(banks))
            if game.over and not self.outcomes.has_outcome(table.id, table.game_no):
                table.finish()  # its end was not stored before the server went down
        table.chat = record.chat[-CHAT_KEPT:]
        table.attended = now
        return table

    # -- tables nobody is at ------------------------------------------------------------

    def sweep(self) -> list[Table]:
        """Retire the tables nobody has been at for `expire` seconds; returns them. One
        whose retirement cannot be written stays live, and is tried again next time."""
        now = self.settings.clock()
        retired = []
        for table in list(self.tables.values()):
            if table.listeners():
                table.attended = now
            elif now - table.attended >= self.expire:
                try:
                    self.retire(table, "nobody was at the table")
                except StoreError as exc:
                    log.error("table %s cannot be retired now: %s", table.id, exc)
                    continue
                retired.append(table)
        return retired

    def retire(self, table: Table, reason: str) -> None:
        """Take `table` out of the live tables: to the archive if it dealt a game (a game in
        progress is recorded as abandoned), else for good. StoreError: it stays."""
        if table.game_no == 0:
            self.store.delete_table(table.id)
        else:
            in_progress = table.game is not None and not table.game.over
            self.store.archive_table(table.id, abandoned=in_progress)
        del self.tables[table.id]
        self.creators.pop(table.id, None)
        table.retired = True  # a bot still thinking there moves nowhere
        log.info("table %s retired: %s", table.id, reason)

    def _build(self, record: TableRecord) -> Table:
        clock = record.clock
        return Table(
            id=record.id,
            name=record.name,
            seat_count=record.seats,
            deck=parse_deck(record.deck_toml, record.deck_name),
            deck_name=record.deck_name,
            variants=record.variants,
            settings=self.settings,
            store=self.store,
            outcomes=self.outcomes,
            bot_kind=kind_of(record.bot_kind),  # once; an unknown one quarantines the table
            trait=trait_of(record.trait or "vengeful"),  # None: bots were all vengeful then
            password_hash=record.password_hash,
            clock_rule=None if clock is None else ClockRule(clock.initial, clock.increment),
            seats=[None] * record.seats,
        )

    def _new_id(self) -> str:
        while True:
            table_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(6))
            if table_id not in self.tables and not self.store.has_table(table_id):
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
            deck = parse_deck(text, path.name)
            deck.check_seats(seats, path.name)
        except (OSError, UnicodeDecodeError) as exc:
            raise ProtocolError("bad_deck", f"{path.name} cannot be read ({exc})") from None
        except DeckError as exc:
            raise ProtocolError("bad_deck", str(exc)) from None
        # the catalogue goes whole in one frame (`joined`, `watching`): a deck whose does not
        # cannot be played (its table took a seat, and then its `joined` could not be sent)
        widest = server_messages.Joined(
            table="t" * TABLE_ID_MAX,
            seat=0,
            token="t" * TOKEN_MAX,
            cards=deck.catalogue(),
            covered_rounds=RID_MAX,
            rid=RID_MAX,
        )
        try:
            encode(widest)
        except ProtocolError as exc:
            raise ProtocolError(
                "bad_deck",
                f"{path.name}: its cards cannot be sent in one frame ({exc.message}):"
                " shorter names and flavours, or fewer cards",
            ) from None
        return text

    # -- seats ----------------------------------------------------------------------------

    def held_by(self, identity: str) -> list[tuple[str, int]]:
        """The seats (table id, seat) `identity` holds at every table of the host (a game
        over among them: its rematch): this process's first, games not over before those
        over, each kind newest first; a client coming back goes to the first (a
        tournament's next round seats a player who was away; round 1's table stands)."""
        newest = reversed(self.tables.values())  # made (or restored) in the order created
        held = [(table, table.seat_for_identity(identity)) for table in newest]
        found = [(table, seat) for table, seat in held if seat is not None]
        found.sort(key=lambda seat: seat[0].outcome is not None)  # stable
        here = [(table.id, seat) for table, seat in found]
        return here + list(() if self.elsewhere is None else self.elsewhere.held_by(identity))

    def find_seat(self, token: str, table_id: str | None = None) -> tuple[Table, int]:
        """The table and seat `token` holds; at `table_id` when it is named, which may be
        held elsewhere (a process of the host that died: taken over by another)."""
        digest = hash_secret(token)  # once, not once a seat of every table
        if table_id is not None:
            table = self.find(table_id)
            seat = table.seat_for_token(digest)
            if seat is None:
                raise ProtocolError("bad_token", f"that token holds no seat at table {table_id}")
            return table, seat
        for table in self.tables.values():
            seat = table.seat_for_token(digest)
            if seat is not None:
                return table, seat
        raise ProtocolError("bad_token", "that token holds no seat here")


def _broken_row(broken: BrokenRecord) -> server_messages.TableRow:
    return server_messages.TableRow(
        id=broken.id,
        name=broken.name,
        seats=0,
        seated=0,
        free=0,
        bots=0,
        players=(),
        phase="lobby",
        started=False,
        spectators=0,
        password=False,
        variants=Variants(),
        deck="",
        broken=broken.problem,
    )


def _problem(exc: Exception) -> str:
    """One line naming what is wrong with a stored table."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, ValueError) and text:
        return text  # ours: already says what is wrong
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
