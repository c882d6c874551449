"""Fitting strings into terminal cells: names may hold wide characters (CJK, emoji), so
columns are measured in cells, never in len(); and lines into the rows of a panel."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text


def fit(text: str, width: int, ellipsis: str = "…", *, right: bool = False) -> str:
    """`text` cut (with an ellipsis) or padded to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        room = max(0, width - cell_len(ellipsis))
        text = set_cell_size(text, room).rstrip() + ellipsis
    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else set_cell_size(text + pad, width)


def wrap(text: str, width: int, lines: int, ellipsis: str = "…") -> list[str]:
    """`text` on `lines` rows of exactly `width` cells, broken between words where it can,
    the last row cut with an ellipsis when the rest does not fit; rows left over blank."""
    rows: list[str] = []
    rest = text.strip()
    while len(rows) < lines - 1 and cell_len(rest) > width:
        fits = _head(rest, width)
        space = rest.rfind(" ", 0, fits + 1)
        cut = space if space > 0 else max(1, fits)
        rows.append(rest[:cut])
        rest = rest[cut:].lstrip()
    rows += [rest] + [""] * (lines - len(rows) - 1)
    return [fit(row.rstrip(), width, ellipsis) for row in rows]


def _head(text: str, width: int) -> int:
    """How many characters of `text` fill at most `width` cells."""
    used = 0
    for i, char in enumerate(text):
        used += cell_len(char)
        if used > width:
            return i
    return len(text)


def fit_lines(
    lines: Sequence[str], width: int, rows: int, console: Console, extra: str = ""
) -> list[str]:
    """As many of `lines` as fit in `rows` rows of `width` cells once wrapped, in order,
    the last row saying how many more there are ("+2 more"), so nothing is dropped
    unsaid; `extra` (a line worth having but shown elsewhere too) only when all fit."""

    def height(shown: list[str]) -> int:
        return sum(len(Text(line).wrap(console, max(1, width))) for line in shown)

    if extra and height([*lines, extra]) <= rows:
        return [*lines, extra]
    for count in range(len(lines), -1, -1):
        more = len(lines) - count
        shown = [*lines[:count], *([f"+{more} more (l: the whole log)"] if more else [])]
        if height(shown) <= rows:
            return shown
    return [f"+{len(lines)} more"]
