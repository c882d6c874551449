"""The end of a game: who won, the final scores, and each player's Goth Points over the
rounds this client saw. r asks for a rematch, L leaves the table, v opens the review of
your decisions (screens/review.py), Esc goes back to the final table (o on the table opens
this again). It closes by itself when a rematch deals. A player the SSH door knows by a new
token reads it here again, with how to come back for the rematch.
A game the players ended by vote has no end of its own: `EndedScreen` shows where it
stood, over the lobby."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.comeback import how_to_come_back
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.history import GothHistory, levels
from gother_tui.core.narrator import Narrator, names_of
from gother_tui.core.prompts import rematch_line, standings
from gother_tui.core.record import Reference
from gother_tui.tui import messages as msg
from gother_tui.tui.screens.review import ReviewScreen
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.cells import fit
from gother_tui.tui.widgets.footer import KeyBar
from protocol import requests as rq
from protocol.view import GameOver, View

NAME_W = 22


def headline(view: View, catalogue: Catalogue, glyphs: Glyphs) -> str:
    """The narrator's "Game over: …" sentence, from the view's own end."""
    narrator = Narrator(catalogue, glyphs, names_of(view.players), view.seat)
    over = next((e for e in reversed(view.log) if isinstance(e, GameOver)), None)
    if over is not None:
        return narrator.tell(over).text
    winners = [narrator.who(s) for s in view.winner or ()]  # the end is out of the log
    return f"Game over: {' and '.join(winners) or 'nobody'} won."


def _name(view: View, seat: int, names: Mapping[int, str]) -> str:
    return names.get(seat, "?") + (" (you)" if seat == view.seat else "")


def scores_text(view: View, glyphs: Glyphs) -> Text:
    names = names_of(view.players)
    winners = set(view.winner or ())
    text = Text(no_wrap=True)
    wins = view.table.wins  # the series at this table, once a game has been won
    head = fit("", 7) + fit("Player", NAME_W) + "  Goth  Sick  Money  Fate"
    text.append(head + ("  Games won" if wins else ""), "bold")
    for p in view.players:
        mark = "WINNER" if p.seat in winners else ""
        row = (
            fit(mark, 7)
            + fit(f"{p.seat + 1} {_name(view, p.seat, names)}", NAME_W, glyphs.ellipsis)
            + f"{p.goth:>6}{p.sickness:>6}{p.money:>7}{len(p.fate):>6}"
            + (f"{wins[p.seat]:>11}" if p.seat < len(wins) else "")
        )
        text.append("\n" + row, "bold" if p.seat in winners else "")
    return text


def chart_text(view: View, history: GothHistory, glyphs: Glyphs, width: int) -> Text:
    """One row per player: a level per round seen (all rows on one scale), then the final
    Goth. With few rounds each round is drawn a few cells wide."""
    names = names_of(view.players)
    seats = [p.seat for p in view.players]
    rounds = history.rounds
    if not rounds:
        return Text("No rounds seen.", style="dim")
    first, last = rounds[0], rounds[-1]
    if first == last > 1:  # came back at the end: one bar would say nothing of the game
        return _finals(view, names, glyphs, f"only round {last} was seen here (y: the replay)")
    span = f"round {first}" if first == last else f"rounds {first}-{last}"
    gaps = ", some not seen" if len(rounds) != last - first + 1 else ""
    everything = [v for s in seats for v in history.series(s)]
    low, high = min(everything, default=0), max(everything, default=0)
    scale = f"  (lowest {glyphs.goth}{low}, highest {glyphs.goth}{high})"
    text = Text(no_wrap=True)
    text.append(f"Goth Points by round, {span}{gaps}", "bold")
    text.append(scale + "\n", "dim")
    room = max(1, width - NAME_W - 12)
    cell = max(1, min(4, room // len(rounds)))
    shown = min(len(rounds), room // cell)
    for seat in seats:
        series = history.series(seat)
        label = fit(f"{seat + 1} {_name(view, seat, names)}", NAME_W, glyphs.ellipsis)
        bars = "".join(ch * cell for ch in levels(series, low, high, glyphs, shown))
        final = f"{glyphs.goth}{series[-1]}" if series else "-"
        text.append(f"       {label}{fit(bars, shown * cell)}  {final}\n")
    text.rstrip()
    return text


def _finals(view: View, names: Mapping[int, str], glyphs: Glyphs, why: str) -> Text:
    """Each player's final Goth, under a heading that says why there is no chart."""
    text = Text(no_wrap=True)
    text.append("Goth Points by round: ", "bold")
    text.append(why + "\n", "dim")
    for p in view.players:
        label = fit(f"{p.seat + 1} {_name(view, p.seat, names)}", NAME_W, glyphs.ellipsis)
        text.append(f"       {label}{glyphs.goth}{p.goth}\n")
    text.rstrip()
    return text


class GameOverScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "Rematch", id="over.rematch"),
        Binding("L", "leave", "Leave", id="over.leave"),
        Binding("v", "review", "Review", id="over.review"),
        Binding(
            "y",
            "replay",
            "Replay",
            id="over.replay",
            tooltip="step through this game as your seat saw it (then back to the table)",
        ),
        Binding("escape,o", "close", "Table", key_display="Esc", id="over.close"),
    ]

    def __init__(self, session: Session, history: GothHistory, *, read_only: bool = False) -> None:
        super().__init__()
        self.session = session
        self.history = history
        self.read_only = read_only  # a replay: nothing to ask the server

    def compose(self) -> ComposeResult:
        with Vertical(id="game-over"):
            yield Static(id="over-title", classes="section")
            yield Static(id="over-rematch")
            token = self.session.options.door_token
            if token is not None and not self.read_only:
                yield Static(Text(how_to_come_back(token)), id="over-door")
            yield Static(id="over-scores")
            yield Static(id="over-chart")
        yield KeyBar()

    def on_mount(self) -> None:
        self.watch(self.app, "view", self._on_view)

    def _on_view(self, view: View | None) -> None:
        if view is None or not view.over:
            if self.is_attached and self.app.screen is self:
                self.dismiss(None)  # a rematch dealt, or we left the table
            return
        glyphs = self.session.glyphs
        self.query_one("#over-title", Static).update(
            Text(headline(view, self.session.catalogue, glyphs))
        )
        self.query_one("#over-scores", Static).update(scores_text(view, glyphs))
        self.query_one("#over-rematch", Static).update(Text(rematch_line(view)))
        width = self.query_one("#game-over").content_region.width or 76
        self.query_one("#over-chart", Static).update(chart_text(view, self.history, glyphs, width))

    def on_resize(self) -> None:
        self._on_view(self.session.view)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay":
            return not self.read_only and self.session.options.url.startswith(("ws:", "wss:"))
        if action in ("rematch", "leave", "review"):
            if self.read_only:
                return False
            view = self.session.view
            seated = view is not None and view.you is not None
            return seated or action in ("leave", "review")
        return True

    def action_rematch(self) -> None:
        self.session.request(self, rq.Rematch())  # the panel's rematch line follows the view

    def action_leave(self) -> None:
        self.session.request(self, rq.Leave())

    def action_review(self) -> None:
        view = self.session.view
        if view is not None and view.over:
            self.app.push_screen(ReviewScreen(self.session, view))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_replay(self) -> None:
        """The game as your seat saw it: the app fetches it over its connection and ends
        with it; the command line runs the replay, then starts the client again, which
        resumes the seat (gother_tui/cli/client.py)."""
        view = self.session.view
        if view is not None and view.over:
            table = view.table
            place = Reference(self.session.options.url, table.id, table.game, view.seat)
            self.post_message(msg.ReplayAsked(place))


class EndedScreen(ModalScreen[None]):
    """A game ended unfinished (the players' `end` vote closed the table): the standings
    it ended at, for players and spectators alike, before the lobby beneath."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,enter",
            "close",
            "Lobby",
            key_display="Esc",
            id="ended.close",
            tooltip="the lobby (the table is closed)",
        ),
    ]

    def __init__(self, session: Session, view: View, reason: str) -> None:
        super().__init__()
        self.session, self.view, self.reason = session, view, reason

    def compose(self) -> ComposeResult:
        glyphs = self.session.glyphs
        with Vertical(id="game-over"):
            title = f"Round {self.view.round}, unfinished: {self.reason}."
            yield Static(Text(title), id="over-title", classes="section")
            ranked = Text(f"Final standings: {standings(self.view, glyphs)}")
            yield Static(ranked, id="ended-standings")
            yield Static(scores_text(self.view, glyphs), id="over-scores")
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
