"""Below 80x24 the table cannot be drawn legibly: say so, with the size needed, and get
out of the way as soon as the terminal is large enough again (the app pops this screen)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 80, 24


class TooSmallScreen(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self._show()

    def on_resize(self, event: events.Resize) -> None:
        self._show(event.size)

    def _show(self, size: Size | None = None) -> None:
        width, height = size or self.app.size
        self.query_one("#too-small", Static).update(
            Text.assemble(
                ("Terminal too small\n\n", "bold"),
                f"Gother Than Thou needs at least {MIN_WIDTH}x{MIN_HEIGHT};\n",
                f"this terminal is {width}x{height}.\n\n",
                "Enlarge the window (or use a smaller font):\n",
                "the game goes on and comes back by itself.",
            )
        )
