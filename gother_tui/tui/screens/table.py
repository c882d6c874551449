"""The table: every player's panel, the piles, the decision in front of you with its
preview, the log and the chat.

Keys compose a move in a Plan (which only offers what `view.legal` lists); Enter sends
it. The footer shows only the keys that mean something now (`check_action`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from gother_tui.core.history import GothHistory
from gother_tui.core.narrator import plural, summary
from gother_tui.core.notice import ASK_AGAIN, THINKING
from gother_tui.core.plans import Plan, keep_or_replace, plan_for
from gother_tui.tui import messages as msg
from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.story import StoryScreen
from gother_tui.tui.screens.viewer import TextViewer, discard_text, fates_text
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.action import ActionPanel
from gother_tui.tui.widgets.cells import fit_lines
from gother_tui.tui.widgets.footer import KeyBar
from gother_tui.tui.widgets.notice import TableNotice
from gother_tui.tui.widgets.players import PlayersPanel
from gother_tui.tui.widgets.quiet import display, show
from gother_tui.tui.widgets.status import PilesLine, StatusLine
from gother_tui.tui.widgets.talk import ChatLog, GameLog
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.constants import CHAT_MAX, MAX_SEATS, SEATS
from protocol.moves import Move
from protocol.view import View

MOVE_ACTIONS = {
    "cursor",
    "give",
    "take_back",
    "confirm",
    "draw_deck",
    "draw_all",
    "pick_discard",
    "hint",
}


CURSOR = "move the cursor over the cards listed on the left"
CARD_TABLE = (120, 36)  # the smallest terminal (columns, lines) for the card-table layout


def _give_bindings() -> list[Binding]:
    # One footer entry ("1-5 Give") stands for the seat keys; the sixth seat of the house
    # rule's tables has its key too (help lists it).
    return [
        Binding(
            str(n),
            f"give({n - 1})",
            "Give",
            key_display=f"1-{SEATS.stop - 1}",
            show=n == 1,
            id=f"give.{n}",
            tooltip="distribute: give the highlighted card to that seat (again: change your mind)",
        )
        for n in range(1, MAX_SEATS + 1)
    ]


class TableScreen(Screen[None]):
    AUTO_FOCUS = ""  # keys belong to the table until the player opens the chat line
    READ_ONLY = False  # a replay: shows views, asks the server nothing
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k,left", "cursor(-1)", "Card", show=False, id="cursor.up", tooltip=CURSOR),
        Binding("down,j,right", "cursor(1)", "Card", show=False, id="cursor.down", tooltip=CURSOR),
        *_give_bindings(),
        Binding(
            "0,backspace",
            "take_back",
            "Take back",
            show=False,
            id="take_back",
            tooltip="distribute: take the highlighted card back",
        ),
        Binding(
            "d",
            "draw_deck",
            "Draw",
            id="draw.deck",
            tooltip="draw: take the top card of the draw pile, at once",
        ),
        Binding(
            "D",
            "draw_all",
            "Draw all",
            show=False,
            id="draw.all",
            tooltip="draw: fill your hand from the draw pile, one card after another",
        ),
        Binding(
            "p",
            "pick_discard",
            "Take",
            id="draw.discard",
            tooltip="draw: open the discard pile to take a card from it (not when in debt)",
        ),
        Binding(
            "enter",
            "confirm",
            "Confirm",
            key_display="⏎",
            id="confirm",
            tooltip="send the move shown in the preview",
        ),
        Binding(
            "h",
            "hint",
            "Hint",
            id="hint",
            tooltip="hint: the server suggests a move; Enter plays it",
        ),
        Binding("s", "start", "Start", id="start", tooltip="start now with bots (before the deal)"),
        Binding(
            "r", "rematch", "Rematch", id="rematch", tooltip="after the game: ask for a rematch"
        ),
        Binding(
            "o",
            "results",
            "Results",
            id="results",
            tooltip="after the game: the results and Goth Points by round (Esc: the final table)",
        ),
        # priority (here and on Esc): the focus moves before the next key is routed, so "c"
        # then fast typing (or keys batched over SSH) all land in the chat line
        Binding(
            "c",
            "chat",
            "Chat",
            priority=True,
            id="chat",
            tooltip="chat (Enter sends, Esc returns to the table)",
        ),
        Binding("f", "fates", "Fates", id="view.fates", tooltip="every Fate pile"),
        Binding(
            "x",
            "discard_pile",
            "Discard",
            show=False,
            id="view.discard",
            tooltip="the whole discard pile",
        ),
        Binding(
            "l",
            "full_log",
            "Log",
            show=False,
            id="view.log",
            tooltip="the whole game's log, newest last (m: only the lines about you)",
        ),
        Binding("L", "leave", "Leave", show=False, id="leave", tooltip="leave the table"),
        Binding(
            "P",
            "vote_pause",
            "Pause",
            show=False,
            id="vote.pause",
            tooltip="vote to pause the game, and once paused to go on (again: take the vote "
            "back); each happens once every player votes for it",
        ),
        Binding(
            "E",
            "vote_end",
            "End game",
            show=False,
            id="vote.end",
            tooltip="vote to end this game unfinished; it ends once every player agrees",
        ),
        Binding(
            "escape",
            "clear",
            "Clear",
            show=False,
            priority=True,
            id="clear",
            tooltip="clear your choices / leave the chat line / close the discard pile list",
        ),
        Binding(
            "pagedown",
            "preview_page(1)",
            "More",
            show=False,
            id="preview.down",
            tooltip="the rest of the preview, when its title says there is more",
        ),
        Binding(
            "pageup",
            "preview_page(-1)",
            "Back",
            show=False,
            id="preview.up",
            tooltip="the preview back to its top",
        ),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.plan: Plan | None = None
        self.awaiting: int | None = None  # rid of the move sent, until the server answers
        self.last_hint: Move | None = None  # the latest suggestion filled in
        self.hint_reason = ""  # why, in one line, from the server
        self.thinking: Plan | None = None  # the decision whose hint the server thinks about
        self._footer_keys: tuple[object, ...] = ()
        self.history = GothHistory()  # Goth per round, from the views this client saw
        self._shown_over = False  # the game-over panel opened once for this game
        self.drawing_all = False  # D: drawing from the draw pile until the hand is full

    def compose(self) -> ComposeResult:
        session = self.session
        yield StatusLine(session, id="status")
        yield TableNotice(session, id="notice")
        with Vertical(id="body"):
            yield PlayersPanel(session, id="players")
            yield PilesLine(session, id="piles")
            with Horizontal(id="middle"):
                yield ActionPanel(session, id="action")
                with Vertical(id="side"):
                    yield Static(id="since")
                    yield Static(Text("Log (l: all)"), classes="section")
                    yield GameLog(session, id="log")
                    yield Static(Text("Chat (c: talk, Esc: back)"), classes="section")
                    yield ChatLog(session, id="chat")
                    yield Input(
                        placeholder="c to chat",
                        id="chat-input",
                        max_length=CHAT_MAX,
                        select_on_focus=False,  # coming back keeps the draft, typing adds
                    )
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.watch(self.app, "view", self._on_view)
        self.watch(self.app, "link", self._on_link)

    def on_resize(self, event: events.Resize) -> None:
        """The card-table layout from CARD_TABLE up; the compact one below it."""
        width, height = event.size
        cards = width >= CARD_TABLE[0] and height >= CARD_TABLE[1]
        if cards != self.has_class("-cards"):
            self.set_class(cards, "-cards")
            self._redraw()
        self.call_after_refresh(self._show_since, self.session.view)  # fitted to its room

    # -- following the app's state ---------------------------------------------------------

    def _on_view(self, view: View | None) -> None:
        self._follow_game(view)
        old = self.plan
        self.plan = keep_or_replace(old, view)
        if self.plan is not old:
            self.awaiting = None  # another decision: whatever was in flight is settled
        self.set_class(view is not None and view.you is None, "-spectator")
        self._show_since(view)
        self._redraw()
        self._keep_drawing()

    def _show_since(self, view: View | None) -> None:
        """On your turn: what the others did to you since your previous one."""
        since = self.query_one("#since", Static)
        told = []
        if view is not None and view.seat is not None and view.turn == view.seat and not view.over:
            session = self.session
            told = summary(session.chronicle.lines, view, session.catalogue, session.glyphs)
        display(since, bool(told))
        if told:
            # at 80x24 the side column is ~28 cells: every player's line, or "+N more"
            side = self.query_one("#side").content_size
            most = since.styles.max_height  # in lines, or a share of the side column
            gutter = since.styles.gutter.height + 1  # the border, and the title's row
            rows = len(told) if most is None else int(most.resolve(side, self.app.size)) - gutter
            *done, standings = told
            lines = fit_lines(done, side.width, rows, self.app.console, extra=standings)
            text = Text("Since your last turn\n", style="bold")
            text.append("\n".join(lines))
            show(since, text)

    def _follow_game(self, view: View | None) -> None:
        """Keep the Goth history; open the game-over panel once when a game ends."""
        self.history.record(view)
        over = view is not None and view.over
        if over and not self._shown_over:
            self._shown_over = True
            self.call_after_refresh(self.action_results)
        elif not over:
            self._shown_over = False

    def _on_link(self, link: str) -> None:
        self.set_class(link != "online", "-offline")
        if link != "online":
            self.awaiting = None  # a move in flight when the line broke: the resync decides
        self._redraw()

    def _redraw(self) -> None:
        plan = self.plan
        hinted = plan is not None and self.last_hint is not None and plan.move() == self.last_hint
        view = self.session.view
        thinking = plan is not None and self.thinking is plan
        self.query_one(ActionPanel).show(view, plan, self.hint_reason if hinted else None, thinking)
        # The footer is rebuilt whole on refresh_bindings (slow): only when its keys change.
        keys = (
            self.plan.kind if self.plan else None,
            self.awaiting is None,
            self.session.link,
            view and view.phase,
            view is None or view.you is None,
        )
        if keys != self._footer_keys:
            self._footer_keys = keys
            self.refresh_bindings()

    # -- which keys mean something now -----------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.session.view
        seated = view is not None and view.you is not None
        phase = view and view.phase
        if action in MOVE_ACTIONS:
            plan = self.plan
            if not seated or phase in ("lobby", "over"):
                return False  # not a player in a game: the keys are not offered at all
            if plan is None or self.session.link != "online":
                return None  # one set of keys for the whole game: greyed out, not hidden
            if action in ("give", "take_back"):
                return True if plan.kind == "distribute" else None
            if action in ("draw_deck", "draw_all"):
                return True if plan.kind == "draw" else None
            if action == "pick_discard":  # in debt, or an empty pile, greys it out too
                return True if plan.kind == "draw" and plan.choices else None
            if action == "confirm":  # enabled even when incomplete: Enter then says what's missing
                return None if self.awaiting is not None else True
            return True
        if action == "start":
            return seated and phase == "lobby"
        if action == "rematch":
            return seated and phase == "over"
        if action in ("vote_pause", "vote_end"):  # votes are about a game being played
            return seated and phase not in ("lobby", "over")
        if action == "results":
            return phase == "over"
        if action == "chat":  # typing a "c" into the chat line is just a "c"
            return not self.query_one("#chat-input", Input).has_focus
        return True

    # -- composing a move ------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        if self.plan is not None:
            self.plan.move_cursor(delta)
            self._redraw()

    def action_give(self, seat: int) -> None:
        if self.plan is None:
            return
        problem = self.plan.assign(seat)
        if problem:
            self.notify(problem, severity="warning")
        self._redraw()

    def action_take_back(self) -> None:
        if self.plan is not None:
            self.plan.unassign()
            self._redraw()

    def action_draw_deck(self) -> None:
        """One key, one card: the top of the draw pile is taken at once."""
        if self.plan is None or self.awaiting is not None:
            return
        problem = self.plan.choose_deck()
        if problem:
            self.notify(problem, severity="warning")
            self._redraw()
            return
        self.action_confirm()

    def action_draw_all(self) -> None:
        """Fill the hand from the draw pile: a draw now, and one after each state that
        still asks this player to draw (see _keep_drawing)."""
        self.drawing_all = True
        self.action_draw_deck()

    def _keep_drawing(self) -> None:
        plan = self.plan
        if not self.drawing_all or plan is None or plan.kind != "draw":
            self.drawing_all = False
        elif self.awaiting is None and self.session.link == "online":
            self.action_draw_deck()

    def action_pick_discard(self) -> None:
        if self.plan is None:
            return
        problem = self.plan.open_discard()
        if problem:
            self.notify(f"You cannot take from the discard pile: {problem}.", severity="warning")
        self._redraw()

    def action_confirm(self) -> None:
        plan = self.plan
        if plan is None or self.awaiting is not None:
            return
        move = plan.move()
        if move is None:
            self.notify(_missing(plan), severity="warning")
            return
        self.awaiting = self.session.request(self, rq.Play(move=move))
        self._redraw()

    def action_hint(self) -> None:
        if self.plan is None or self.thinking is not self.plan:  # else asked again by itself
            self.session.request(self, rq.Hint())

    def on_answered(self, event: msg.Answered) -> None:
        reply = event.reply
        changed = False
        if isinstance(reply, sm.Hint):
            changed = self.thinking is not None
            self.thinking = None
            if self.plan is not None:
                self._offer_hint(self.plan, reply)
        if event.asked.rid == self.awaiting:
            self.awaiting = None  # the move's own state has come
            changed = True
        if changed:
            self._redraw()

    def _offer_hint(self, plan: Plan, hint: sm.Hint) -> None:
        """Fill the hint in; if the player had chosen something already, ask first."""
        if not plan.touched:
            self._take_hint(plan, hint)
            return
        question = "Replace your choices with the hint?"
        if hint.reason:
            question += f"\nIt says: {hint.reason}"

        def answered(yes: bool | None) -> None:
            if yes and self.plan is plan:  # the same decision still: else the hint is stale
                self._take_hint(plan, hint)

        self.app.push_screen(ConfirmScreen(question), answered)

    def _take_hint(self, plan: Plan, hint: sm.Hint) -> None:
        if not plan.prefill(hint.move):
            return
        # as the plan builds it (gives sorted by seat), so "is this still the hint?" is a
        # plain comparison whatever order the server listed the gives in
        self.last_hint = plan.move()
        self.hint_reason = hint.reason or ""
        self._redraw()

    def on_refused(self, event: msg.Refused) -> None:
        changed = False
        if isinstance(event.asked, rq.Hint):
            # `thinking` is said where the hint will appear (the app shows no toast for it)
            thinking = self.plan if event.error.code == THINKING else None
            changed, self.thinking = thinking is not self.thinking, thinking
            if thinking is not None:
                self.set_timer(ASK_AGAIN, lambda: self._hint_again(thinking))
        if event.asked.rid == self.awaiting:
            self.awaiting = None  # the state is unchanged: keep the choices, let them fix it
            self.drawing_all = False
            changed = True
        if changed:
            self._redraw()

    def _hint_again(self, plan: Plan) -> None:
        """Ask again for a hint the server was still thinking about, if the decision it was
        for is still the one in front of us."""
        if self.plan is plan:
            self.session.request(self, rq.Hint())

    def action_clear(self) -> None:
        chat = self.query_one("#chat-input", Input)
        if chat.has_focus:
            self.set_focus(None)
        elif self.plan is not None:
            self.plan = plan_for(self.session.view)
            self._redraw()

    # -- the rest ---------------------------------------------------------------------------

    def action_start(self) -> None:
        self.session.request(self, rq.Start())

    def action_rematch(self) -> None:
        self.session.request(self, rq.Rematch())  # the prompt and the panel say who is waited for

    def action_vote_pause(self) -> None:
        view = self.session.view
        if view is not None and view.seat is not None:
            # a second press takes the vote back; while paused, it votes to go on
            self.session.request(self, rq.Pause(on=view.seat not in view.table.pause_votes))

    def action_vote_end(self) -> None:
        question = "Vote to end this game unfinished? It ends once every player here agrees."

        def answered(yes: bool | None) -> None:
            if yes:
                self.session.request(self, rq.End())

        self.app.push_screen(ConfirmScreen(question), answered)

    def action_results(self) -> None:
        view = self.session.view
        if view is not None and view.over and self.is_current:
            screen = GameOverScreen(self.session, self.history, read_only=self.READ_ONLY)
            self.app.push_screen(screen)

    def action_chat(self) -> None:
        # set_focus, not Input.focus() (which waits a turn): the next key must find it
        self.set_focus(self.query_one("#chat-input", Input))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter sends the line and gives the keys back to the table: the next 1, 2 or f
        is a move again, not more chat."""
        text = event.value.strip()
        if text and self.session.request(self, rq.Chat(text=text)) is not None:
            event.input.value = ""
        self.set_focus(None)

    def action_preview_page(self, pages: int) -> None:
        self.query_one(ActionPanel).page_preview(pages)

    def action_fates(self) -> None:
        session = self.session
        if session.view is not None:
            text = fates_text(session.view, session.catalogue, session.glyphs)
            self.app.push_screen(TextViewer("Every Fate pile (Esc closes)", text))

    def action_discard_pile(self) -> None:
        session = self.session
        if session.view is not None:
            text = discard_text(session.view, session.catalogue, session.glyphs)
            self.app.push_screen(TextViewer("The discard pile (Esc closes)", text))

    def action_full_log(self) -> None:
        self.app.push_screen(StoryScreen(self.session))

    def action_leave(self) -> None:
        view = self.session.view
        if view is None or view.you is None:
            question = "Stop watching this table?"
        elif view.phase in ("lobby", "over"):
            question = "Leave this table?"
        else:
            question = "Leave the game? A bot takes your seat for good."

        def answered(yes: bool | None) -> None:
            if yes:
                self.session.request(self, rq.Leave())

        self.app.push_screen(ConfirmScreen(question), answered)


def _missing(plan: Plan) -> str:
    if plan.kind == "distribute":
        missing = plan.count - len(plan.assigned)
        keys = f"1-{len(plan.recipients)}"
        return f"Give {plural(missing, 'more card')} first: {keys} gives the highlighted card."
    if plan.kind == "draw":
        return "Choose where to draw from: d the draw pile, p the discard pile."
    return "Choose a card first."
