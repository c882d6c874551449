"""The network client: a `Session` fed by a server, the full-screen face of the client's core.

The core (gother_tui.core.client) holds the connection, the session and the flow, and
matches every server message; this app is its `Face`: the core's state mirrored into the
reactives its screens follow, notices as toasts, the flow's places as screens, and the
answer to a screen's own request posted to that screen. The app never imports `server`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import ClassVar, Literal

from textual import work
from textual.message_pump import MessagePump
from textual.notifications import Notification, Notify

from gother_tui.core.alerts import SEVERITIES, Alert, alerts
from gother_tui.core.catalogue import Catalogue
from gother_tui.core.chronicle import Chronicle
from gother_tui.core.client import ClientCore, Reply
from gother_tui.core.connection import Event
from gother_tui.core.fetch import FETCH_TIMEOUT
from gother_tui.core.flow import Flow, Refusal
from gother_tui.core.narrator import Line
from gother_tui.core.notice import THINKING, Notice, title
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import RecordError, Reference, ask_record
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
from protocol.view import View

MAX_ALERTS = 3  # in one toast: the newest, when states came faster than the screen


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
        self.core = ClientCore(options, self, seat_store or SeatStore(), transport, self._relay)
        self._alert_note: Notification | None = None  # the toast of the latest alerts
        self._alerts: list[Alert] = []  # not shown yet
        self.add_mode("connecting", lambda: ConnectingScreen(self))
        self.add_mode("lobby", lambda: LobbyScreen(self))
        self.add_mode("table", lambda: TableScreen(self))

    @property
    def flow(self) -> Flow:
        return self.core.flow

    @property
    def catalogue(self) -> Catalogue:
        return self.core.catalogue

    @property
    def chronicle(self) -> Chronicle:
        return self.core.chronicle

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
        # the key chosen before the name was known stays ours, in the next run too
        keyed = self.options.key_name or self.options.name
        self.options = replace(self.options, name=name, ask_name=False, key_name=keyed)
        self.flow.options = self.options
        self._connect()

    def _connect(self) -> None:
        self.switch_mode("connecting")
        self.run_network()

    @work(exclusive=True, group="network")
    async def run_network(self) -> None:
        await self.core.run()

    def _relay(self, event: Event) -> None:
        """The connection's events reach the core through this app's own message loop, in
        turn with the keys: a screen never sees the session change under a handler."""
        self.post_message(msg.Heard(event))

    def on_heard(self, message: msg.Heard) -> None:
        self.core.hear(message.event)

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
        await self.core.close()  # say goodbye first: the server need not wait for us
        self.exit()

    # -- alerts ---------------------------------------------------------------------------

    def _news(self, before: View | None, view: View | None, added: list[Line]) -> None:
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

    # -- a replay -------------------------------------------------------------------------

    def on_replay_asked(self, message: msg.ReplayAsked) -> None:
        self.notify("Fetching the game's record…", title="Replay", markup=False)
        self._fetch_replay(message.place)

    @work(exclusive=True, group="replay")
    async def _fetch_replay(self, place: Reference) -> None:
        """The record asked over this client's own connection (its certificate, the
        password typed, its identity: nothing is asked again), then the app ends with it:
        the command line shows the replay and starts the client again."""
        try:
            record = await ask_record(self._ask, place.table, place.game, place.seat)
        except RecordError as exc:
            self.notify(f"{exc}.", title="No replay", severity="error", markup=False)
            return
        self.exit(record)

    async def _ask(self, request: Request) -> Reply | None:
        """`request`'s answer, the server's error among them (None: not sent, or none came)."""
        answer: asyncio.Future[Reply | None] = asyncio.get_running_loop().create_future()

        def settle(asked: Request, reply: Reply | None) -> None:
            if not answer.done():
                answer.set_result(reply)

        rid = self.core.request(request, settle)
        if rid is None:
            return None
        try:
            return await asyncio.wait_for(answer, FETCH_TIMEOUT)
        except TimeoutError:
            self.core.abandon(rid)
            return None

    # -- requests -------------------------------------------------------------------------

    def request(self, asker: MessagePump, request: Request) -> int | None:
        """Send `request`; its answer goes to `asker` as `Answered` or `Refused` (a refusal
        is a notice too, but `thinking`: the table says it where the hint will appear, and
        a toast over the log hid its chat). None (and a notice) when not connected."""

        def answer(asked: Request, reply: Reply | None) -> None:
            if isinstance(reply, sm.Error):
                if reply.code != THINKING:
                    self.notify(
                        reply.message, title=title(reply.code), severity="error", markup=False
                    )
                asker.post_message(msg.Refused(asked, reply))
            elif reply is not None:  # None: the connection was lost, the answer with it
                asker.post_message(msg.Answered(asked, reply))

        return self.core.request(request, answer)

    # -- the face: what the core hears, shown ---------------------------------------------

    def connected(self) -> None:
        self.link, self.link_detail = "online", ""

    def lost(self, reason: str, retry_in: float | None) -> None:
        if retry_in is None:
            self.link_detail, self.link = reason, "closed"  # detail first: link redraws
            self.notify(reason, title="Disconnected", severity="error", timeout=30)
            return
        self.link_detail = f"{reason}; retrying in {retry_in:g} s"
        self.link = "offline"

    def unreadable(self, problem: str) -> None:
        self.notify(
            f"The server sent a message this client cannot read ({problem}); it was ignored.",
            title="Unreadable message",
            severity="error",
            markup=False,
        )

    def notice(self, notice: Notice) -> None:
        self.notify(notice.text, title=notice.title, severity=notice.severity, markup=False)

    def turned_away(self, why: str, notice: Notice | None) -> None:
        self.link_detail = why  # the connecting screen says it
        if notice is not None:
            self.notice(notice)

    def go(self, where: Literal["lobby", "table"], why: Refusal | None) -> None:
        if where == "table":
            self._switch("table")
            return
        self._switch("lobby")
        lobby = self.get_screen_stack("lobby")[0]
        if why is not None:  # the lobby says why we are there, as for its own requests
            lobby.post_message(msg.Refused(*why))
        self.request(lobby, rq.List())

    def welcomed(self, server: str) -> None:
        """The connecting screen gives way to where the flow goes next; the tournament
        followed before a replay is followed again (its screen shows it, standings and all)."""
        if self.options.tournament is not None and self.core.tournament is None:
            self.request(self, rq.TournamentWatch(tournament=self.options.tournament))

    def covered(self, rounds: int) -> None:
        """Told by the chronicle with the next view, as a toast (`_news`)."""

    def shown(self, before: View | None, added: list[Line]) -> None:
        view = self.core.view
        self._news(before, view, added)
        self.view = view  # the screens follow it

    def chat_changed(self, line: sm.Chat | None) -> None:
        self.chat = self.core.chat

    def followed(self, news: str | None) -> None:
        self.tournament = self.core.tournament
        if self.tournament is not None:  # kept for the client's next run, as the password
            self.options = replace(self.options, tournament=self.tournament.id)
        if news is not None:
            self.notify(news, title="Tournament", markup=False)

    def left(self) -> None:
        """The lobby, where the flow goes next, shows it."""

    def closed(self, reason: str, last: View | None) -> None:
        if last is not None and last.phase not in ("lobby", "over"):
            # an end vote: where the game stood, for everyone, over the lobby
            self.push_screen(EndedScreen(self, last, reason))
        else:
            self.notify(reason, title="Table closed", markup=False)

    # -- the server's password ------------------------------------------------------------

    def ask_password(self, why: str) -> None:
        self.link_detail = why
        heading = f"The password of {self.options.url}"
        self.push_screen(PasswordScreen(heading, why), self._password_given)

    def _password_given(self, password: str | None) -> None:
        if password is None:  # back to the connecting screen, which offers it again (p)
            return
        # kept for the client's next run (after a replay): it is not asked again
        self.options = replace(self.options, server_password=password)
        self.link_detail = f"Trying the password{self.glyphs.ellipsis}"
        self.core.password_given(password)
        self.refresh_bindings()

    def action_password(self) -> None:
        """The connecting screen's key: ask for the server's password again."""
        if self.flow.wants_password and not isinstance(self.screen, PasswordScreen):
            self.ask_password(self.link_detail)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "password":
            return self.flow.wants_password
        return super().check_action(action, parameters)
