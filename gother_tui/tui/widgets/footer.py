"""The key bar of every screen: drawn whole, in place of Textual's Footer, on as many lines
as its keys need (an --ascii key bar, "Enter" for "⏎", does not fit 80 columns on one;
Textual's Footer cut it there: "? Hel").

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
from textual.geometry import Size
from textual.widget import Widget

Key = tuple[str, str, str, bool]  # (action, key shown, description, enabled)


class KeyBar(Widget):
    DEFAULT_CSS = "KeyBar { height: auto; dock: bottom; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._keys: tuple[Key, ...] = ()
        self._spans: list[tuple[int, int, int, str]] = []  # (line, start, end, action) a key

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _: object) -> None:
        keys = self._shown()
        if keys != self._keys:
            self._keys = keys
            self.refresh(layout=True)  # it may take another line, or one fewer

    def _shown(self) -> tuple[Key, ...]:
        firsts: dict[str, Key] = {}
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if binding.show:  # one key per action, as the Footer groups them
                key = (binding.action, self._display(binding), binding.description, enabled)
                firsts.setdefault(binding.action, key)
        return tuple(firsts.values())

    def _display(self, binding: Binding) -> str:
        return self.app.get_key_display(binding)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)[0])

    def render(self) -> Text:
        lines, self._spans = self._lines(self.size.width)
        return Text("\n").join(lines)

    def _lines(self, width: int) -> tuple[list[Text], list[tuple[int, int, int, str]]]:
        """The keys, each with its description, on as few lines of `width` as hold them
        (a key is never parted from its description); where each was put."""
        colours = self.app.theme_variables
        key_style = Style(bold=True, color=_rich(colours.get("footer-key-foreground")))
        lines, spans = [Text(no_wrap=True, overflow="ellipsis")], []
        for action, key, description, enabled in self._keys:
            pair = Text()
            pair.append(f" {key} ", key_style if enabled else Style(dim=True))
            pair.append(f"{description} ", "" if enabled else Style(dim=True))
            line = lines[-1]
            if line.cell_len and line.cell_len + pair.cell_len - 1 > width:  # its last space may go
                line = Text(no_wrap=True, overflow="ellipsis")
                lines.append(line)
            start = line.cell_len
            line.append_text(pair)
            spans.append((len(lines) - 1, start, line.cell_len, action))
        return lines, spans

    async def on_click(self, event: events.Click) -> None:
        for line, start, end, action in self._spans:
            if line == event.y and start <= event.x < end:
                await self.screen.run_action(action)
                return


def _rich(colour: str | None) -> str | None:
    if not colour:
        return None
    try:
        return Color.parse(colour).rich_color.name
    except Exception:  # a theme colour Rich cannot name: the terminal's own
        return None
