"""A placement composed in parts: `give … to …` several times then `confirm`, or `give`
alone, which asks seat by seat (a looking command may come between its questions)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gother_tui.core.narrator import names_of, plural
from gother_tui.core.plans import Plan
from gother_tui.plain import words
from gother_tui.plain.choices import describe_placement
from gother_tui.plain.commands import Command, parse
from gother_tui.plain.doing.where import deciding, play
from gother_tui.plain.moves import Problem, find_card, move_of, placement_of, placing
from protocol.view import Legal, LegalDistribute, View

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient

# What may be done while `give` asks seat by seat, without ending the questions.
BETWEEN_QUESTIONS = frozenset(
    {"hand", "piles", "scores", "discard", "log", "who", "options", "help", "say", "what"}
)
NONE = frozenset({"none", "nobody", "no one", "-"})


@dataclass
class Asking:
    """`give` alone: the seats still to be asked, for the decision it was started for."""

    legal: Legal
    seats: list[int]


class Placing:
    def __init__(self, client: PlainClient, do: Callable[[str], Awaitable[bool]]) -> None:
        self.client = client
        self.do = do  # a line done as a command, between two questions
        self.asking: Asking | None = None

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    def composing(self) -> tuple[View, Plan]:
        view, fresh = deciding(self.client, LegalDistribute)
        plan = self.client.plan
        return view, plan if plan is not None and plan.legal == fresh.legal else fresh

    async def do_give(self, args: str) -> None:
        view, plan = self.composing()
        if not args:
            self.start_asking(view, plan)
            return
        _, fresh = deciding(self.client, LegalDistribute)
        alone = placing(fresh, view, args, self.client.catalogue)
        if alone.move() is not None:  # the whole placement in one line: play it
            self.client.compose(None)
            await play(self.client, move_of(alone))
            return
        self.client.compose(placing(plan, view, args, self.client.catalogue))
        self.say_placement()

    def say_placement(self) -> None:
        view, plan = self.composing()
        placed = placement_of(plan)
        if not placed:
            self.say("No card is placed yet.")
            return
        client = self.client
        shown = describe_placement(view, placed, client.catalogue, client.glyphs)
        missing = plan.count - len(plan.assigned)
        if missing:
            self.say(f"Placed so far: {shown}.", f"{plural(missing, 'more card')} to place.")
        else:
            self.say(f"Your placement: {shown}.", "Type confirm to play it, or clear.")

    async def do_confirm(self, args: str) -> None:
        _view, plan = self.composing()
        if not plan.assigned:
            raise Problem("Nothing to confirm: give places cards, or choose an option.")
        move = move_of(plan)
        self.client.compose(None)
        await play(self.client, move)

    async def do_clear(self, args: str) -> None:
        if self.client.plan is None or not self.client.plan.assigned:
            self.say("Nothing to clear.")
        else:
            self.say("The placement is cleared.")
        self.client.compose(None)
        self.asking = None

    def start_asking(self, view: View, plan: Plan) -> None:
        seats = [s for s in plan.recipients if plan.holder_of(s) is None]
        self.client.compose(plan)
        self.asking = Asking(plan.legal, seats)
        self.say(
            "Placing your cards seat by seat: answer with a hand number or a card's name "
            "(cancel stops).",
            *words.hand_lines(view, self.client.catalogue, self.client.glyphs)[1:],
        )
        self.ask_next()

    def ask_next(self) -> None:
        view, plan = self.composing()
        assert self.asking is not None
        if plan.move() is not None or not self.asking.seats:
            self.asking = None
            self.say_placement()
            return
        seat = self.asking.seats[0]
        name = "you" if seat == view.seat else names_of(view.players)[seat]
        none = " (or none)" if self._may_skip(plan) else ""
        self.say(f"Which card for {name}, seat {seat + 1}?{none}")

    def _may_skip(self, plan: Plan) -> bool:
        assert self.asking is not None
        return len(self.asking.seats) > plan.count - len(plan.assigned)

    async def answer(self, line: str) -> bool:
        """A line while `give` asks: the answer, or a looking command; False when the line
        is to be done as a command (the decision changed, or another command was typed)."""
        asking = self.asking
        assert asking is not None
        view = self.client.view
        if view is None or view.legal != asking.legal:
            self.asking = None
            self.say("The decision changed: the placement is dropped.")
            return False
        text = " ".join(line.split()).lower()
        if text in ("cancel", "clear", "stop"):
            await self.do_clear("")
            return True
        command = parse(line)
        # A command by its whole name (a card's number or the start of its name is an
        # answer): looking or talking, then the same question; anything else ends them.
        if isinstance(command, Command) and (text[:1] == "'" or text.split()[0] == command.name):
            if command.name not in BETWEEN_QUESTIONS:
                self.asking = None  # the cards placed so far stay: give asks again
                return False
            await self._between(line)
            self.ask_next()
            return True
        view, plan = self.composing()
        seat = asking.seats[0]
        if text in NONE:
            if not self._may_skip(plan):
                self.say("Every seat left must get a card: name one.")
                return True
            asking.seats.pop(0)
            self.ask_next()
            return True
        try:
            card = find_card(text, plan.choices, self.client.catalogue, view.hand or ())
        except Problem as problem:
            self.say(str(problem))
            return True
        if card in plan.assigned:
            to = plan.assigned[card]
            whom = "you" if to == view.seat else names_of(view.players)[to]
            self.say(f"{self.client.catalogue.name(card)} already goes to {whom}.")
            return True
        plan.point_at(card)
        plan.assign(seat)
        asking.seats.pop(0)
        self.ask_next()
        return True

    async def _between(self, line: str) -> None:
        saved, self.asking = self.asking, None
        try:
            await self.do(line)
        finally:
            self.asking = saved
