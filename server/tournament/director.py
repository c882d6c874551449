"""The tournament director: runs tournaments on the lobby's tables.

A tournament is created (with the host's leave), players register by identity, and its
creator starts it. Each round is seated by `pairing.seat_round` from the standings, in a
worker of the server's searches (`seating`), then on new tables of the lobby where bots fill
the short ones; the round's tables deal at once, and its players hear of it then. The
director hears of every table change (`table_changed`, from the server's `after_change`)
and, when the last table of a round is over, scores it and seats the next. A player who
leaves a table is covered there by a bot (the table's own rule); `drop` also takes them out
of the rounds to come. Everything sent about a tournament is one `tournament` message.

Identity: a player is the ratings' `PlayerId` (server/tables/players.py) of the identity
their connection proved, under whatever name (the name they registered or came back under
is shown; after a restart, the latest they played under); one that proved none is its name,
and its entry is theirs by a secret the director gives them as they register (anyone can say
a name). Registering again as that player from a new connection, with that secret when it
has one, is coming back, and their seats at the round's tables are held by their identity,
so they come back to them as to any seat.

Places cost something: one address (an IPv6 /64) has at most `per_address` entries in a
tournament, no entry's name may pass for another's, and the start seats only the players
present then: the absent are taken off the list before round 1 is seated.
What a restart cannot derive is stored (the tournament, its players, each round's tables);
the results are derived again from the stored outcomes of the tables' games.

A host of several processes (PostgreSQL) runs each tournament at one of them: the one that
holds it (server/store/holds.py), which created it or restored it. Its requests at another
process are answered `elsewhere` (its players follow, as to a table), and its rounds' tables
are spread over the host's processes (spread.py), which tells it the ends of those held
elsewhere (`ended`). A process whose locks were lost (with its holds connection) stops
running those tournaments at once (`let_go`), and runs one again only by restoring it, its
lock taken again (each renewal tries); its players and watchers connected here are kept. A
round is seated only once its lock is known held.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import string
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

import msgspec

from protocol import ProtocolError, encode, server_messages
from protocol import requests as rq
from protocol.constants import (
    DEFAULT_BOT,
    NAME_MAX,
    SEED_BITS,
    TOURNAMENT_PLAYERS,
    TOURNAMENTS_LIVE,
)
from protocol.text import looks_like
from protocol.view import Variants
from server.bots.registry import BotKind, kind_of
from server.ratings.skill import Rating
from server.searches import Searches
from server.store.database import StoreError, StoreUnavailable
from server.store.holds import Holds
from server.store.outcomes import OutcomeStore
from server.store.people import PeopleStore
from server.store.placements import Placement, Placements
from server.store.tournaments import TournamentRecord, TournamentStore
from server.tables.lobby import HeldElsewhere, Lobby
from server.tables.outcome import Outcome
from server.tables.players import PlayerId, identity_in, player_id, shown
from server.tables.table import Peer, StoreFailed, Table
from server.tokens import hash_secret, matches, new_token
from server.tournament.pairing import Seating
from server.tournament.seating import RoundSeating, seated_round
from server.tournament.spread import Spread
from server.tournament.standings import Result, Standing, place_points, standings

log = logging.getLogger("gother.server")

_ID_ALPHABET = string.ascii_lowercase + string.digits
TOLD_KEPT = 10.0  # seconds a tournament over is still told the host's other processes


class Member(Peer, Protocol):
    """A connection as a tournament sees it: a table's peer, with the identity it proved
    and the address every cap counts it by."""

    identity: str | None

    @property
    def address_key(self) -> str: ...


def _player(peer: Member) -> PlayerId:
    return player_id(peer.name, None, peer.identity)


@dataclass
class Entry:
    """A registered player: the name shown, where to tell them, whether they dropped out
    (and of which table's game, then being played: their points stop at the drop)."""

    player: PlayerId
    name: str
    peer: Member | None
    dropped: bool = False
    forfeit: str | None = None  # the table whose game they dropped out of mid-game
    secret: str | None = None  # the hash of an anonymous entry's secret (None: not asked)
    address: str = ""  # where it registered from ("": restored, counted nowhere)


@dataclass
class Seated:
    """One table of a round and the tournament's players at it, in seat order."""

    table: str  # its id (once over, the lobby may have retired it)
    players: tuple[PlayerId, ...]
    over: bool = False


@dataclass
class Tournament:
    id: str
    name: str
    rounds: int
    seats: int
    variants: Variants
    bot_kind: BotKind  # how the bots at its tables play
    duplicate: bool
    organiser: PlayerId  # its creator, who may start it
    entries: dict[PlayerId, Entry] = field(default_factory=dict)  # in registration order
    played: list[list[Seated]] = field(default_factory=list)  # the tables of each round
    results: list[Result[PlayerId]] = field(default_factory=list)
    watchers: set[Peer] = field(default_factory=set)
    over: bool = False  # its last round is over, or everyone dropped out
    seating: asyncio.Task[None] | None = None  # its next round, being seated
    told: bytes | None = None  # the `tournament` frame last sent (None: none since restored)
    told_at: float = 0.0  # when (monotonic)

    @property
    def phase(self) -> str:
        if self.over:
            return "over"
        return "playing" if self.played else "registering"

    def listeners(self) -> list[Peer]:
        peers = [e.peer for e in self.entries.values() if e.peer is not None]
        return peers + [w for w in self.watchers if w not in peers]


class Director:
    def __init__(
        self,
        lobby: Lobby,
        store: TournamentStore,
        people: PeopleStore,
        outcomes: OutcomeStore,
        searches: Searches,
        seated: Callable[[Peer, Table, int, str], None],
        rating: Callable[[PlayerId], Rating],
        per_address: int = 4,
        holds: Holds | None = None,
        placements: Placements | None = None,
    ) -> None:
        self.lobby = lobby
        self.per_address = per_address  # entries a tournament takes from one address
        self.searches = searches  # where a round's seating is thought
        self.store = store
        self.people = people  # the names players last sat under
        self.outcomes = outcomes  # the results: each table's game 1
        self.rating = rating  # the host's: the standings' last tie-break, and shown there
        self.holds = holds  # which tournaments this process runs, of the host's (None: all)
        self.tournaments: dict[str, Tournament] = {}
        self.by_table: dict[str, tuple[Tournament, Seated]] = {}
        # tournaments no process runs whose round's tables are another's: not read again
        # while they stay free (each renewal offers them) unless tables come here
        self.passed: set[str] = set()
        # tournaments let go (their locks lost): who followed each here, until restored
        self.followers: dict[str, tuple[dict[PlayerId, Member], set[Peer]]] = {}
        # tournaments whose round's tables are being opened, their locks known held as it
        # began: let go meanwhile, the round is opened and stored whole before one is restored
        self.opening: set[str] = set()
        # where a round's tables are made, and the ends of those held elsewhere
        self.spread = Spread(lobby, placements, outcomes, seated, self)

    # -- requests ---------------------------------------------------------------------------

    def create(self, organiser: Member, request: rq.TournamentCreate) -> Tournament:
        live = [t for t in self.tournaments.values() if t.phase != "over"]
        if len(live) >= TOURNAMENTS_LIVE:
            raise ProtocolError(
                "too_many_tables", f"this server runs at most {TOURNAMENTS_LIVE} tournaments"
            )
        while (tid := "".join(secrets.choice(_ID_ALPHABET) for _ in range(6))) in self.tournaments:
            pass
        if self.holds is not None and not self.holds.take(tid):
            raise StoreFailed(None, "the server cannot save this now: nothing changed")
        tournament = Tournament(
            id=tid,
            name=request.name,
            rounds=request.rounds,
            seats=request.seats,
            variants=request.variants or Variants(),
            bot_kind=kind_of(request.bot or DEFAULT_BOT),
            duplicate=request.duplicate,
            organiser=_player(organiser),
            watchers={organiser},  # the organiser follows what they run
        )
        _stored(lambda: self.store.save_tournament(_record(tournament)))
        self.tournaments[tid] = tournament
        log.info("tournament %s created: %r, %d rounds", tid, tournament.name, tournament.rounds)
        return tournament

    def find(self, tournament_id: str) -> Tournament:
        tournament = self.tournaments.get(tournament_id)
        if tournament is not None:
            return tournament
        elsewhere = self.lobby.elsewhere
        url = None if elsewhere is None else elsewhere.runs(tournament_id)
        if url is not None:
            raise HeldElsewhere(f"tournament {tournament_id}", url)
        raise ProtocolError("no_such_tournament", f"there is no tournament {tournament_id!r}")

    def register(
        self, tournament: Tournament, peer: Member, secret: str | None = None
    ) -> str | None:
        """Register `peer`'s player, or take them back (under the name they come back as;
        an anonymous entry with its `secret`). Returns the secret of a new anonymous entry:
        only its player is told it."""
        player = _player(peer)
        entry = tournament.entries.get(player)
        self._check_name(tournament, peer.name, entry)
        if entry is not None:
            if entry.secret is not None and not matches(secret or "", entry.secret):
                raise ProtocolError(
                    "name_taken",
                    f"{peer.name!r} is registered in {tournament.name!r} by someone else: come "
                    "back with that entry's secret, or register under another name",
                )
            entry.peer, entry.name = peer, peer.name
            return None
        if tournament.phase != "registering" or tournament.seating is not None:
            raise ProtocolError(
                "already_started", f"tournament {tournament.name!r} has begun: no new players"
            )
        if len(tournament.entries) >= TOURNAMENT_PLAYERS:
            raise ProtocolError(
                "table_full", f"a tournament takes at most {TOURNAMENT_PLAYERS} players"
            )
        address = peer.address_key
        if sum(e.address == address for e in tournament.entries.values()) >= self.per_address:
            raise ProtocolError(
                "too_many_seats",
                f"your address has {self.per_address} players in this tournament already",
            )
        given = new_token() if peer.identity is None else None
        kept = None if given is None else hash_secret(given)
        n = len(tournament.entries)
        _stored(lambda: self.store.add_tournament_player(tournament.id, n, player, kept))
        tournament.entries[player] = Entry(player, peer.name, peer, secret=kept, address=address)
        return given

    def _check_name(self, tournament: Tournament, name: str, mine: Entry | None) -> None:
        """A name that would pass for another entry's is not registered (a player coming
        back may keep or change their own)."""
        for entry in tournament.entries.values():
            if entry is not mine and looks_like(name, entry.name):
                raise ProtocolError(
                    "name_taken",
                    f"{name!r} looks like {entry.name!r}, registered in {tournament.name!r}: "
                    "choose another name",
                )

    def start(self, tournament: Tournament, peer: Member, rid: int | None = None) -> None:
        """Seat the first round; `peer` is answered (`rid`) once it is seated, or at once
        with the reason it cannot start."""
        if _player(peer) != tournament.organiser:
            raise ProtocolError("not_organiser", "only the tournament's creator can start it")
        if tournament.phase != "registering" or tournament.seating is not None:
            raise ProtocolError("already_started", "the tournament has already begun")
        still_in = [(p, e.peer is not None) for p, e in tournament.entries.items() if not e.dropped]
        absent = [p for p, here in still_in if not here]
        if len(still_in) - len(absent) < 2:
            raise ProtocolError("not_started", "a tournament needs at least 2 players here")
        self._check_room(tournament, len(absent))
        if absent:  # only the players here are seated: places held by nobody are let go
            _stored(lambda: self.store.remove_tournament_players(tournament.id, absent))
            for player in absent:
                del tournament.entries[player]
            log.info("tournament %s: %d registered, not here at its start, taken off",
                     tournament.id, len(absent))  # fmt: skip
        self._next_round(tournament, peer, rid)

    def _check_room(self, tournament: Tournament, leaving: int = 0) -> None:
        """Refuse a round the lobby cannot hold whole (before any of its tables exists), its
        players those still in but `leaving`."""
        playing = sum(not e.dropped for e in tournament.entries.values()) - leaving
        tables = -(-playing // tournament.seats)
        free = self.lobby.max_tables - len(self.lobby.tables)
        if tables > free:
            raise ProtocolError(
                "too_many_tables",
                f"the round needs {tables} tables and this server has room for {free} now",
            )

    def drop(self, tournament: Tournament, peer: Member) -> tuple[Table, Peer | None] | None:
        """Out of the rounds to come, and of the game they are playing: it scores nothing
        for them (their points stop at the drop), and a bot takes their seat there for good,
        whoever held it (returns that table, changed, and the connection that was at the
        seat, None if it was away)."""
        entry = tournament.entries.get(_player(peer))
        if entry is None or entry.peer is not peer:
            raise ProtocolError("not_registered", "you are not registered in this tournament")
        playing = next(
            (
                seated
                for seated in (tournament.played[-1] if tournament.played else ())
                if entry.player in seated.players and not seated.over
            ),
            None,
        )
        forfeit = None if playing is None else playing.table
        _stored(lambda: self.store.drop_tournament_player(tournament.id, entry.player, forfeit))
        entry.dropped, entry.forfeit = True, forfeit
        if playing is None or (table := self.lobby.tables.get(playing.table)) is None:
            return None
        seat = playing.players.index(entry.player)  # the players sit first, in their order
        holder = table.seats[seat]
        if holder is None or holder.is_bot:  # they left it before: a bot has it already
            return None
        was_at = holder.peer
        table.give_up(seat)
        return table, was_at

    def resumed(self, peer: Member, table: Table) -> None:
        """`peer` took back its seat at `table` (the same command run again after a quit or
        a lost connection). At a tournament's table it is its player's connection from now
        on: it is told the tournament, and the rounds to come seat it and tell it, as they
        would the one that registered."""
        found = self.by_table.get(table.id)
        if found is None:
            return
        tournament = found[0]
        entry = tournament.entries.get(_player(peer))
        if entry is not None and not entry.dropped:
            entry.peer = peer
        peer.send(self.message(tournament))

    def disconnected(self, peer: Member) -> None:
        for tournament in self.tournaments.values():
            tournament.watchers.discard(peer)
            entry = tournament.entries.get(_player(peer))
            if entry is not None and entry.peer is peer:
                entry.peer = None
        for peers, watchers in self.followers.values():
            watchers.discard(peer)
            if peers.get(_player(peer)) is peer:
                del peers[_player(peer)]

    def restore(self, only: Collection[str] | None = None) -> None:
        """The stored tournaments, after a restart (and the lobby's restore), or `only`
        those, which no process of the host runs any more (their runner died: its round's
        tables may have been taken over here). Results are the stored outcomes of each
        tournament table's first game; a table that has none and is not live (ended
        unfinished, or lost) counts for nobody. Players come back by registering again; a
        round whose tables are all over seats the next. After a restart, each live table
        seating a round knows it again, whoever runs its tournament (`_marked`)."""
        if only is None:
            self._marked(self.lobby.tables.values())
        else:
            only = set(only) | set(self.followers)  # and those let go here: ours again?
            self.passed &= only  # one run since is looked at anew when it is free again
            only = set(only) - self.passed
            if not only:
                return
        for record in self.store.all():
            if only is not None and record.id not in only:
                continue
            if record.id in self.tournaments or record.id in self.opening:
                continue  # run here already, or soon again (its round not stored yet)
            if not self._runs_here(record):
                if record.id not in self.passed:  # another runs it: none here follows it now
                    self.followers.pop(record.id, None)
                continue
            try:
                bot_kind = kind_of(record.bot_kind)
            except ValueError as exc:  # its tables could have no bots: it stays stored, not run
                log.error("tournament %s (%r) cannot be restored: %s", record.id, record.name, exc)
                continue
            tournament = Tournament(
                id=record.id,
                name=record.name,
                rounds=record.rounds,
                seats=record.seats,
                variants=record.variants,
                bot_kind=bot_kind,
                duplicate=record.duplicate,
                organiser=PlayerId(record.organiser),
            )
            for entrant in record.players:
                player = PlayerId(entrant.player)
                name = self._name_of(player)
                tournament.entries[player] = Entry(
                    player, name, None, entrant.dropped, entrant.forfeit, entrant.secret
                )
            for round_no, tables in enumerate(record.rounds_played, 1):
                tournament.played.append([self._restored(tournament, round_no, t) for t in tables])
            peers, tournament.watchers = self.followers.pop(tournament.id, ({}, set()))
            for player, peer in peers.items():  # still here since it was let go
                if player in tournament.entries and not tournament.entries[player].dropped:
                    tournament.entries[player].peer = peer
            self.tournaments[tournament.id] = tournament
            if tournament.played and all(s.over for s in tournament.played[-1]):
                self._table_done(tournament)
            log.info("tournament %s restored (%s)", tournament.id, tournament.phase)

    def _runs_here(self, record: TournamentRecord) -> bool:
        """Of a host's processes, the first to restore a tournament runs it, unless its
        round's tables are live at another (whose tables are what it needs to go on):
        one holding a table of the round, or any once every table of it has ended."""
        if self.holds is None:
            return True
        if record.rounds_played:
            tables = [table_id for table_id, _ in record.rounds_played[-1]]
            here = any(table_id in self.lobby.tables for table_id in tables)
            if not here and not all(self.outcomes.has_outcome(t, 1) for t in tables):
                self.passed.add(record.id)
                return False
        return self.holds.take(record.id)

    def _runs(self, tournament: Tournament) -> bool:
        """Whether this process runs `tournament` still (not let go, nor restored anew as
        another object since: a copy let go hears nothing more)."""
        return self.tournaments.get(tournament.id) is tournament

    def let_go(self, lost: set[str]) -> None:
        """The locks of these tournaments were lost (server/store/holds.py): stop running
        them at once (a round being seated is called off, one being opened is stored whole
        first), keeping who follows each here for when it is restored (its lock taken
        again)."""
        gone = [self.tournaments.pop(t) for t in sorted(lost) if t in self.tournaments]
        for tournament in gone:
            if tournament.seating is not None and tournament.id not in self.opening:
                tournament.seating.cancel()
            peers = {p: e.peer for p, e in tournament.entries.items() if e.peer is not None}
            self.followers[tournament.id] = (peers, tournament.watchers)
        if gone:
            log.warning("tournaments %s let go: their locks were lost with the holds"
                        " connection", ", ".join(t.id for t in gone))  # fmt: skip
        self.by_table = {k: v for k, v in self.by_table.items() if v[0].id not in lost}

    def adopted(self, tables: Collection[Table]) -> None:
        """Tables taken over came here: each seating a tournament's round knows it again,
        and a tournament passed over may be ours to run now."""
        self._marked(tables)
        self.passed.clear()

    def _marked(self, tables: Collection[Table]) -> None:
        """Restored tables that seat a tournament's round know it again, as the store says
        (each round's tables; a table placed here, of a round not stored yet, its
        placement), whichever process runs it: their players connected at the host's other
        processes are called to them, as when they were made. What the store cannot say
        now leaves them unmarked (their players find them in the lobby)."""
        ids = [table.id for table in tables]
        try:
            rounds = self.store.rounds_of(ids)
            if len(rounds) < len(ids):
                rounds |= self.spread.rounds_placed([t for t in ids if t not in rounds])
        except (StoreError, StoreUnavailable) as exc:
            log.error("restored tables do not know their tournaments' rounds: %s", exc)
            return
        for table in tables:
            table.tournament = rounds.get(table.id, table.tournament)

    def _name_of(self, player: PlayerId) -> str:
        """A restored player's name: the latest their identity sat under."""
        identity = identity_in(player)
        return shown(player, None if identity is None else self.people.name_of(identity))

    def _restored(
        self, tournament: Tournament, round_no: int, stored: tuple[str, list[str]]
    ) -> Seated:
        table_id, players = stored
        seated = Seated(table_id, tuple(PlayerId(p) for p in players))
        self.by_table[table_id] = (tournament, seated)
        ended = self.outcomes.outcome(table_id, 1)
        if ended is not None:
            try:
                outcome = Outcome.from_json(table_id, 1, ended)
                if len(outcome.seats) != tournament.seats:
                    raise ValueError(f"{len(outcome.seats)} seats, not {tournament.seats}")
            except ValueError as exc:  # a broken row: that table counts for nobody
                log.error("tournament %s: table %s's outcome cannot be read (%r)",
                          tournament.id, table_id, exc)  # fmt: skip
                seated.over = True
                return seated
            _score(tournament, seated, round_no, outcome)
        else:
            live = self.lobby.tables.get(table_id)
            if live is not None:
                seated.over = live.game is not None and live.game.over
            else:  # ended unfinished, or lost; or held at another process (placed there)
                seated.over = not self.spread.held_elsewhere(table_id)
        return seated

    # -- the rounds -------------------------------------------------------------------------

    def table_changed(self, table: Table) -> Tournament | None:
        """Hear of a table's change; returns the tournament that changed with it, if any."""
        found = self.by_table.get(table.id)
        if found is None or not self._runs(found[0]):
            return None  # none, or one let go as its round opened
        tournament, seated = found
        if seated.over or table.outcome is None or table.game_no != 1:
            return None  # its first game is not over (the outcome is written as it ends)
        _score(tournament, seated, len(tournament.played), table.outcome)
        self._table_done(tournament)
        return tournament

    def table_gone(self, table: Table) -> Tournament | None:
        """A table of a round was closed unfinished (its players voted to end the game): it
        is over, and its game counts for nobody."""
        found = self.by_table.get(table.id)
        if found is None or found[1].over or not self._runs(found[0]):
            return None
        tournament, seated = found
        seated.over = True
        self._table_done(tournament)
        return tournament

    def _table_done(self, tournament: Tournament) -> None:
        """After one of the round's tables is over: seat the next round once all are (and
        once the round is open: its seating looks again when it is)."""
        if not self._runs(tournament):
            return  # let go: run again only once restored
        if tournament.seating is not None or not all(s.over for s in tournament.played[-1]):
            return
        if len(tournament.played) >= tournament.rounds:
            tournament.over = True
            return
        try:
            self._check_room(tournament)
        except ProtocolError as exc:  # no one asked: the host's log says why it waits
            log.error("tournament %s cannot seat its next round: %s", tournament.id, exc.message)
            return
        self._next_round(tournament)

    def close(self) -> None:
        """Call off the seatings under way (the server is going down)."""
        for tournament in self.tournaments.values():
            if tournament.seating is not None:
                tournament.seating.cancel()

    def _next_round(
        self, tournament: Tournament, answering: Peer | None = None, rid: int | None = None
    ) -> None:
        """Seat the players still in by the standings, outside the game's loop; then every
        table of the round deals and everyone following the tournament is told (`answering`
        with `rid`)."""
        ranked = tuple(s.player for s in self.standings(tournament) if not s.dropped)
        if not ranked:
            tournament.over = True  # everyone dropped out: the tournament ends here
            self.tell(tournament, answering, rid)
            return
        past = tuple(s.players for round_ in tournament.played for s in round_)
        job = RoundSeating(ranked, tournament.seats, past)
        what = f"tournament {tournament.id} round {len(tournament.played) + 1}"
        task = asyncio.get_running_loop().create_task(self._seat_round(tournament, job, what))
        tournament.seating = task

        def answered(done: asyncio.Task[None]) -> None:
            tournament.seating = None
            if done.cancelled():
                return
            exc = done.exception()
            if isinstance(exc, ProtocolError):  # the lobby filled up, or the store failed
                log.error("%s cannot be seated: %s", what, exc.message)
                if answering is not None:
                    answering.send(
                        server_messages.Error(code=exc.code, message=exc.message, rid=rid)
                    )
            elif exc is not None:  # a bug of ours: logged whole, the organiser answered
                log.error("%s cannot be seated", what, exc_info=exc)
                if answering is not None:
                    message = "the server failed to seat the round (its log says where)"
                    answering.send(
                        server_messages.Error(code="server_error", message=message, rid=rid)
                    )
            else:
                self.tell(tournament, answering, rid)
                if not tournament.over:  # a table of it may have ended as the others opened
                    self._table_done(tournament)

        task.add_done_callback(answered)

    async def _seat_round(self, tournament: Tournament, job: RoundSeating, what: str) -> None:
        seating = await seated_round(self.searches, job, what)
        self._check_room(tournament)  # other tables may have opened meanwhile
        lost = set() if self.holds is None else await asyncio.to_thread(self.holds.lost)
        if tournament.id in lost:
            asyncio.get_running_loop().call_soon(self.let_go, lost)  # another may run it now
            raise StoreFailed(None, f"the server let go of tournament {tournament.id}: ask again")
        self.opening.add(tournament.id)
        try:
            await self._open_round(tournament, seating)
        finally:
            self.opening.discard(tournament.id)

    async def _open_round(self, tournament: Tournament, seating: Seating[PlayerId]) -> None:
        """Open the seated round's tables and deal them, one at a time: the game's loop
        answers other tables between two (each is stored, dealt and sent to its players,
        a stall of its own). A player who dropped out while the round was being seated is
        left out (a bot has the seat). On a host of several processes a table may be placed
        at the one holding the fewest tables (`Spread.where`), which makes it: the round
        waits for its answer."""
        round_no = len(tournament.played) + 1
        seed = secrets.randbits(SEED_BITS) if tournament.duplicate else None
        tables: list[Seated] = []
        tournament.played.append(tables)
        loads = self.spread.loads()
        placed: list[tuple[str, Placement]] = []
        opened: dict[int, Seated] = {}  # by number
        for number, seated_players in enumerate(seating.tables, 1):
            await asyncio.sleep(0)  # the loop's turn
            players = tuple(p for p in seated_players if not tournament.entries[p].dropped)
            if not players:
                continue
            suffix = f" r{round_no} t{number}"
            name = tournament.name[: NAME_MAX - len(suffix)].rstrip() + suffix
            names = tuple((p, tournament.entries[p].name) for p in players)
            placement = Placement(
                tournament.id,
                round_no,
                number,
                name,
                tournament.seats,
                tournament.variants,
                tournament.bot_kind,
                seed,
                names,
            )
            where = self.spread.where(loads, players)
            if where is None:
                opened[number] = self._open_table(tournament, placement)
            else:  # made there
                placed.append((where, placement))
        if placed:
            opened |= await self.spread.place(placed, partial(self._open_table, tournament))
        tables[:] = [opened[number] for number in sorted(opened)]
        if placed:
            self.spread.ended_elsewhere(None)  # one may have ended before it was known here
        if self.lobby.elsewhere is not None and tables:
            self.lobby.elsewhere.publish_soon()  # players at other processes called at once
        if not tables:  # everyone dropped out while it was seated: the tournament ends here
            tournament.played.pop()
            tournament.over = True
            return
        try:  # the tables exist and deal whatever this write does: a failure is logged
            self.store.save_tournament_round(
                tournament.id, round_no, [(s.table, s.players) for s in tables]
            )
        except StoreError as exc:
            log.error("tournament %s: round %d not stored (%s)", tournament.id, round_no, exc)
        log.info(
            "tournament %s: round %d seated at %d tables", tournament.id, round_no, len(tables)
        )

    def _open_table(
        self, tournament: Tournament, placement: Placement, made: str | None = None
    ) -> Seated:
        """A table of the round, made here and dealt, its players seated where they follow
        the tournament (held by their identity if they are not connected); or `made` at
        another process, where it was placed."""
        players = _players(placement)
        if made is None:
            made = self.spread.deal(placement, [tournament.entries[p].peer for p in players]).id
        seated = Seated(made, players)
        self.by_table[made] = (tournament, seated)
        return seated

    def playing(self) -> set[str]:
        """The tables of the round each tournament run here plays now."""
        return {
            seated.table
            for tournament in self.tournaments.values()
            for seated in (tournament.played[-1] if tournament.played else ())
        }

    def unscored(self, table_id: str) -> bool:
        """Whether `table_id` seats a round run here whose game's end is not known yet."""
        found = self.by_table.get(table_id)
        return found is not None and not found[1].over

    def ended(self, table_id: str, outcome: Outcome | None) -> None:
        """A table of a round run here, held elsewhere, is over (heard by the spread):
        scored by its `outcome` (None: ended unplayed, counting for nobody); the next round
        once all are."""
        found = self.by_table.get(table_id)
        if found is None:
            return
        tournament, seated = found
        if seated.over or not self._runs(tournament):
            return
        if outcome is None:
            seated.over = True
        else:
            _score(tournament, seated, len(tournament.played), outcome)
        self._table_done(tournament)
        self.tell(tournament)

    # -- what is shown ----------------------------------------------------------------------

    def standings(self, tournament: Tournament) -> list[Standing[PlayerId]]:
        return standings(
            list(tournament.entries),
            tournament.results,
            lambda player: self.rating(player).mu,
            dropped=[p for p, e in tournament.entries.items() if e.dropped],
            duplicate=tournament.duplicate,
        )

    def message(
        self, tournament: Tournament, rid: int | None = None, secret: str | None = None
    ) -> server_messages.Tournament:
        """The tournament as everyone is told it (`rid` and an entry's `secret` are for the
        one connection it answers)."""
        rows = self.standings(tournament)
        ratings = {s.player: self.rating(s.player) for s in rows}
        return server_messages.Tournament(
            id=tournament.id,
            name=tournament.name,
            rounds=tournament.rounds,
            seats=tournament.seats,
            duplicate=tournament.duplicate,
            variants=tournament.variants,
            phase=tournament.phase,
            round=len(tournament.played),
            players=tuple(e.name for e in tournament.entries.values()),
            tables=tuple(
                server_messages.TournamentTable(
                    table=s.table,
                    players=tuple(tournament.entries[p].name for p in s.players),
                    bots=tournament.seats - len(s.players),
                    over=s.over,
                    keys=s.players,
                )
                for s in (tournament.played[-1] if tournament.played else ())
            ),
            standings=tuple(
                server_messages.TournamentStanding(
                    player=s.player,
                    name=tournament.entries[s.player].name,
                    games=s.games,
                    points=s.points,
                    goth=s.goth,
                    rating=float(ratings[s.player].shown),
                    match_points=s.match_points,
                    dropped=s.dropped,
                    spread=ratings[s.player].spread,
                )
                for s in rows
            ),
            rid=rid,
            secret=secret,
        )

    def listing(self) -> tuple[server_messages.TournamentRow, ...]:
        """The tournaments not over, oldest first: what the lobby lists."""
        return tuple(
            server_messages.TournamentRow(
                id=t.id,
                name=t.name,
                phase=t.phase,
                round=len(t.played),
                rounds=t.rounds,
                seats=t.seats,
                players=len(t.entries),
                duplicate=t.duplicate,
            )
            for t in self.tournaments.values()
            if not t.over
        )

    def tell(
        self,
        tournament: Tournament,
        answering: Peer | None = None,
        rid: int | None = None,
        secret: str | None = None,
    ) -> None:
        """Send the tournament to its players and watchers (`answering`'s copy carries `rid`
        and the `secret` of the entry it just made, and `answering` is told even if it
        follows the tournament no more)."""
        listeners = tournament.listeners()
        if answering is not None and answering not in listeners:
            listeners.append(answering)
        message = self.message(tournament)
        frame = encode(message)  # made once: a hundred players' standings are dear to build
        for peer in listeners:
            if peer is answering and (rid is not None or secret is not None):
                peer.send(msgspec.structs.replace(message, rid=rid, secret=secret))
            else:
                peer.send(frame)
        tournament.told, tournament.told_at = frame, time.monotonic()
        if self.lobby.elsewhere is not None:  # its players at other processes told at once
            self.lobby.elsewhere.publish_soon()

    def news(self) -> dict[str, bytes]:
        """The `tournament` frame each tournament run here last sent, for the host's other
        processes to send their connections of its players (issue 34 §2); one over only for
        TOLD_KEPT seconds after, the director keeping it in memory for good."""
        now = time.monotonic()
        return {
            t.id: t.told
            for t in self.tournaments.values()
            if t.told is not None and (not t.over or now - t.told_at < TOLD_KEPT)
        }


def _players(placement: Placement) -> tuple[PlayerId, ...]:
    return tuple(PlayerId(player) for player, _ in placement.players)


def _score(tournament: Tournament, seated: Seated, round_no: int, outcome: Outcome) -> None:
    """A table's game is over: points by place and Goth Points for each of its players whose
    seat it was (`SeatResult.credited`) and who did not drop out during it."""
    seated.over = True
    goth = [seat.goth for seat in outcome.seats]
    points = place_points(outcome.winners, goth)
    for seat, player in enumerate(seated.players):
        if outcome.seats[seat].credited and tournament.entries[player].forfeit != seated.table:
            tournament.results.append(Result(player, round_no, seat, points[seat], goth[seat]))


def _stored(write: Callable[[], None]) -> None:
    """A tournament's change is written before it is made (Principle 6)."""
    try:
        write()
    except StoreError as exc:
        raise StoreFailed(
            None, f"the server cannot save this now ({exc}): nothing changed"
        ) from exc


def _record(t: Tournament) -> TournamentRecord:
    return TournamentRecord(
        t.id, t.name, t.rounds, t.seats, t.variants, t.bot_kind, t.duplicate, t.organiser
    )
