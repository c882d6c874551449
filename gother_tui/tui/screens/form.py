"""What the forms that send one request share (a new table, a new tournament): Tab between
fields, the house rules' fields (one for each rule protocol/house_rules.py says a form asks),
and Enter building the request from the fields, by their ids, with the form's builder
(gother_tui/core/forms.py). A request the protocol would refuse is not sent: its reason is shown
under the fields and the form stays open."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static

from protocol import requests as rq
from protocol.house_rules import Count, Menu, asked
from protocol.view import Variants

R = TypeVar("R", rq.Create, rq.TournamentCreate)

# priority: the focus moves before the next key is routed, so keys typed fast (or batched
# over SSH) after a Tab land in the next field, not the one being left.
FIELD_KEYS: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


def house_rule_fields(variants: Variants, *, presets: bool) -> Iterator[Widget]:
    """A label and a field for each house rule a form asks, holding `variants`' value: a
    menu, or a count's field (empty: off), after the menu of its presets when `presets` (a
    preset writes the field: the create form's handler)."""
    for rule in asked():
        held = getattr(variants, rule.field)
        if isinstance(rule, Menu):
            yield Label(rule.label)
            yield Select(rule.choices, value=held, allow_blank=False, id=rule.word, compact=True)
            continue
        assert isinstance(rule, Count), rule
        if presets:
            yield Label(rule.presets_label)
            yield Select(
                preset_choices(rule),
                value="" if held is None else str(held),
                allow_blank=False,
                id=preset_id(rule),
                compact=True,
            )
        yield Label(rule.label)
        yield Input(
            "" if held is None else str(held),
            id=rule.word,
            type="integer",
            max_length=len(str(rule.span.stop - 1)),
            compact=True,
        )


def preset_choices(rule: Count) -> tuple[tuple[str, str], ...]:
    return tuple((p.label, "" if p.value is None else str(p.value)) for p in rule.presets)


def preset_id(rule: Count) -> str:
    return rule.presets_label.lower()


class RequestForm(ModalScreen[R | None], Generic[R]):
    """Dismissed with the built request, or None on Esc."""

    def __init__(self, build: Callable[[dict[str, str]], R], error: str) -> None:
        super().__init__()
        self.build: Callable[[dict[str, str]], R] = (
            build  # from the fields' strings, by their ids; ValueError: why not
        )
        self.error = error  # the id of the Static the reason is shown in

    def typed(self) -> dict[str, str]:
        """What each field holds, by its id: an Input's text, a Select's value."""
        held = {}
        for widget in self.query("Input, Select"):
            if isinstance(widget, Input):
                held[str(widget.id)] = widget.value
            elif isinstance(widget, Select):
                held[str(widget.id)] = str(widget.value)
        return held

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        try:
            request = self.build(self.typed())
        except ValueError as exc:
            self.query_one(f"#{self.error}", Static).update(Text(str(exc)))
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)
