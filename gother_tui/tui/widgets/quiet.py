"""Updating a Static without redoing the screen's layout when nothing moved.

A `Static.update` lays the whole screen out again by default, and after a `state` most
widgets get the same text, or text of the same height: a layout pass over every widget
was most of a redraw. `show` skips an unchanged text and asks for layout only when the
text's height (wrapped to the widget's width) changes.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

_HEIGHTS: WeakKeyDictionary[Static, tuple[int, int]] = WeakKeyDictionary()  # (width, lines)


def show(static: Static, text: Text) -> None:
    old = static.content
    if isinstance(old, Text) and old == text and static in _HEIGHTS:
        return
    height = static.styles.height
    if height is not None and not height.is_auto:  # its height is the stylesheet's, not ours
        _HEIGHTS[static] = (0, 0)
        static.update(text, layout=False)
        return
    width = static.content_region.width or static.size.width
    lines = len(text.wrap(static.app.console, width)) if width > 0 else -1
    layout = _HEIGHTS.get(static) != (width, lines) or width <= 0
    _HEIGHTS[static] = (width, lines)
    static.update(text, layout=layout)


def display(widget: Widget, shown: bool) -> None:
    """Show or hide `widget`: setting `display` lays the screen out even when unchanged."""
    if widget.display != shown:
        widget.display = shown
