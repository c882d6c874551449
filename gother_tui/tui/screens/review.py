"""A seat's review of a finished game, from the game-over panel (v): a summary, the moments
told (at most three) in a sentence each, then every decision against the search's. The
server thinks it (some seconds, once: it keeps it); [ and ] review another seat."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gother_tui.core import review_words
from gother_tui.core.narrator import names_of
from gother_tui.tui import messages as msg
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.footer import KeyBar
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import View


class ReviewScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "left_square_bracket", "seat(-1)", "Seat before", key_display="[", id="review.before"
        ),
        Binding(
            "right_square_bracket", "seat(1)", "Seat after", key_display="]", id="review.after"
        ),
        Binding("escape,q,v", "close", "Close", key_display="Esc", id="review.close"),
    ]

    def __init__(self, session: Session, view: View) -> None:
        super().__init__()
        self.session = session
        self.game = view  # the finished game's last view: it names the table and the seats
        self.seat = view.seat if view.seat is not None else 0
        self.asked: int | None = None  # the rid of the review being waited for

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(id="review-title", classes="section")
            with VerticalScroll(id="viewer-body"):
                yield Static(id="review")
        yield KeyBar()

    def on_mount(self) -> None:
        self._ask()

    def _whose(self) -> str:
        return names_of(self.game.players).get(self.seat, f"Seat {self.seat + 1}")

    def _ask(self) -> None:
        self.query_one("#review-title", Static).update(
            Text(f"Review of {self._whose()}, game {self.game.table.game}", style="bold")
        )
        self._say(Text("The search is going over every decision: some seconds."))
        table = self.game.table
        asked = rq.Review(table=table.id, game=table.game, seat=self.seat)
        self.asked = self.session.request(self, asked)

    def _say(self, text: Text) -> None:
        self.query_one("#review", Static).update(text)

    def on_answered(self, event: msg.Answered) -> None:
        review = event.reply
        if event.asked.rid != self.asked or not isinstance(review, sm.Review):
            return  # an answer for a seat reviewed before
        names = list(names_of(self.game.players).values())  # by seat, as the view lists them
        text = Text()
        for line in review_words.lines(review, self._whose()):
            text.append(line + "\n")
        text.append("\nEvery decision (the chance to win it gave up):\n", "bold")
        catalogue = self.session.catalogue
        for moment in review.moments:
            line = review_words.moment_line(moment, self.seat, catalogue, names)
            text.append(line + "\n", "" if moment.played == moment.advised else "bold")
        text.rstrip()
        self._say(text)

    def on_refused(self, event: msg.Refused) -> None:
        if event.asked.rid == self.asked:
            self._say(Text(f"No review: {event.error.message}"))

    def action_seat(self, step: int) -> None:
        self.seat = (self.seat + step) % len(self.game.players)
        self._ask()

    def action_close(self) -> None:
        self.dismiss(None)
