"""A move: an option by its number, a card discarded, drawn, taken or dropped by name; the
server's hint; a line said to the table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gother_tui.core.notice import THINKING
from gother_tui.plain import words
from gother_tui.plain.choices import Option, same_move
from gother_tui.plain.doing.where import at_table, deciding, play
from gother_tui.plain.moves import Problem, find_card
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.moves import DiscardFate, DiscardHand, Draw
from protocol.view import LegalDiscardFate, LegalDiscardHand, LegalDistribute, LegalDraw

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient


class Playing:
    def __init__(self, client: PlainClient) -> None:
        self.client = client

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    def option(self, number: str) -> Option:
        client = self.client
        view, _ = deciding(client, LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        found = client.decision()
        if found is None or client.said != view.legal:
            raise Problem("Your options are not listed yet: they come in a moment.")
        index = int(number) - 1
        if not 0 <= index < len(found.options):
            count = len(found.options)
            raise Problem(f"There is no option {number}: choose 1 to {count}.")
        chosen = found.options[index]
        if not same_move(client.spoken.get(index + 1), chosen.move):
            raise Problem(f"Option {number} was not said: more says the rest of them.")
        return chosen

    async def do_option(self, args: str) -> None:
        chosen = self.option(args)
        if chosen.every:
            await self.draw_all()
        else:
            await play(self.client, chosen.move)

    async def do_discard(self, args: str) -> None:
        client = self.client
        if not args:
            self.say(*words.discard_lines(at_table(client), client.catalogue, client.glyphs))
            return
        _view, plan = deciding(client, LegalDiscardFate)
        if args.isdigit():
            await play(client, self.option(args).move)
            return
        card = find_card(args, plan.choices, client.catalogue)
        await play(client, DiscardFate(card))

    async def do_draw(self, args: str) -> None:
        _view, plan = deciding(self.client, LegalDraw)
        what = args.lower()
        if what not in ("", "deck", "all", "deck all"):
            raise Problem("draw deck draws one card, draw deck all the rest; take NAME takes one.")
        if problem := plan.choose_deck():
            raise Problem(problem[:1].upper() + problem[1:] + ".")
        if what.endswith("all"):
            await self.draw_all()
        else:
            await play(self.client, Draw("deck"))

    async def draw_all(self) -> None:
        """Draw from the draw pile until the step is done (or something else is asked)."""
        client = self.client
        with client.drawing_all():
            while await play(client, Draw("deck")):
                legal = client.view.legal if client.view is not None else None
                if not (isinstance(legal, LegalDraw) and legal.deck):
                    break

    async def do_take(self, args: str) -> None:
        view, plan = deciding(self.client, LegalDraw)
        if not args:
            raise Problem("take NAME: name a card of the discard pile (discard lists them).")
        if isinstance(plan.legal, LegalDraw) and plan.legal.in_debt:
            raise Problem("You are in debt: you may only draw from the draw pile.")
        top_first = tuple(reversed(view.discard))
        card = find_card(args, plan.choices, self.client.catalogue, top_first)
        await play(self.client, Draw("discard", card))

    async def do_drop(self, args: str) -> None:
        view, plan = deciding(self.client, LegalDiscardHand)
        if not args:
            raise Problem("drop NAME: name a card of your hand (hand lists it).")
        card = find_card(args, plan.choices, self.client.catalogue, view.hand or ())
        await play(self.client, DiscardHand(card))

    async def do_hint(self, args: str) -> None:
        client = self.client
        view, _ = deciding(client, LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        reply = await client.ask(rq.Hint(), quiet=True)
        if isinstance(reply, sm.Error) and reply.code == THINKING and view.legal is not None:
            self.say("The hint is still being thought: it comes in a moment.")
            reply = await client.hint_when_thought(view.legal)
        elif isinstance(reply, sm.Error):
            self.say(f"The server refused: {reply.message}")
        if isinstance(reply, sm.Hint):
            client.tell_hint(reply)

    async def do_say(self, args: str) -> None:
        at_table(self.client)
        if not args:
            raise Problem("say TEXT: what to say, on the same line.")
        await self.client.ask(rq.Chat(text=args))
