"""The table's key bar: one line, drawn whole, in place of Textual's Footer.

The Footer is a widget per key: when the screen's bindings change it composes itself anew,
and flipping a key to disabled restyles that key's widgets; at the table, where the keys
change state after nearly every `state`, that was most of a redraw. The table keeps one
set of keys for the whole game and greys out what does not apply now (`check_action`
returns None); this bar draws them as one Text, and only when what it shows changed. A
click on a key runs its action, as on the Footer.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.color import Color
from textual.widget import Widget

Key = tuple[str, str, str, bool]  # (action, key shown, description, enabled)


class KeyBar(Widget):
    DEFAULT_CSS = "KeyBar { height: 1; dock: bottom; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._keys: tuple[Key, ...] = ()
        self._spans: list[tuple[int, int, str]] = []  # (start, end, action) of each key

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _: object) -> None:
        keys = self._shown()
        if keys != self._keys:
            self._keys = keys
            self.refresh()

    def _shown(self) -> tuple[Key, ...]:
        firsts: dict[str, Key] = {}
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if binding.show:  # one key per action, as the Footer groups them
                key = (binding.action, self._display(binding), binding.description, enabled)
                firsts.setdefault(binding.action, key)
        return tuple(firsts.values())

    def _display(self, binding: Binding) -> str:
        return self.app.get_key_display(binding)

    def render(self) -> Text:
        colours = self.app.theme_variables
        key_style = Style(bold=True, color=_rich(colours.get("footer-key-foreground")))
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        for action, key, description, enabled in self._keys:
            start = text.cell_len
            text.append(f" {key} ", key_style if enabled else Style(dim=True))
            text.append(f"{description} ", "" if enabled else Style(dim=True))
            self._spans.append((start, text.cell_len, action))
        return text

    async def on_click(self, event: events.Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end:
                await self.screen.run_action(action)
                return


def _rich(colour: str | None) -> str | None:
    if not colour:
        return None
    try:
        return Color.parse(colour).rich_color.name
    except Exception:  # a theme colour Rich cannot name: the terminal's own
        return None
