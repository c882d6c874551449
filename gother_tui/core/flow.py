"""Where the client goes as the server answers: welcome, then resume a saved seat, watch or
join the table asked for, or the lobby; and back again after a loss, a refusal or `left`.
A server that wants its password (none given, or a wrong one) has it asked of the player,
and no hello is said until it is typed.

A plain class, no sockets (tested like `Plan`): the client's core (core/client.py) tells it
what the server said and does the `Step` it returns, each face showing its part. It holds
who we are at the server (the table, the seat and its token, kept in the seat store so a
restart resumes the seat); the core holds the session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import msgspec

from gother_tui.core.notice import Notice, title
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from protocol import PROTOCOL_VERSION, Request
from protocol import requests as rq
from protocol import server_messages as sm

PASSWORD_REFUSALS = ("wrong_password", "too_many_attempts")  # of a hello: ask the player
# sent on to the process holding their table, or running their tournament
FOLLOWED = (rq.Join, rq.Watch, rq.Resume, rq.TournamentJoin, rq.TournamentWatch)
Refusal = tuple[Request, sm.Error]  # a request of the flow's own, and the server's no to it


@dataclass(frozen=True, slots=True)
class Step:
    """What the app does next, in this order (each part optional)."""

    forget_view: bool = False  # the table shown is no longer ours
    detail: str | None = None  # why the server will not have us (the connecting screen)
    notice: Notice | None = None
    go: Literal["lobby", "table"] | None = None
    why: Refusal | None = None  # with go="lobby": the refusal it shows
    ask: Request | None = None  # the flow's own request
    password: str | None = None  # ask the player for the server's password, saying this
    follow: str | None = None  # connect there from now on: the table asked for lives there
    again: bool = False  # `ask` is the request sent on there: its asker hears the answer


class Flow:
    def __init__(self, options: ClientOptions, store: SeatStore) -> None:
        self.options = options
        self.store = store
        # who we are: a server gives our seats and our name back to this key
        self.key = None if options.anonymous else store.key(options.key_name or options.name)
        self._held: tuple[sm.HeldSeat, ...] = ()  # seats our identity holds (`proven`)
        self.table: str | None = None  # the table we sit at or watch
        self.seat: int | None = None  # None: watching, or not at a table
        self._token: str | None = None  # secret: kept to resume, never shown
        self._first_welcome = True
        self._tried_table = False  # --table is tried once; after that, the lobby
        self._resuming: str | None = None  # the table of the token being resumed
        # secret: the server's, as last given (typed in an earlier run of this client, or
        # the command line's password, which may be the server's or the table's)
        self._password = options.server_password or options.password
        self.wants_password = False  # asked of the player: no hello until it is typed
        # the host's process holding the table asked for (`elsewhere`): asked again there
        self._following: Request | None = None
        self._followed = False  # once a request: a table sent on again is refused as is
        self.at = options.url  # the process of the host we are connected to
        # a process of the host we lost (it may have died, its tables taken over by another):
        # a seat is asked back at the host's address with its table, which says where it is
        self._lost: str | None = None

    def hello(self) -> rq.Hello | None:
        """The first request of every connection (None while the password is asked)."""
        return None if self.wants_password else self._hello()

    def password_given(self, password: str) -> rq.Hello:
        """The player typed the server's password: the hello to say with it."""
        self._password, self.wants_password = password, False
        return self._hello()

    def welcomed(self, challenge: bytes | None = None) -> Step:
        """Prove our key, when the server asks (a `challenge`); then settle in."""
        if challenge is not None and self.key is not None:
            return Step(ask=rq.Prove(signature=self.key.sign(challenge)))
        return self._settle_in()

    def proven(self, proven: sm.Proven) -> Step:
        """The server knows us: the seats it holds for us are ours to resume."""
        self._held = proven.seats or ()
        return self._settle_in()

    def _settle_in(self) -> Step:
        """Back to the seat we hold, the table we watch; else, the first time, a saved
        seat, a seat our identity holds, or --table; else the lobby."""
        first, self._first_welcome = self._first_welcome, False
        if self._following is not None:  # where the table lives: the same request again
            asked, self._following = self._following, None
            return Step(ask=asked, again=True)
        if self._token is not None and self.table is not None:
            return self._resume(self.table, self._token)
        if self.table is not None:
            return Step(ask=rq.Watch(table=self.table))  # a spectator comes back
        place = self.options.play_on
        if first and place is not None and place.seat is not None and place.turn is not None:
            # a replay's "play on from here"
            on = rq.PlayOn(table=place.table, game=place.game, seat=place.seat, turn=place.turn)
            return Step(ask=on)
        if first and not self.options.watch:
            saved = self.store.find(self.options.url, self.options.table, self.options.name)
            held = self._held_seat()
            # the identity's newest seat before the newest token saved: a tournament seats
            # a player who is away, and the token kept is the round before's, its game over
            if saved is not None and (held in (None, saved[0]) or self.options.table):
                return self._resume(*saved)
            if held is not None:
                self._resuming = held
                return Step(ask=rq.Resume(table=held))
        return self._table_or_lobby() if first else Step(go="lobby")

    def follow(self, asked: Request, error: sm.Error) -> Step | None:
        """`join`, `watch` or `resume {table}` answered `elsewhere`: the table lives at
        another process of the host (or `tournament_join`, `tournament_watch`: the
        tournament is run there). Connect there, and ask the same again once welcomed
        (None: this request was sent on once already, and is refused as it stands)."""
        if error.url is None or self._followed or not isinstance(asked, FOLLOWED):
            return None
        self._following, self._followed, self.at = replace_rid(asked), True, error.url
        if isinstance(asked, rq.Resume):
            self._resuming = asked.table
        return Step(follow=error.url)

    def called(self, error: sm.Error, playing: bool) -> Step | None:
        """An `elsewhere` of the server's own (no request of ours): a tournament's table is
        held for our identity at another process of the host, its round seated there.
        Followed as an answer's is, the table resumed there by our key, from the lobby or a
        finished game's table; never out of a game in progress (None: we stay)."""
        if error.url is None or error.table is None or playing or self.key is None:
            return None
        self._following, self._followed, self.at = rq.Resume(table=error.table), True, error.url
        self._resuming = error.table
        return Step(follow=error.url)

    def lost(self) -> str | None:
        """The connection ended. Lost at another process of the host than its address, the
        next goes to the address (the process may have died, and its tables be taken over:
        any process of the host says where they are now): that URL, else None (the same)."""
        if self.at == self.options.url:
            return None
        self._lost, self.at, self._followed = self.at, self.options.url, False
        following = self._following
        if isinstance(following, rq.Resume) and following.table is None and self._resuming:
            self._following = replace_rid(msgspec.structs.replace(following, table=self._resuming))
        return self.options.url

    def seated(self, joined: sm.Joined) -> Step:
        """`joined` (the reply to `join` or `resume`): the seat is ours; keep its token."""
        self._followed, self._lost = False, None
        step = Step(forget_view=joined.table != self.table, go="table")
        self.table, self.seat, self._token = joined.table, joined.seat, joined.token
        self._resuming = None
        self.store.save(self.options.url, joined.table, joined.token, self.options.name, self.at)
        return step

    def tournament_answered(self) -> None:
        """A tournament request was answered: one sent on was answered where it went."""
        self._followed = False

    def watching(self, watching: sm.Watching) -> Step:
        self._followed = False
        step = Step(forget_view=watching.table != self.table, go="table")
        self.table, self.seat, self._token = watching.table, None, None
        return step

    def left(self) -> Step:
        """`left`: the seat (or the watch) is given up for good."""
        if self.table is not None:
            self.store.forget(self.options.url, self.table)
        self.table = self.seat = self._token = None
        return Step(forget_view=True, go="lobby")

    def refused(self, asked: Request, error: sm.Error) -> Step:
        """The server refused a request of the flow's own."""
        notice = Notice(error.message, "error", title(error.code))
        match asked:
            case rq.Hello() if error.code in PASSWORD_REFUSALS:
                self.wants_password = True
                why = error.message[:1].upper() + error.message[1:] + "."
                return Step(password=why)
            case rq.Hello():  # e.g. another protocol version
                return Step(detail=f"The server refused us: {error.message}", notice=notice)
            case rq.Prove():  # we play anonymously: no seat of ours is found by the key
                return replace(self._settle_in(), notice=notice)
            case rq.Resume():
                return self._resume_refused(error, notice)
            case rq.Join() | rq.Watch() | rq.PlayOn():  # the table asked for is not to be had
                self.table = self.seat = self._token = None
                return Step(forget_view=True, notice=notice, go="lobby", why=(asked, error))
        return Step(notice=notice)

    # -- the rest ---------------------------------------------------------------------------

    def _held_seat(self) -> str | None:
        """The table of a seat our identity holds: --table's if it is one, else the first
        (the server lists games not over first, each kind newest first)."""
        tables = [held.table for held in self._held]
        if self.options.table in tables:
            return self.options.table
        return tables[0] if tables else None

    def _hello(self) -> rq.Hello:
        return rq.Hello(
            v=PROTOCOL_VERSION,
            name=self.options.name,
            key=None if self.key is None else self.key.public,
            # a server with a password asks for it here (and one without ignores it)
            password=self._password or None,
        )

    def _resume(self, table: str, token: str) -> Step:
        self._resuming = table
        at = self.store.place(self.options.url, table)
        if self._lost is not None:  # its process was lost: here, with the table, to be sent on
            return Step(ask=rq.Resume(token=token, table=table))
        if at is not None and at != self.at:  # held by another process of the host: there
            self._following, self._followed, self.at = rq.Resume(token=token), True, at
            return Step(follow=at)
        return Step(ask=rq.Resume(token=token))

    def _resume_refused(self, error: sm.Error, notice: Notice) -> Step:
        """A saved seat is no longer valid: forget it, then go where the user asked."""
        if error.code != "bad_token":
            return Step(notice=notice)
        if self._resuming is not None:
            self.store.forget(self.options.url, self._resuming)
        self.table = self.seat = self._token = self._resuming = None
        gone = Notice("Your saved seat is no longer valid.", "warning")
        then = self._table_or_lobby()
        return Step(forget_view=True, notice=gone, go=then.go, ask=then.ask)

    def _table_or_lobby(self) -> Step:
        """Straight to --table the first time; the lobby otherwise."""
        options = self.options
        if options.table is None or self._tried_table:
            return Step(go="lobby")
        self._tried_table = True
        password = options.password or None
        if options.watch:
            return Step(ask=rq.Watch(table=options.table, password=password))
        return Step(ask=rq.Join(table=options.table, password=password))


def replace_rid(asked: Request) -> Request:
    """`asked` as a new request: the next connection gives it a rid of its own."""
    return msgspec.structs.replace(asked, rid=None)
