"""The Textual app: owns the session (connection, seat, token, catalogue, latest view) and
switches between the connecting, lobby and table screens.

Everything the server sends arrives as a message from the network worker and is handled
here; screens and widgets only watch the app's reactive state (`view`, `tables`, `link`,
`chat_lines`) and call `request()`. The app never imports `server`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from contextlib import suppress
from pathlib import Path
from typing import Any, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive

from gother_tui import messages as msg
from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs, glyphs_for
from gother_tui.options import ClientOptions
from gother_tui.screens.connecting import ConnectingScreen
from gother_tui.screens.help import HelpScreen
from gother_tui.screens.lobby import LobbyScreen
from gother_tui.screens.table import TableScreen
from gother_tui.screens.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from gother_tui.seat_store import SeatStore
from gother_tui.theme import THEMES
from gother_tui.transport import (
    CLOSE_REPLACED,
    Transport,
    TransportError,
    TransportFactory,
    WebSocketTransport,
)
from protocol import PROTOCOL_VERSION

log = logging.getLogger("gother.client")

STYLES = Path(__file__).parent / "styles"
CHAT_KEPT = 200


class GotherApp(App[None]):
    TITLE = "Gother Than Thou"
    CSS_PATH: ClassVar = [STYLES / "app.tcss", STYLES / "lobby.tcss", STYLES / "table.tcss"]
    MODES: ClassVar = {
        "connecting": ConnectingScreen,
        "lobby": LobbyScreen,
        "table": TableScreen,
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1,question_mark", "help", "Help", key_display="?", id="app.help"),
        Binding("ctrl+q", "quit", "Quit", key_display="^q", id="app.quit"),
    ]
    ENABLE_COMMAND_PALETTE = False
    NOTIFICATION_TIMEOUT = 4  # toasts cover part of the table at 80x24: keep them brief

    # The session as screens see it. `view` is the latest `state.view`, the one truth.
    view: reactive[dict[str, Any] | None] = reactive(None, always_update=True)
    tables: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)
    link: reactive[str] = reactive("connecting")  # connecting | online | offline | closed
    link_detail: reactive[str] = reactive("")
    chat_lines: reactive[tuple[tuple[str, str], ...]] = reactive(tuple)
    lobby_error: reactive[str] = reactive("", always_update=True)  # shown by the lobby

    def __init__(
        self,
        options: ClientOptions,
        transport: TransportFactory = WebSocketTransport,
        seat_store: SeatStore | None = None,
    ) -> None:
        super().__init__()
        self.options = options
        self.glyphs: Glyphs = glyphs_for(options.ascii)
        self.catalogue = Catalogue()
        self.seat: int | None = None  # None: watching, or not at a table
        self.table_id: str | None = None
        self.last_reply_rid: int | None = None  # rid of the latest `state` answering a move
        self._transport_factory = transport
        self._store = seat_store or SeatStore()
        self._token: str | None = None  # secret: kept to resume, never shown
        self._seq = -1
        self._rids = itertools.count(1)
        self._pending: dict[int, dict[str, Any]] = {}  # rid -> the request, until answered
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None
        self._first_welcome = True
        self._tried_table = False
        self._resume_table: str | None = None  # the table of the token being resumed
        self._create_password: str | None = None

    # -- life cycle ----------------------------------------------------------------------

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.options.theme
        self.set_class(self.options.ascii, "-ascii")
        self.switch_mode("connecting")
        self.call_after_refresh(self._check_size)
        self.run_network()

    @work(exclusive=True, group="network")
    async def run_network(self) -> None:
        """Connect, pump frames into messages, and on a loss retry with backoff (0.5 s
        doubling to 5 s by default) until the app exits."""
        delay = self.options.first_retry
        while True:
            transport = self._transport_factory(self.options.url)
            try:
                await transport.connect()
            except TransportError as exc:
                reason = f"cannot reach {self.options.url}: {exc}"
            else:
                delay = self.options.first_retry
                await self._session(transport)
                if transport.close_code == CLOSE_REPLACED:
                    self.post_message(
                        msg.ConnectionLost("your seat was taken over from another terminal", None)
                    )
                    return
                reason = "connection lost"
                if transport.close_reason:
                    reason += f" ({transport.close_reason})"
            self.post_message(msg.ConnectionLost(reason, delay))
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.options.max_retry)

    async def _session(self, transport: Transport) -> None:
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        async def pump() -> None:
            while True:
                await transport.send(await outbox.get())

        self._outbox = outbox
        self.post_message(msg.Connected())
        writer = asyncio.create_task(pump())
        try:
            async for frame in transport.messages():
                self.post_message(msg.from_frame(frame))
                if writer.done():  # the send side broke: this connection is finished
                    break
        finally:
            self._outbox = None
            writer.cancel()
            with suppress(asyncio.CancelledError, TransportError):
                await writer
            with suppress(Exception):
                await transport.close()

    # -- requests -------------------------------------------------------------------------

    def request(self, t: str, **fields: Any) -> int | None:
        """Send a request with a fresh rid; None (and a notice) when not connected."""
        if self._outbox is None or self.link != "online":
            self.notify("Not connected to the server right now.", severity="warning")
            return None
        rid = next(self._rids)
        message = {"t": t, "rid": rid, **fields}
        self._pending[rid] = message
        self._outbox.put_nowait(message)
        log.debug("sent %s rid=%s", t, rid)
        return rid

    # -- the connection -------------------------------------------------------------------

    def on_connected(self, _: msg.Connected) -> None:
        self.link, self.link_detail = "online", ""
        self._pending.clear()  # replies to a lost connection's requests will never come
        hello: dict[str, Any] = {"v": PROTOCOL_VERSION, "name": self.options.name}
        if self.options.password:  # a server with a password asks for it here (and a
            hello["password"] = self.options.password  # server without one ignores it)
        self.request("hello", **hello)

    def on_connection_lost(self, event: msg.ConnectionLost) -> None:
        log.info("connection lost: %s", event.reason)
        self._pending.clear()
        if event.retry_in is None:
            self.link_detail, self.link = event.reason, "closed"  # detail first: link redraws
            self.notify(event.reason, title="Disconnected", severity="error", timeout=30)
            return
        self.link_detail = f"{event.reason}; retrying in {event.retry_in:g} s"
        self.link = "offline"

    def on_welcome(self, _: msg.Welcome) -> None:
        first, self._first_welcome = self._first_welcome, False
        if self._token is not None and self.table_id is not None:
            self._resume(self.table_id, self._token)
        elif self.table_id is not None:
            self.request("watch", table=self.table_id)  # a spectator comes back
        elif first:
            self._open_session()
        else:
            self.show_lobby()

    def _open_session(self) -> None:
        """The first welcome: resume a saved seat, go to the table asked for, or the lobby."""
        options = self.options
        if not options.watch:
            saved = self._store.find(options.url, options.table, options.name)
            if saved is not None:
                self._resume(*saved)
                return
        self._table_or_lobby()

    def _table_or_lobby(self) -> None:
        """Straight to --table the first time; the lobby otherwise."""
        options = self.options
        if options.table is not None and not self._tried_table:
            self._tried_table = True
            self.join_table(options.table, options.password, watch=options.watch)
        else:
            self.show_lobby()

    def _resume(self, table: str, token: str) -> None:
        self._resume_table = table
        self.request("resume", token=token)

    # -- screens -------------------------------------------------------------------------

    def show_lobby(self) -> None:
        self._switch("lobby")
        self.request("list")

    def _switch(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)
            self.call_after_refresh(self._check_size)

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size)  # self.size may not have caught up yet

    def _check_size(self, size: Size | None = None) -> None:
        width, height = size or self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        on_top = isinstance(self.screen, TooSmallScreen)
        if small and not on_top:
            self.push_screen(TooSmallScreen())
        elif not small and on_top:
            self.pop_screen()

    def get_key_display(self, binding: Binding) -> str:
        display = super().get_key_display(binding)
        if self.glyphs.ascii_only and not display.isascii():
            return "Enter" if "enter" in binding.key else binding.key
        return display

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen | TooSmallScreen):
            self.push_screen(HelpScreen())

    @property
    def table_screen(self) -> TableScreen | None:
        if "table" not in self._screen_stacks:  # never shown yet
            return None
        screen = self.get_screen_stack("table")[0]
        return screen if isinstance(screen, TableScreen) else None

    # -- what the server says -------------------------------------------------------------

    def on_table_list(self, event: msg.TableList) -> None:
        self.tables = event.tables

    def on_table_created(self, event: msg.TableCreated) -> None:
        self.join_table(event.table, self._create_password, watch=self.options.watch)
        self._create_password = None

    def on_seated(self, event: msg.Seated) -> None:
        self._pending.pop(event.rid or -1, None)
        self._enter_table(event.table, event.frame.get("cards", ()))
        self.seat, self._token = event.seat, event.token
        self._store.save(self.options.url, event.table, event.token, self.options.name)

    def on_watching(self, event: msg.Watching) -> None:
        self._pending.pop(event.rid or -1, None)
        self._enter_table(event.table, event.frame.get("cards", ()))
        self.seat = None

    def _enter_table(self, table: str, cards: Any) -> None:
        self.chat_lines = ()  # the server replays the table's recent chat after this reply
        if table != self.table_id:
            self.view = None
        self.table_id = table
        self.catalogue = Catalogue.from_wire(cards)
        self._seq = -1  # a new connection's snapshots are the truth, whatever their seq
        self._switch("table")

    def on_state_update(self, event: msg.StateUpdate) -> None:
        if event.seq <= self._seq:
            return  # stale: an older snapshot than the one shown
        self._seq = event.seq
        if event.rid is not None:
            self._pending.pop(event.rid, None)
            self.last_reply_rid = event.rid
        self.view = event.view

    def on_chat_line(self, event: msg.ChatLine) -> None:
        self.chat_lines = (*self.chat_lines, (event.sender, event.text))[-CHAT_KEPT:]

    def on_hint_reply(self, event: msg.HintReply) -> None:
        self._pending.pop(event.rid or -1, None)
        screen = self.table_screen
        if screen is not None:
            screen.post_message(msg.HintArrived(event.move))

    def on_left_table(self, event: msg.LeftTable) -> None:
        if self.table_id is not None:
            self._store.forget(self.options.url, self.table_id)
        self.seat = self.table_id = self._token = None
        self.view = None
        self.chat_lines = ()
        self.show_lobby()

    def on_server_error(self, event: msg.ServerError) -> None:
        request = self._pending.pop(event.rid, {}) if event.rid is not None else {}
        kind = request.get("t")
        log.info("server error %s for %s: %s", event.code, kind, event.message)
        if kind == "resume":
            self._resume_failed(event)
            return
        self.notify(event.message, title=_title(event.code), severity="error", markup=False)
        if kind == "hello":  # e.g. a server password or another protocol version
            self.link_detail = f"The server refused us: {event.message}"
        elif kind == "move" and (screen := self.table_screen) is not None:
            screen.post_message(msg.MoveRefused(event.code, event.message))
        elif kind in ("join", "watch", "create", "list"):
            self.lobby_error = f"{_title(event.code)}: {event.message}"
            if self.current_mode != "lobby":
                self.show_lobby()

    def _resume_failed(self, event: msg.ServerError) -> None:
        """A saved seat is no longer valid: forget it, then go where the user asked."""
        if event.code != "bad_token":
            self.notify(event.message, title=_title(event.code), severity="error", markup=False)
            return
        if self._resume_table is not None:
            self._store.forget(self.options.url, self._resume_table)
        self._token = self.seat = self.table_id = self._resume_table = None
        self.view = None
        self.notify("Your saved seat is no longer valid.", severity="warning")
        self._table_or_lobby()

    def on_unknown_frame(self, event: msg.UnknownFrame) -> None:
        log.info("ignoring a server message of type %r", event.frame.get("t"))

    # -- for screens ---------------------------------------------------------------------

    def create_table(self, request: dict[str, Any]) -> None:
        self._create_password = request.get("password")
        self.request("create", **request)

    def join_table(self, table: str, password: str | None = None, *, watch: bool = False) -> None:
        fields: dict[str, Any] = {"table": table}
        if password:
            fields["password"] = password
        self.request("watch" if watch else "join", **fields)


def _title(code: str) -> str:
    return code.replace("_", " ").capitalize()
