"""Every player's panel, one line each: turn mark, seat number (the key that gives them a
card), name with bot/away marks, hand, the three scores with debt and near-swoon warnings,
and the Fate pile's top card. Names are untrusted: they only ever enter a Text as plain
strings, never as markup."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from gother_tui.core.catalogue import Catalogue, values
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.preview import NEAR_SWOON, fate_sums
from gother_tui.tui.palette import BOLD, NO_COLOUR, Palette
from gother_tui.tui.widgets.cells import fit
from gother_tui.tui.widgets.following import Following
from gother_tui.tui.widgets.quiet import show
from protocol.view import Player, View

NAME_W, HAND_W, GOTH_W, SICK_W, MONEY_W = 20, 5, 6, 7, 10
BANKED_SICK_W = SICK_W + 13  # "☠ 0 ⚠ (-12 banked)"


def header(glyphs: Glyphs, sick_w: int = SICK_W, width: int = 80) -> Text:
    """One line: the last column's title cut to the room left (a wider Sick column for
    banked cures must not push it onto a line of its own)."""
    used = 2 + 2 + NAME_W + HAND_W + GOTH_W + sick_w + MONEY_W
    fate = "Fate pile: cards, top" if width - used >= 21 else "Fate pile"
    parts = [
        fit("", 2),
        fit("#", 2),
        fit("Player", NAME_W),
        fit("Hand", HAND_W),
        fit("Goth", GOTH_W),
        fit("Sick", sick_w),
        fit("Money", MONEY_W),
        fit(fate, max(0, width - used), glyphs.ellipsis).rstrip(),
    ]
    return Text("".join(parts), style="bold", no_wrap=True, overflow="ellipsis")


def name_with_marks(p: Player, you: int | None, glyphs: Glyphs, width: int) -> str:
    """The name cut to fit, never the marks: "(you)", bot (and its trait) and away must
    stay visible."""
    if not p.name:
        return fit("(free seat)", width)
    marks = []
    if p.seat == you:
        marks.append(glyphs.you)
    if p.bot:
        marks.append(glyphs.bot)
        if p.trait:  # whom it hurts: vengeful or steady
            marks.append(p.trait)
    elif p.covered:
        marks.append(glyphs.covered)
    elif not p.connected:
        marks.append(glyphs.away)
    if p.rematch:
        marks.append(glyphs.rematch)
    if p.clock is not None:  # seconds left, on tables with a clock
        seconds = int(p.clock)
        marks.append(f"{seconds // 60}:{seconds % 60:02d}")
    tail = " ".join(marks)
    room = width - cell_len(tail) - (1 if tail else 0)
    return fit(f"{fit(p.name, room, glyphs.ellipsis).rstrip()} {tail}".rstrip(), width)


def player_line(
    p: Player,
    view: View,
    catalogue: Catalogue,
    glyphs: Glyphs,
    width: int,
    palette: Palette = NO_COLOUR,
    sick_w: int = SICK_W,
) -> Text:
    acting = None if view.over else view.to_act if view.to_act is not None else view.turn
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(fit(glyphs.turn if p.seat == acting else "", 2), style="bold")
    line.append(fit(str(p.seat + 1), 2), style="bold")
    name_style = "bold" if p.seat == acting else ("dim" if not p.connected else "")
    line.append(name_with_marks(p, view.seat, glyphs, NAME_W - 1) + " ", name_style)
    line.append(fit(f"{p.hand_count}/{p.hand_limit}", HAND_W))
    line.append(fit(f"{glyphs.goth}{p.goth:>3}", GOTH_W), "bold")
    warn = p.sickness >= NEAR_SWOON
    banked = fate_sums(p.fate, catalogue).banked  # R6: a cure kept against later Sickness
    sick_text = f"{glyphs.sickness}{p.sickness:>2}" + (f" {glyphs.warning}" if warn else "")
    if banked:
        sick_text += f" (-{banked} banked)"
    line.append(fit(sick_text, sick_w), BOLD + palette.warning if warn else "")
    money_text = f"{glyphs.money}{p.money:>3}" + (f" {glyphs.debt}" if p.in_debt else "")
    line.append(fit(money_text, MONEY_W), BOLD + palette.error if p.in_debt else "")
    used = 2 + 2 + NAME_W + HAND_W + GOTH_W + sick_w + MONEY_W
    if p.fate:
        top = catalogue[p.fate[-1]]
        fate_text = f"{len(p.fate)}: {top.name} {values(top, glyphs, all_three=False)}"
    else:
        fate_text = "0: empty"
    line.append(
        fit(fate_text, max(0, width - used), glyphs.ellipsis), "italic" if p.fate else "dim"
    )
    return line


class PlayersPanel(Following, Static):
    """Re-rendered whole on every state (a few lines); hidden in the card-table layout."""

    DEFAULT_CSS = "PlayersPanel { height: auto; }"

    def follow(self) -> None:
        if self.display:
            show(self, self.render_view(self.session.view))

    def on_resize(self) -> None:
        self.follow()

    def render_view(self, view: View | None) -> Text:
        if view is None:
            return Text("")
        session = self.session
        width, palette = self.size.width or 80, session.palette
        catalogue = session.catalogue
        banking = any(fate_sums(p.fate, catalogue).banked for p in view.players)
        sick_w = BANKED_SICK_W if banking else SICK_W  # room for "(-3 banked)" when needed
        lines = [header(session.glyphs, sick_w, width)]
        lines += [
            player_line(p, view, catalogue, session.glyphs, width, palette, sick_w)
            for p in view.players
        ]
        return Text("\n").join(lines)
