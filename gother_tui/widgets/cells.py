"""Fitting strings into terminal cells: names may hold wide characters (CJK, emoji), so
columns are measured in cells, never in len()."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit(text: str, width: int, ellipsis: str = "…", *, right: bool = False) -> str:
    """`text` cut (with an ellipsis) or padded to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        room = max(0, width - cell_len(ellipsis))
        text = set_cell_size(text, room).rstrip() + ellipsis
    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else set_cell_size(text + pad, width)
