"""What the forms that send one request share (a new table, a new tournament): Tab between
fields, and Enter building the request from the fields, in order, with the form's builder
(gother_tui/core/forms.py). A request the protocol would refuse is not sent: its reason is shown
under the fields and the form stays open."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static

from protocol import requests as rq

R = TypeVar("R", rq.Create, rq.TournamentCreate)

# priority: the focus moves before the next key is routed, so keys typed fast (or batched
# over SSH) after a Tab land in the next field, not the one being left.
FIELD_KEYS: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


class RequestForm(ModalScreen[R | None], Generic[R]):
    """Dismissed with the built request, or None on Esc."""

    def __init__(self, build: Callable[..., R], fields: tuple[str, ...], error: str) -> None:
        super().__init__()
        # from the fields' strings, in `fields` order; ValueError: why not
        self.build: Callable[..., R] = build
        self.fields = fields  # the ids of the Inputs and Selects read
        self.error = error  # the id of the Static the reason is shown in

    def typed(self) -> list[str]:
        """What each field holds, in order: an Input's text, a Select's value."""
        held = []
        for field in self.fields:
            widget = self.query_one(f"#{field}")
            if isinstance(widget, Input):
                held.append(widget.value)
            else:
                assert isinstance(widget, Select), widget
                held.append(str(widget.value))
        return held

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        try:
            request = self.build(*self.typed())
        except ValueError as exc:
            self.query_one(f"#{self.error}", Static).update(Text(str(exc)))
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
