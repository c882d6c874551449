"""What every widget drawn from the session shares: it is given the session, follows the
parts of it it draws (`FOLLOWS`: reactives of the app that is the session) and draws
again when one changes.

A mixin, not a widget: Textual takes a widget's CSS type names from its first widget
base, which stays the Static, VerticalScroll or Widget the widget is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from gother_tui.tui.session import Session

if TYPE_CHECKING:
    from textual.widget import Widget

    Drawn = Widget  # what it is mixed into, for the type checker
else:
    Drawn = object


class Following(Drawn):
    FOLLOWS: ClassVar[tuple[str, ...]] = ("view",)

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session

    def on_mount(self) -> None:
        for name in self.FOLLOWS:
            self.watch(self.app, name, self.follow)

    def follow(self) -> None:
        """The session changed: draw it again (hidden, there is nothing to draw)."""
        if self.display:
            self.refresh()
