"""The table's state beside the game, one line under the status line: the server cannot
save and takes no moves, the game is paused, players vote to pause or to end it, a bot is
about to play a present player's turn. Hidden when there is nothing to say.

The cover warning's seconds are counted down here from when the view arrived (the server
sends it once, not every second)."""

from __future__ import annotations

import time

from rich.style import Style
from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import names_of
from gother_tui.tui.palette import LOUD, NO_COLOUR, Palette
from gother_tui.tui.session import Session
from gother_tui.tui.widgets.following import Following
from protocol.view import View


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _voters(view: View, seats: tuple[int, ...]) -> tuple[str, bool]:
    """("Raven and you", whether one voter is you)."""
    names = names_of(view.players)
    listed = [names.get(s, f"Seat {s + 1}") for s in seats if s != view.seat]
    mine = view.seat in seats
    who = _listed([*listed, "you"] if mine else listed)
    return who[0].upper() + who[1:], len(seats) == 1 and not mine


def notice_text(
    view: View | None, glyphs: Glyphs, elapsed: float = 0.0, palette: Palette = NO_COLOUR
) -> Text | None:
    """The sentences for the table's state, `elapsed` seconds after `view` arrived; None
    when all is well."""
    if view is None:
        return None
    table = view.table
    parts: list[tuple[str, Style | str]] = []
    if table.stopped is not None:
        parts.append(
            (
                f"{glyphs.warning} The server cannot save this table ({table.stopped}): it "
                "takes no moves until it can, and tries again by itself.",
                LOUD + palette.error,
            )
        )
    if table.paused:
        # going on is a vote of every player, like pausing: one player's wish is not enough
        paused = (
            f"{glyphs.warning} Paused: clocks and bots wait. Going on needs every player's vote."
        )
        parts.append((paused, LOUD + palette.warning))
    elif table.pause_votes:
        who, one = _voters(view, table.pause_votes)
        parts.append((f"{who} {'asks' if one else 'ask'} to pause.", ""))
    if table.end_votes:
        who, one = _voters(view, table.end_votes)
        parts.append((f"{who} {'asks' if one else 'ask'} to end the game unfinished.", ""))
    warning = table.warning
    if warning is not None:
        left = max(0, round(warning.seconds - elapsed))
        if warning.seat == view.seat:
            text = f"{glyphs.warning} A bot plays your turn in {left} s unless you move."
        else:
            name = names_of(view.players).get(warning.seat, f"Seat {warning.seat + 1}")
            text = f"{name} is away {glyphs.dash} a bot plays for them in {left} s."
        parts.append((text, LOUD + palette.warning if warning.seat == view.seat else ""))
    if not parts:
        return None
    return Text("  ").join(Text(words, style) for words, style in parts)


class TableNotice(Following, Widget):
    DEFAULT_CSS = "TableNotice { height: 1; display: none; }"

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(session, id=id)
        self._since = time.monotonic()
        self._ticking: Timer | None = None

    def follow(self) -> None:
        """Hidden or not: a new view may bring something to say, or end it."""
        self._since = time.monotonic()
        view = self.session.view
        counting = view is not None and view.table.warning is not None
        if counting and self._ticking is None:
            self._ticking = self.set_interval(1.0, self.refresh)
        elif not counting and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None
        shown = self._text() is not None
        if self.display != shown:
            self.display = shown  # lays the screen out again, only then
        elif shown:
            self.refresh()  # hidden, it has nothing to draw

    def _text(self) -> Text | None:
        session = self.session
        elapsed = time.monotonic() - self._since
        return notice_text(session.view, session.glyphs, elapsed, session.palette)

    def render(self) -> Text:
        text = self._text()
        if text is None:
            return Text("")
        width, ellipsis = self.size.width, self.session.glyphs.ellipsis
        if text.cell_len > width:  # cut, keeping the styles
            text.truncate(max(0, width - len(ellipsis)))
            text.append(ellipsis)
        return text
