"""The client's core, one for both faces (the full-screen client, gother_tui/tui/app.py, and
the plain mode, gother_tui/plain/client.py): the connection, the session it follows (the
table as last seen, the chat, the card catalogue, the game's story, the tournament, the
requests in flight and who answers each) and the flow that says where to go next.

Every server message is matched here, once. What a face does differently is its `Face`:
how it shows a notice, where it goes, how it asks for the server's password, what a new
view or a chat line means to it. No Textual here.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import msgspec

from gother_tui.core import tournament_words
from gother_tui.core.catalogue import Catalogue
from gother_tui.core.chronicle import Chronicle
from gother_tui.core.connection import (
    Connected,
    Connection,
    ConnectionLost,
    Event,
    Received,
    Unreadable,
)
from gother_tui.core.flow import Flow, Refusal, Step
from gother_tui.core.glyphs import glyphs_for
from gother_tui.core.narrator import Line
from gother_tui.core.notice import Notice, title
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import TransportFactory
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import Card, View

log = logging.getLogger("gother.client")

CHAT_KEPT = 200
NOT_CONNECTED = Notice("Not connected to the server right now.", "warning")

# What answers a request, carrying its rid: a reply (the server's `error` among them), the
# `state` a change made, the sender's own copy of its `chat`, the `closed` of the `end` vote
# that decided.
Reply = sm.Reply | sm.State | sm.Chat | sm.Closed
# Told the answer to a request as sent; None: no answer will come (the connection was lost).
Answer = Callable[[Request, Reply | None], None]


@dataclass(frozen=True, slots=True)
class Pending:
    asked: Request  # as sent, with its rid
    answer: Answer | None  # None: the flow's own request


class Face(Protocol):
    """What a face of the client does with what the core hears: each shows it its own way."""

    def connected(self) -> None:
        """A connection is open; the hello is on its way."""

    def lost(self, reason: str, retry_in: float | None) -> None:
        """The connection was lost: tried again in `retry_in` seconds, or (None) never."""

    def unreadable(self, problem: str) -> None:
        """The server sent a frame this client cannot read: nothing it held is used."""

    def notice(self, notice: Notice) -> None:
        """A sentence in passing: a refusal, a saved seat gone, a request not sent."""

    def turned_away(self, why: str, notice: Notice | None) -> None:
        """The server will not have this client (another protocol version)."""

    def ask_password(self, why: str) -> None:
        """The server wants its password: ask the player (`password_given` answers; no
        connection is made meanwhile)."""

    def go(self, where: Literal["lobby", "table"], why: Refusal | None) -> None:
        """Show the table, or the lobby (with the refusal that sent us there, if one did)."""

    def welcomed(self, server: str) -> None:
        """The server (its software and version) said welcome."""

    def covered(self, rounds: int) -> None:
        """Seated again, after a bot played `rounds` rounds for us while we were away."""

    def shown(self, before: View | None, added: list[Line]) -> None:
        """The core's `view` is new (None: off the table), after `before`; `added`: the
        lines it adds to the chronicle."""

    def chat_changed(self, line: sm.Chat | None) -> None:
        """The core's `chat` changed: `line` was said at the table (None: it was emptied)."""

    def followed(self, news: str | None) -> None:
        """The core's `tournament` is new; `news`: what is worth saying of the change."""

    def left(self) -> None:
        """The server let us leave the table (the lobby follows)."""

    def closed(self, reason: str, last: View | None) -> None:
        """The table is gone (its players ended the game); `last`: the view it left."""


class ClientCore:
    """`run()` connects and follows the server until `close()`; `request` sends one."""

    def __init__(
        self,
        options: ClientOptions,
        face: Face,
        store: SeatStore,
        transport: TransportFactory,
        relay: Callable[[Event], object] | None = None,
    ) -> None:
        """`relay`: how the connection's events come back to `hear` (by default at once;
        the full-screen client's, through its own message loop)."""
        self.face = face
        self.flow = Flow(options, store)
        self._connection = Connection(
            options.url, relay or self.hear, transport, options.first_retry, options.max_retry
        )
        self._glyphs = glyphs_for(options.ascii)  # the chronicle's
        self.online = False  # a connection is open and its events heard
        self.view: View | None = None  # the latest `state.view`, the one truth
        self.chat: tuple[sm.Chat, ...] = ()  # the table's, oldest first
        self.catalogue = Catalogue()
        self.chronicle = Chronicle()  # the game's story so far, as this client saw it
        self.tournament: sm.Tournament | None = None  # the one registered in or followed
        # tournament id -> the secret of the entry this player (with no proven identity)
        # was given: registering there again from a new connection comes back with it
        self.entries: dict[str, str] = {}
        self._seq = -1
        self._rids = itertools.count(1)
        self._pending: dict[int, Pending] = {}  # rid -> the request, until answered
        self._sent_on: Answer | None = None  # who hears the request the flow asks again there
        self._moving = False  # to another process of the host: the one left is heard no more

    async def run(self) -> None:
        await self._connection.run()

    async def close(self) -> None:
        await self._connection.close()

    # -- requests -------------------------------------------------------------------------

    def request(self, request: Request, answer: Answer) -> int | None:
        """Send `request` with a fresh rid; its answer goes to `answer`. None (and a
        notice) when not connected."""
        if not (self.online and self._connection.open):
            self.face.notice(NOT_CONNECTED)
            return None
        return self._send(request, answer)

    def abandon(self, rid: int) -> None:
        """No longer wait for the answer to `rid` (one that is late is a notice then)."""
        self._pending.pop(rid, None)

    def password_given(self, password: str) -> None:
        """The player typed the server's password: connect again and say hello with it."""
        hello = self.flow.password_given(password)
        self._connection.resume()
        if self._connection.open:  # else the next connection says it
            self._send(hello, None)

    def _send(self, request: Request, answer: Answer | None) -> int:
        rid = next(self._rids)
        if isinstance(request, rq.TournamentJoin) and request.secret is None:
            request = msgspec.structs.replace(request, secret=self.entries.get(request.tournament))
        asked = msgspec.structs.replace(request, rid=rid)
        self._pending[rid] = Pending(asked, answer)
        self._connection.send(asked)
        log.debug("sent %s rid=%s", request.__struct_config__.tag, rid)
        return rid

    def _drop_pending(self) -> None:
        """A connection ended or began: what was asked on the one before is never answered."""
        dropped, self._pending = list(self._pending.values()), {}
        for pending in dropped:
            if pending.answer is not None:
                pending.answer(pending.asked, None)

    # -- what the connection hears ------------------------------------------------------

    def hear(self, event: Event) -> None:
        match event:
            case Connected():
                self.online, self._moving = True, False
                self._drop_pending()
                self.face.connected()
                hello = self.flow.hello()  # none while the player types the server's password
                if hello is not None:
                    self._send(hello, None)
            case ConnectionLost(reason=reason, retry_in=retry_in):
                log.info("connection lost: %s", reason)
                self.online = False
                self._drop_pending()
                away = self.flow.at
                home = None if retry_in is None else self.flow.lost()
                if home is not None:  # back to the host's address, which says where to go
                    self._connection.url = home
                    # not "is the server running?": the host is, and may have moved the game
                    reason = (
                        f"the host's process at {away} stopped answering; "
                        "asking the host where your game is now"
                    )
                self.face.lost(reason, retry_in)
            case Unreadable(problem=problem):
                self.face.unreadable(problem)
            case Received(message=message) if not self._moving:
                self._received(message)

    def _received(self, message: sm.Message) -> None:
        if isinstance(message, sm.Story):  # the game so far, told with the state that follows
            self.chronicle.recall(message)
            return
        match message:
            case sm.State():
                if message.seq > self._seq:  # else stale: older than the view shown
                    self._seq = message.seq
                    self._show(message.view)
            case sm.Chat():  # the sender's own copy answers its `chat`
                self.chat = (*self.chat, message)[-CHAT_KEPT:]
                self.face.chat_changed(message)
            case sm.Error():
                self._refused(message)
                return
            case sm.Welcome():
                self.face.welcomed(message.server)
                self._do(self.flow.welcomed(message.challenge))
            case sm.Proven():
                self._do(self.flow.proven(message))
            case sm.Joined():
                self._enter_table(message.cards)
                self.chronicle.welcome_back(message.covered_rounds)
                if message.covered_rounds:
                    self.face.covered(message.covered_rounds)
                self._do(self.flow.seated(message))
            case sm.Watching():
                self._enter_table(message.cards)
                self._do(self.flow.watching(message))
            case sm.Left():
                self.face.left()
                self._do(self.flow.left())
            case sm.Tournament():
                if message.secret is not None:
                    self.entries[message.id] = message.secret
                news = tournament_words.news(self.tournament, message)
                if message.rid is not None:
                    self.flow.tournament_answered()
                self.tournament = message
                self.face.followed(news if message.rid is None else None)  # else its answer
            case sm.Closed():  # the table is gone (its players ended the game): as if left
                last = self.view
                self._do(self.flow.left())
                self.face.closed(message.reason, last)
        self._answer(message)

    def _answer(self, message: Reply) -> None:
        """A reply goes to whoever asked (the flow's own need no more)."""
        rid = message.rid
        pending = self._pending.pop(rid, None) if rid is not None else None
        if pending is not None and pending.answer is not None:
            pending.answer(pending.asked, message)

    def _refused(self, error: sm.Error) -> None:
        pending = self._pending.pop(error.rid, None) if error.rid is not None else None
        asked = pending.asked.__struct_config__.tag if pending is not None else None
        log.info("server error %s for %s: %s", error.code, asked, error.message)
        follow = None
        if pending is not None and error.code == "elsewhere":
            follow = self.flow.follow(pending.asked, error)
        elif error.rid is None and error.code == "elsewhere":  # called to our next table
            follow = self.flow.called(error, self._playing())
        if follow is not None:  # asked again where the table lives: the answer comes there
            self._sent_on = pending.answer if pending is not None else None
            self._do(follow)
        elif pending is None:
            self.face.notice(Notice(error.message, "error", title(error.code)))
        elif pending.answer is None:
            self._do(self.flow.refused(pending.asked, error))  # the flow says what to show
        else:
            pending.answer(pending.asked, error)

    def _playing(self) -> bool:
        """In a game not over at the table where we hold a seat (a call waits for its end:
        the server calls again once it is over)."""
        view = self.view
        return (
            self.flow.seat is not None and view is not None and view.phase not in ("lobby", "over")
        )

    # -- the session ----------------------------------------------------------------------

    def _show(self, view: View | None) -> None:
        before, self.view = self.view, view
        # the story first: a face finds the new view's lines told
        added = self.chronicle.follow(view, self.catalogue, self._glyphs)
        self.face.shown(before, added)

    def _enter_table(self, cards: tuple[Card, ...]) -> None:
        self.catalogue = Catalogue(cards)
        self._seq = -1  # a new connection's snapshots are the truth, whatever their seq
        self.chat = ()  # the server says the table's recent chat again after this reply
        self.face.chat_changed(None)

    def _do(self, step: Step) -> None:
        if step.forget_view:  # the table shown is no longer ours
            self._show(None)
            self.chat = ()
            self.face.chat_changed(None)
        if step.detail is not None:
            self.face.turned_away(step.detail, step.notice)
        elif step.notice is not None:
            self.face.notice(step.notice)
        if step.go is not None:
            self.face.go(step.go, step.why)
        if step.follow is not None:
            log.info("following the table to %s", step.follow)
            self._moving = True
            self._connection.move_to(step.follow)
        if step.ask is not None and self._connection.open:
            answer, self._sent_on = (self._sent_on, None) if step.again else (None, self._sent_on)
            self._send(step.ask, answer)
        if step.password is not None:
            self._connection.hold()  # no hello, so no other connection, until it is typed
            self.face.ask_password(step.password)
