"""The network client: a `Session` fed by a server.

The connection (gother_tui.core.connection) turns every frame into a typed message; the
handlers here are the only place the session changes. Where to go after each answer
(resume, watch, join, lobby) is the flow's decision (gother_tui.core.flow); the answer to a
screen's own request is posted to that screen. The app never imports `server`.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, replace
from typing import ClassVar

import msgspec
from textual import work
from textual.message_pump import MessagePump
from textual.notifications import Notification, Notify

from gother_tui.core import tournament_words
from gother_tui.core.alerts import SEVERITIES, Alert, alerts
from gother_tui.core.catalogue import Catalogue
from gother_tui.core.connection import Connection
from gother_tui.core.flow import Flow, Refusal, Step
from gother_tui.core.narrator import Line
from gother_tui.core.notice import title
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import TransportFactory, WebSocketTransport
from gother_tui.tui import messages as msg
from gother_tui.tui.client_app import ClientApp
from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.connecting import ConnectingScreen
from gother_tui.tui.screens.create_table import CreateTableScreen
from gother_tui.tui.screens.game_over import EndedScreen, GameOverScreen
from gother_tui.tui.screens.help import HelpScreen
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.screens.name import NameScreen
from gother_tui.tui.screens.new_tournament import NewTournamentScreen
from gother_tui.tui.screens.password import PasswordScreen
from gother_tui.tui.screens.review import ReviewScreen
from gother_tui.tui.screens.story import StoryScreen
from gother_tui.tui.screens.table import TableScreen
from gother_tui.tui.screens.tournament import TournamentScreen
from gother_tui.tui.screens.viewer import TextViewer
from protocol import Request
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import Card, View

log = logging.getLogger("gother.client")

CHAT_KEPT = 200
MAX_ALERTS = 3  # in one toast: the newest, when states came faster than the screen


@dataclass(frozen=True, slots=True)
class Pending:
    asked: Request
    asker: MessagePump | None  # None: the flow's own request


class GotherApp(ClientApp):
    HELP_SECTIONS: ClassVar = (
        ("At the table", TableScreen.BINDINGS),
        ("In the lobby", LobbyScreen.BINDINGS),
        ("A tournament", TournamentScreen.BINDINGS),
    )
    KEYMAPPED: ClassVar = (
        TableScreen.BINDINGS,
        LobbyScreen.BINDINGS,
        GameOverScreen.BINDINGS,
        ReviewScreen.BINDINGS,
        EndedScreen.BINDINGS,
        CreateTableScreen.BINDINGS,
        PasswordScreen.BINDINGS,
        ConnectingScreen.BINDINGS,
        ConfirmScreen.BINDINGS,
        TextViewer.BINDINGS,
        StoryScreen.BINDINGS,
        HelpScreen.BINDINGS,
        TournamentScreen.BINDINGS,
        NewTournamentScreen.BINDINGS,
    )

    def __init__(
        self,
        options: ClientOptions,
        transport: TransportFactory = WebSocketTransport,
        seat_store: SeatStore | None = None,
    ) -> None:
        super().__init__(options)
        self.flow = Flow(options, seat_store or SeatStore())
        self.connection = Connection(
            options.url, self.post_message, transport, options.first_retry, options.max_retry
        )
        self._seq = -1
        self._rids = itertools.count(1)
        self._pending: dict[int, Pending] = {}  # rid -> the request, until answered
        self._alert_note: Notification | None = None  # the toast of the latest alerts
        self._alerts: list[Alert] = []  # not shown yet
        self.add_mode("connecting", lambda: ConnectingScreen(self))
        self.add_mode("lobby", lambda: LobbyScreen(self))
        self.add_mode("table", lambda: TableScreen(self))

    @property
    def seat(self) -> int | None:
        return self.flow.seat

    @property
    def table_id(self) -> str | None:
        return self.flow.table

    def open_session(self) -> None:
        if not self.options.ask_name:
            self._connect()
            return
        saved = self.flow.store.name(self.options.url)
        if saved is not None:  # this browser has sat down here before: back to that seat
            self._named(saved)
        else:
            self.push_screen(NameScreen(), self._named)

    def _named(self, name: str | None) -> None:
        assert name is not None  # the name screen is only ever left with a name
        self.options = replace(self.options, name=name, ask_name=False)
        self.flow.options = self.options
        self._connect()

    def _connect(self) -> None:
        self.switch_mode("connecting")
        self.run_network()

    @work(exclusive=True, group="network")
    async def run_network(self) -> None:
        await self.connection.run()

    async def action_quit(self) -> None:
        view = self.view
        in_play = view is not None and view.phase not in ("lobby", "over")
        if self.options.private and in_play and not isinstance(self.screen, ConfirmScreen):
            question = "Quit? This ends the game: its server runs inside this client."
            self.push_screen(ConfirmScreen(question), self._quit_if)
            return
        await self._quit()

    async def _quit_if(self, yes: bool | None) -> None:
        if yes:
            await self._quit()

    async def _quit(self) -> None:
        await self.connection.close()  # say goodbye first: the server need not wait for us
        self.exit()

    # -- alerts ---------------------------------------------------------------------------

    def told(self, before: View | None, view: View | None, added: list[Line]) -> None:
        """Toasts for what matters (gother_tui.core.alerts), the turn in the terminal's title too.
        None takes the focus: a toast is drawn over the screen, keys go where they went."""
        if view is None:
            self.terminal_title = self.TITLE
            return
        for line in added:  # coming back to a seat a bot kept: worth a long look
            if line.kind == "welcome":
                self.notify(line.text, title="Welcome back", timeout=15, markup=False)
        if before is not None:  # arriving at a table is no news
            if not self._alerts:
                self.call_after_refresh(self._alert)
            self._alerts += alerts(before, view, added)
        yours = view.to_act is not None and view.to_act == view.seat
        self.terminal_title = f"Your turn {self.glyphs.sep} {self.TITLE}" if yours else self.TITLE

    def _alert(self) -> None:
        """One toast for the alerts of the states since the last screen refresh, replacing
        the previous one: bots move fast, and a pile of stale toasts would cover the table."""
        found, self._alerts = self._alerts[-MAX_ALERTS:], []
        if not found:
            return
        severity = max((a.severity for a in found), key=SEVERITIES.index)
        text = "\n".join(a.text for a in found)
        note = Notification(text, "", severity, self.NOTIFICATION_TIMEOUT, markup=False)
        old, self._alert_note = self._alert_note, note
        if old is not None and old in self._notifications:
            self._unnotify(old, refresh=False)
        self.post_message(Notify(note))
        # Under tmux the expired toast (and what changed beneath it) was sometimes left on
        # the terminal until something repainted the whole screen: repaint once it is gone.
        self.set_timer(self.NOTIFICATION_TIMEOUT + 0.1, self._repaint)
        if self.options.bell and any(a.your_turn for a in found):
            self.bell()

    def _repaint(self) -> None:
        if self.screen_stack:  # an app closing may lose its screens before the timer fires
            self.screen.refresh()

    # -- requests -------------------------------------------------------------------------

    def request(self, asker: MessagePump | None, request: Request) -> int | None:
        """Send `request` with a fresh rid; its answer goes to `asker` (the flow's own when
        None). None (and a notice) when not connected."""
        if self.link != "online" or not self.connection.open:
            self.notify("Not connected to the server right now.", severity="warning")
            return None
        rid = next(self._rids)
        asked = msgspec.structs.replace(request, rid=rid)
        self._pending[rid] = Pending(asked, asker)
        self.connection.send(asked)
        log.debug("sent %s rid=%s", request.__struct_config__.tag, rid)
        return rid

    def _do(self, step: Step) -> None:
        if step.forget_view:
            self.view = None
            self.chat = ()
        if step.detail is not None:
            self.link_detail = step.detail
        if step.notice is not None:
            notice = step.notice
            self.notify(notice.text, title=notice.title, severity=notice.severity, markup=False)
        if step.go == "table":
            self._switch("table")
        elif step.go == "lobby":
            self._show_lobby(step.why)
        if step.ask is not None:
            self._ask(step.ask)
        if step.password is not None:
            self._ask_password(step.password)

    def _ask(self, ask: Request | None) -> None:
        if ask is not None:
            self.request(None, ask)

    # -- the server's password ------------------------------------------------------------

    def _ask_password(self, why: str) -> None:
        self.connection.hold()  # no hello, so no other connection, until it is typed
        self.link_detail = why
        heading = f"The password of {self.options.url}"
        self.push_screen(PasswordScreen(heading, why), self._password_given)

    def _password_given(self, password: str | None) -> None:
        if password is None:  # back to the connecting screen, which offers it again (p)
            return
        self.link_detail = f"Trying the password{self.glyphs.ellipsis}"
        hello = self.flow.password_given(password)
        self.refresh_bindings()
        self.connection.resume()
        if self.connection.open:  # else the next connection says it
            self._ask(hello)

    def action_password(self) -> None:
        """The connecting screen's key: ask for the server's password again."""
        if self.flow.wants_password and not isinstance(self.screen, PasswordScreen):
            self._ask_password(self.link_detail)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "password":
            return self.flow.wants_password
        return super().check_action(action, parameters)

    def _show_lobby(self, why: Refusal | None) -> None:
        self._switch("lobby")
        lobby = self.get_screen_stack("lobby")[0]
        if why is not None:  # the lobby says why we are there, as for its own requests
            lobby.post_message(msg.Refused(*why))
        self.request(lobby, rq.List())

    # -- the connection -------------------------------------------------------------------

    def on_connected(self, _: msg.Connected) -> None:
        self.link, self.link_detail = "online", ""
        self._pending.clear()  # replies to a lost connection's requests will never come
        self._ask(self.flow.hello())  # none while the player types the server's password

    def on_connection_lost(self, event: msg.ConnectionLost) -> None:
        log.info("connection lost: %s", event.reason)
        self._pending.clear()
        if event.retry_in is None:
            self.link_detail, self.link = event.reason, "closed"  # detail first: link redraws
            self.notify(event.reason, title="Disconnected", severity="error", timeout=30)
            return
        self.link_detail = f"{event.reason}; retrying in {event.retry_in:g} s"
        self.link = "offline"

    def on_unreadable(self, event: msg.Unreadable) -> None:
        self.notify(
            f"The server sent a message this client cannot read ({event.problem}); it was ignored.",
            title="Unreadable message",
            severity="error",
            markup=False,
        )

    # -- what the server says -------------------------------------------------------------

    def on_received(self, event: msg.Received) -> None:
        message = event.message
        match message:
            case sm.State():
                if message.seq <= self._seq:
                    return  # stale: an older snapshot than the one shown
                self._seq = message.seq
                self.view = message.view
            case sm.Chat():
                self.chat = (*self.chat, message)[-CHAT_KEPT:]
            case sm.Story():  # the game so far, told with the state that follows
                self.chronicle.recall(message)
                return
            case sm.Error():
                self._on_error(message)
                return
            case sm.Welcome():
                self._do(self.flow.welcomed(message.challenge))
            case sm.Proven():
                self._do(self.flow.proven(message))
            case sm.Joined():
                self._enter_table(message.cards)
                self.chronicle.welcome_back(message.covered_rounds)
                self._do(self.flow.seated(message))
            case sm.Watching():
                self._enter_table(message.cards)
                self._do(self.flow.watching(message))
            case sm.Left():
                self._do(self.flow.left())
            case sm.Tournament():
                heard = tournament_words.news(self.tournament, message)
                self.tournament = message
                if heard is not None and message.rid is None:
                    self.notify(heard, title="Tournament", markup=False)
            case sm.Closed():  # the table is gone (its players ended the game): as if left
                last = self.view
                self._do(self.flow.left())
                if last is not None and last.phase not in ("lobby", "over"):
                    # an end vote: where the game stood, for everyone, over the lobby
                    self.push_screen(EndedScreen(self, last, message.reason))
                else:
                    self.notify(message.reason, title="Table closed", markup=False)
        self._answer(message)

    def _enter_table(self, cards: tuple[Card, ...]) -> None:
        self.chat = ()  # the server replays the table's recent chat after this reply
        self.catalogue = Catalogue(cards)
        self._seq = -1  # a new connection's snapshots are the truth, whatever their seq

    def _answer(self, message: msg.Reply) -> None:
        """A reply goes to whoever asked (the flow's own need no more): the sender's own
        copy of its `chat` and the `closed` of a deciding `end` vote carry its rid too."""
        if message.rid is None or (pending := self._pending.pop(message.rid, None)) is None:
            return
        if pending.asker is not None:
            pending.asker.post_message(msg.Answered(pending.asked, message))

    def _on_error(self, error: sm.Error) -> None:
        pending = self._pending.pop(error.rid, None) if error.rid is not None else None
        asked = pending.asked.__struct_config__.tag if pending else None
        log.info("server error %s for %s: %s", error.code, asked, error.message)
        if pending is not None and pending.asker is None:
            self._do(self.flow.refused(pending.asked, error))  # the flow says what to show
            return
        self.notify(error.message, title=title(error.code), severity="error", markup=False)
        if pending is not None and pending.asker is not None:
            pending.asker.post_message(msg.Refused(pending.asked, error))
