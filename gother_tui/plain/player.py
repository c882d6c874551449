"""The plain client's commands, done: each line typed is one command, checked against the
view before anything is sent, and answered with at least one line.

A move is made from the decision's numbered options or from the player's words
(gother_tui.plain.moves); a placement may be composed in parts (`give … to …` several
times, or `give` alone, which asks seat by seat) and is then sent with `confirm`. Not your
turn, not this step, a card you do not hold, a seat that cannot receive: one line, nothing
sent, nothing changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gother_tui.core import review_words, tournament_words
from gother_tui.core.client import Reply
from gother_tui.core.comeback import kept_for_the_first
from gother_tui.core.forms import lasts
from gother_tui.core.narrator import names_of, plural
from gother_tui.core.notice import THINKING
from gother_tui.core.plans import Plan, plan_for
from gother_tui.core.prompts import step_label
from gother_tui.core.record import GameRecord, RecordError, ask_record
from gother_tui.core.standings import table_lines
from gother_tui.plain import replay, words
from gother_tui.plain.choices import Option, describe_placement, same_move
from gother_tui.plain.commands import Command, Unknown, help_lines, parse
from gother_tui.plain.moves import Problem, find_card, move_of, placement_of, placing
from gother_tui.plain.tournament_new import tournament_new
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.constants import (
    DEFAULT_BOT,
    DEFAULT_ROUND_CAP,
    DIFFICULTIES,
    SHORT_ROUND_CAP,
    TRAITS,
)
from protocol.errors import ErrorCode
from protocol.moves import DiscardFate, DiscardHand, Draw, Move
from protocol.view import (
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Variants,
    View,
)

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient

Handler = Callable[[str], Awaitable[bool | None]]  # False: quit
NO_SERVER = frozenset({"help", "quit"})  # commands that need no answer from the server
# What may be done while `give` asks seat by seat, without ending the questions.
BETWEEN_QUESTIONS = frozenset(
    {"hand", "piles", "scores", "discard", "log", "who", "options", "help", "say", "what"}
)
DEFAULT_LOG = 10
NONE = frozenset({"none", "nobody", "no one", "-"})


@dataclass
class Asking:
    """`give` alone: the seats still to be asked, for the decision it was started for."""

    legal: Legal
    seats: list[int]


class Player:
    def __init__(self, client: PlainClient) -> None:
        self.client = client
        self.asking: Asking | None = None
        self.ending = False  # `end` asked whether to vote: the next line answers
        self.replaying: tuple[GameRecord, int] | None = None  # the replay told, its turn

    @property
    def view(self) -> View | None:
        return self.client.view

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    # -- the lines ------------------------------------------------------------------------

    async def follow(self, lines: AsyncIterator[str], ready: asyncio.Event) -> None:
        """Do every line's command in order, once the client has somewhere to be (a quit
        typed before that, with no command waiting before it, ends at once: the server may
        be out of reach; a script's `list` then `quit` lists first)."""
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        undone = 0  # lines read and not yet done

        async def read() -> None:
            nonlocal undone
            async for line in lines:
                command = parse(line)
                quit_ = isinstance(command, Command) and command.name == "quit"
                if quit_ and not ready.is_set() and not undone:
                    self.client.end(0)
                undone += 1
                queue.put_nowait(line)
            queue.put_nowait(None)

        self.client.spawn(read())
        while (line := await queue.get()) is not None:
            command = parse(line)
            if not (isinstance(command, Command) and command.name in NO_SERVER):
                await ready.wait()
            done = await self.do(line)
            undone -= 1
            if done is False:
                return

    async def do(self, line: str) -> bool:
        """One line of input; False when it was `quit`."""
        if self.asking is not None and await self._answer(line):
            return True
        if self.ending:
            await self._end_answered(line)
            return True
        command = parse(line)
        quitting = isinstance(command, Command) and command.name == "quit"
        if self.client.flow.wants_password and line and not quitting:
            self.client.password_typed(line)
            return True
        if command is None:
            return True
        if isinstance(command, Unknown):
            self.say(command.problem)
            return True
        handler: Handler = getattr(self, f"do_{command.name}")
        try:
            return await handler(command.args) is not False
        except Problem as problem:
            self.say(str(problem))
            return True

    # -- where we are -----------------------------------------------------------------------

    def at_table(self) -> View:
        if self.view is None:
            raise Problem("You are not at a table: list, join N, watch N or create.")
        return self.view

    def deciding(self, *kinds: type[Any]) -> tuple[View, Plan]:
        """The view and a fresh plan of our decision, if it is of one of `kinds`."""
        view = self.at_table()
        if view.you is None:
            raise Problem("You are watching: spectators make no moves.")
        plan = plan_for(view)
        if plan is None:
            raise Problem(_waiting(view))
        if not isinstance(plan.legal, kinds):
            raise Problem(f"Not now: you are at {step_label(view)} (options says what to do).")
        return view, plan

    async def play(self, move: Move) -> bool:
        reply = await self.client.ask(rq.Play(move=move))
        return isinstance(reply, sm.State)

    # -- looking ----------------------------------------------------------------------------

    async def do_help(self, args: str) -> None:
        self.say(*help_lines(args))

    async def do_quit(self, args: str) -> bool:
        self.say("Goodbye.")
        self.client.end(0)
        return False

    async def do_hand(self, args: str) -> None:
        self.say(*words.hand_lines(self.at_table(), self.client.catalogue, self.client.glyphs))

    async def do_piles(self, args: str) -> None:
        client = self.client
        spoken = not client.verbose
        self.say(*words.piles_lines(self.at_table(), client.catalogue, client.glyphs, spoken))

    async def do_scores(self, args: str) -> None:
        spoken = not self.client.verbose
        self.say(*words.scores_lines(self.at_table(), self.client.catalogue, spoken))

    async def do_who(self, args: str) -> None:
        self.say(*words.who_lines(self.at_table()))

    async def do_log(self, args: str) -> None:
        self.at_table()
        if args and not args.isdigit():
            raise Problem("log N: N is how many lines, e.g. log 20.")
        count = int(args) if args else DEFAULT_LOG
        story = self.client.story[-count:] if count else []
        self.say(*(story or ["Nothing has happened yet."]))

    async def do_options(self, args: str) -> None:
        self.deciding(LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        self.client.say_decision(brief=False)

    async def do_more(self, args: str) -> None:
        self.deciding(LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        self.client.say_more()

    async def do_again(self, args: str) -> None:
        """The decision as it was last said; out of turn, the last line of the story."""
        view = self.at_table()
        client = self.client
        if view.you is not None and view.legal is not None and client.said == view.legal:
            self.say(*client.decision_said)
        elif client.heard:
            self.say(client.heard[-1])
        else:
            self.say("Nothing has been said yet.")

    async def do_what(self, args: str) -> None:
        """What changed since your last turn, as it was said, and a turn under way."""
        self.at_table()
        said = [*self.client.heard, *self.client.pending()]
        self.say(*(said or ["Nothing has changed since your last turn."]))

    async def do_verbose(self, args: str) -> None:
        word = args.lower()
        if word not in ("", "on", "off"):
            raise Problem("verbose on tells everything, verbose off the short story.")
        verbose = not self.client.verbose if not word else word == "on"
        self.client.set_verbose(verbose)
        if verbose:
            self.say("Verbose: every event and every option, in full.")
        else:
            self.say("Short: a line a turn, the first options; more says the rest.")

    # -- moves ----------------------------------------------------------------------------

    def option(self, number: str) -> Option:
        view, _ = self.deciding(LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        found = self.client.decision()
        if found is None or self.client.said != view.legal:
            raise Problem("Your options are not listed yet: they come in a moment.")
        index = int(number) - 1
        if not 0 <= index < len(found.options):
            count = len(found.options)
            raise Problem(f"There is no option {number}: choose 1 to {count}.")
        chosen = found.options[index]
        if not same_move(self.client.spoken.get(index + 1), chosen.move):
            raise Problem(f"Option {number} was not said: more says the rest of them.")
        return chosen

    async def do_option(self, args: str) -> None:
        chosen = self.option(args)
        if chosen.every:
            await self.draw_all()
        else:
            await self.play(chosen.move)

    async def do_discard(self, args: str) -> None:
        if not args:
            self.say(
                *words.discard_lines(self.at_table(), self.client.catalogue, self.client.glyphs)
            )
            return
        _view, plan = self.deciding(LegalDiscardFate)
        if args.isdigit():
            await self.play(self.option(args).move)
            return
        card = find_card(args, plan.choices, self.client.catalogue)
        await self.play(DiscardFate(card))

    async def do_draw(self, args: str) -> None:
        _view, plan = self.deciding(LegalDraw)
        what = args.lower()
        if what not in ("", "deck", "all", "deck all"):
            raise Problem("draw deck draws one card, draw deck all the rest; take NAME takes one.")
        if problem := plan.choose_deck():
            raise Problem(problem[:1].upper() + problem[1:] + ".")
        if what.endswith("all"):
            await self.draw_all()
        else:
            await self.play(Draw("deck"))

    async def draw_all(self) -> None:
        """Draw from the draw pile until the step is done (or something else is asked)."""
        client = self.client
        client.drawing_all = True
        try:
            while await self.play(Draw("deck")):
                legal = self.view.legal if self.view is not None else None
                if not (isinstance(legal, LegalDraw) and legal.deck):
                    break
        finally:
            client.drawing_all = False
            client.decision_again()

    async def do_take(self, args: str) -> None:
        view, plan = self.deciding(LegalDraw)
        if not args:
            raise Problem("take NAME: name a card of the discard pile (discard lists them).")
        if isinstance(plan.legal, LegalDraw) and plan.legal.in_debt:
            raise Problem("You are in debt: you may only draw from the draw pile.")
        top_first = tuple(reversed(view.discard))
        card = find_card(args, plan.choices, self.client.catalogue, top_first)
        await self.play(Draw("discard", card))

    async def do_drop(self, args: str) -> None:
        view, plan = self.deciding(LegalDiscardHand)
        if not args:
            raise Problem("drop NAME: name a card of your hand (hand lists it).")
        card = find_card(args, plan.choices, self.client.catalogue, view.hand or ())
        await self.play(DiscardHand(card))

    # -- a placement ------------------------------------------------------------------------

    def composing(self) -> tuple[View, Plan]:
        view, fresh = self.deciding(LegalDistribute)
        plan = self.client.plan
        return view, plan if plan is not None and plan.legal == fresh.legal else fresh

    async def do_give(self, args: str) -> None:
        view, plan = self.composing()
        if not args:
            self.start_asking(view, plan)
            return
        _, fresh = self.deciding(LegalDistribute)
        alone = placing(fresh, view, args, self.client.catalogue)
        if alone.move() is not None:  # the whole placement in one line: play it
            self.client.plan = None
            await self.play(move_of(alone))
            return
        self.client.plan = placing(plan, view, args, self.client.catalogue)
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
        self.client.plan = None
        await self.play(move)

    async def do_clear(self, args: str) -> None:
        if self.client.plan is None or not self.client.plan.assigned:
            self.say("Nothing to clear.")
        else:
            self.say("The placement is cleared.")
        self.client.plan = None
        self.asking = None

    def start_asking(self, view: View, plan: Plan) -> None:
        seats = [s for s in plan.recipients if plan.holder_of(s) is None]
        self.client.plan = plan
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

    async def _answer(self, line: str) -> bool:
        """A line while `give` asks: the answer, or a looking command; False when the line
        is to be done as a command (the decision changed, or another command was typed)."""
        asking = self.asking
        assert asking is not None
        view = self.view
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

    # -- the rest ---------------------------------------------------------------------------

    async def do_hint(self, args: str) -> None:
        view, _ = self.deciding(LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        reply = await self.client.ask(rq.Hint(), quiet=True)
        if isinstance(reply, sm.Error) and reply.code == THINKING and view.legal is not None:
            self.say("The hint is still being thought: it comes in a moment.")
            reply = await self.client.hint_when_thought(view.legal)
        elif isinstance(reply, sm.Error):
            self.say(f"The server refused: {reply.message}")
        if isinstance(reply, sm.Hint):
            self.client.tell_hint(reply)

    async def do_say(self, args: str) -> None:
        self.at_table()
        if not args:
            raise Problem("say TEXT: what to say, on the same line.")
        await self.client.ask(rq.Chat(text=args))

    async def do_list(self, args: str) -> None:
        reply = await self.client.ask(rq.List())
        if isinstance(reply, sm.Tables):
            self.client.tables = reply.tables
            self.say(*words.table_lines(reply.tables))
            self.say(*tournament_words.open_line(reply.tournaments, "tournament"))

    async def do_standings(self, args: str) -> None:
        if args and not (args.isdigit() and int(args) >= 1):
            raise Problem("standings N: N is the rank to start from, a number from 1.")
        offset = int(args or 1) - 1
        reply = await self.client.ask(rq.Standings(offset=offset))
        if isinstance(reply, sm.Standings):
            self.say(*table_lines([reply], self.client.glyphs))
            shown = offset + len(reply.rows)
            if shown < reply.total:
                self.say(f"{reply.total - shown} more: standings {shown + 1}")

    async def do_replay(self, args: str) -> None:
        if args.lower() == "next":
            if self.replaying is None:
                raise Problem("No replay to go on with: replay first.")
            record, turn = self.replaying
            if turn >= len(record.turn_starts()):
                raise Problem("That was the last turn of the game.")
        else:
            place = replay.place_of(args, self.view)
            record, turn = await self.fetch_record(place), place.turn - 1
        try:
            lines = replay.turn_lines(record, turn + 1, self.client.glyphs)
        except RecordError as exc:  # a turn past the last
            raise Problem(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
        self.replaying = (record, turn + 1)
        self.say(*lines)

    async def do_play(self, args: str) -> None:
        """`play on [TURN]` (or `play-on TURN`): play on from the replay last told."""
        words_ = args.split()
        if words_ and words_[0].lower() == "on":
            words_.pop(0)
        if self.replaying is None:
            raise Problem("play on follows a replay: replay a game, then play on [TURN].")
        record, told = self.replaying
        if record.seat is None:
            raise Problem("play on plays a seat: replay the game as one (replay ... seat N).")
        if len(words_) > 1 or (words_ and not (words_[0].isdigit() and int(words_[0]) >= 1)):
            raise Problem("play on [TURN]: TURN is a number from 1.")
        turn = int(words_[0]) if words_ else told
        on = rq.PlayOn(table=record.table.id, game=record.game, seat=record.seat, turn=turn)
        reply = await self.client.ask(on)
        if isinstance(reply, sm.Joined):
            self.replaying = None
            self.say(
                f"Playing on from turn {turn} of {record.name}, as seat {record.seat + 1} knew "
                "it, against bots; the cards it did not see are dealt afresh."
            )

    async def fetch_record(self, place: replay.Place) -> GameRecord:
        """The record of `place`'s game with its seat's views, part by part, over this
        client's own connection (Problem: the server refused, or did not answer)."""

        async def ask(request: rq.Record) -> Reply | None:
            return await self.client.ask(request, quiet=True)

        try:
            return await ask_record(ask, place.table, place.game, place.seat)
        except RecordError as exc:
            raise Problem(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None

    def in_lobby(self) -> None:
        if self.view is not None:
            raise Problem("You are at a table: leave it first.")

    async def do_create(self, args: str) -> None:
        """create [SEATS [BOTS]] [easy|normal|hard] [vengeful|steady] [short] [NAME]: the
        words in any order before the name; each left out is the server's default."""
        self.in_lobby()
        numbers: list[int] = []
        rest = args.split()
        while rest and rest[0].isdigit() and len(numbers) < 2:
            numbers.append(int(rest.pop(0)))
        bot = trait = None
        variants = None
        while rest and rest[0].lower() in (*DIFFICULTIES, *TRAITS, "short"):
            word = rest.pop(0).lower()
            if word in DIFFICULTIES:
                bot = word
            elif word in TRAITS:
                trait = word
            else:  # H1's short-game preset
                variants = Variants(round_cap=SHORT_ROUND_CAP)
        seats = numbers[0] if numbers else 4
        bots = numbers[1] if len(numbers) > 1 else max(seats - 1, 0)
        name = " ".join(rest) or f"{self.client.options.name}'s table"
        request = rq.Create(
            name=name, seats=seats, bots=bots, bot=bot, trait=trait, variants=variants
        )
        reply = await self.client.ask(request)
        if isinstance(reply, sm.Created):
            cap = str(SHORT_ROUND_CAP if variants else DEFAULT_ROUND_CAP)
            length = lasts(str(seats), bot or DEFAULT_BOT, trait or "", cap)
            self.say(f"Table {name} is made (table {reply.table}).{' ' + length if length else ''}")
            await self.enter(reply.table, None, watch=self.client.options.watch)

    def table_numbered(self, text: str) -> sm.TableRow | str:
        tables = self.client.tables
        if text.isdigit():
            index = int(text) - 1
            if not 0 <= index < len(tables):
                count = len(tables)
                raise Problem(f"There is no table {text}: list shows {plural(count, 'table')}.")
            return tables[index]
        return text  # a table id

    async def do_join(self, args: str) -> None:
        await self._enter_numbered(args, watch=self.client.options.watch)

    async def do_watch(self, args: str) -> None:
        await self._enter_numbered(args, watch=True)

    async def _enter_numbered(self, args: str, *, watch: bool) -> None:
        self.in_lobby()
        which, _, password = args.partition(" ")
        if not which:
            raise Problem(f"{'watch' if watch else 'join'} N: N is a table's number in list.")
        table = self.table_numbered(which)
        table_id = table.id if isinstance(table, sm.TableRow) else table
        if isinstance(table, sm.TableRow) and not watch:
            if not table.free:
                why = f"{table.name} has no free seat: watch {which} watches it."
                started = table.phase != "lobby"  # as the server's refusal would say
                kept = kept_for_the_first(ErrorCode.ALREADY_STARTED, self.client.options.door_token)
                raise Problem(f"{why} {kept}" if started and kept else why)
            if table.password and not password:
                raise Problem(f"{table.name} has a password: join {which} PASSWORD.")
        await self.enter(table_id, password or None, watch=watch)

    async def enter(self, table: str, password: str | None, *, watch: bool) -> None:
        password = password or None
        if watch:
            await self.client.ask(rq.Watch(table=table, password=password))
        else:
            await self.client.ask(rq.Join(table=table, password=password))

    async def do_start(self, args: str) -> None:
        view = self.at_table()
        if view.you is None or view.phase != "lobby":
            raise Problem("start deals a new table's first game, for a player seated there.")
        await self.client.ask(rq.Start())

    async def do_rematch(self, args: str) -> None:
        view = self.at_table()
        if view.you is None or not view.over:
            raise Problem("rematch asks for another game once this one is over.")
        reply = await self.client.ask(rq.Rematch())
        if isinstance(reply, sm.State) and reply.view.over:  # others have yet to ask
            self.say("Rematch asked for: it starts once every player has asked.")

    def playing(self) -> View:
        """The view of a game in progress at our seat: the votes are its players'."""
        view = self.at_table()
        if view.you is None or view.phase == "lobby" or view.over:
            raise Problem("pause, go on and end are for a seated player, during a game.")
        return view

    async def do_pause(self, args: str) -> None:
        table = self.playing().table
        if table.paused:
            raise Problem("The game is paused already: go on votes to go on.")
        if self.view is not None and self.view.seat in table.pause_votes:
            raise Problem("You ask to pause already: go on takes the vote back.")
        await self.client.ask(rq.Pause(on=True))

    async def do_go(self, args: str) -> None:
        if args.lower() != "on":
            raise Problem("go on: vote to go on from a pause.")
        view = self.playing()
        if not view.table.paused and view.seat not in view.table.pause_votes:
            raise Problem("The game is not paused, and you have not asked to pause.")
        await self.client.ask(rq.Pause(on=False))

    async def do_end(self, args: str) -> None:
        self.playing()
        self.ending = True
        self.say(
            "Vote to end this game unfinished? It ends once every player here votes so. "
            "Type yes to vote, anything else not to."
        )

    async def _end_answered(self, line: str) -> None:
        self.ending = False
        if line.strip().lower() not in ("y", "yes"):
            self.say("No vote to end was sent.")
            return
        try:
            self.playing()  # the game may have ended meanwhile
        except Problem as problem:
            self.say(str(problem))
            return
        await self.client.ask(rq.End())

    async def do_review(self, args: str) -> None:
        view = self.at_table()
        if not view.over:
            raise Problem("review judges a game once it is over.")
        seats = len(view.players)
        if args and not (args.isdigit() and 1 <= int(args) <= seats):
            raise Problem(f"review SEAT: SEAT is a number from 1 to {seats}.")
        seat = int(args) - 1 if args else view.seat
        if seat is None:
            raise Problem(f"review SEAT: you are watching, so say whose (1 to {seats}).")
        self.say("Reviewing: the search goes over every decision, some seconds.")
        reply = await self.client.ask(
            rq.Review(table=view.table.id, game=view.table.game, seat=seat)
        )
        if isinstance(reply, sm.Review):
            name = view.players[seat].name or f"Seat {seat + 1}"
            self.say(*review_words.lines(reply, name))

    async def do_leave(self, args: str) -> None:
        self.at_table()
        await self.client.ask(rq.Leave())

    async def do_tournament(self, args: str) -> None:
        word, _, rest = args.partition(" ")
        followed = self.client.tournament
        if not word:
            if followed is not None:
                self.say(*tournament_words.lines(followed))
                return
            listed = await self.client.ask(rq.List())
            if isinstance(listed, sm.Tables) and not listed.tournaments:
                self.say(
                    "You follow no tournament, and none is open on this server: "
                    "tournament new makes one."
                )
            elif isinstance(listed, sm.Tables):
                self.say("You follow no tournament. Open on this server:")
                self.say(*tournament_words.open_lines(listed.tournaments))
                self.say("tournament ID registers in one, tournament watch ID follows one.")
            return
        if word in ("start", "drop"):
            if followed is None:
                raise Problem(f"tournament {word}: first register in a tournament (tournament ID).")
            kind = rq.TournamentStart if word == "start" else rq.TournamentDrop
            reply = await self.client.ask(kind(tournament=followed.id))
        elif word == "watch":
            if not rest:
                raise Problem("tournament watch ID: ID is the tournament's.")
            reply = await self.client.ask(rq.TournamentWatch(tournament=rest))
        elif word == "new":
            reply = await self._new_tournament(rest)
        else:
            reply = await self.client.ask(rq.TournamentJoin(tournament=word))
        if isinstance(reply, sm.Tournament):
            self.say(*tournament_words.lines(reply))

    async def _new_tournament(self, args: str) -> Reply | None:
        try:
            request = tournament_new(args)
        except ValueError as exc:
            raise Problem(str(exc)) from None
        return await self.client.ask(request)


def _waiting(view: View) -> str:
    if view.phase == "lobby":
        return "The game has not started: start deals now, with bots in the free seats."
    if view.over:
        return "The game is over: rematch asks for another."
    actor = view.to_act if view.to_act is not None else view.turn
    name = names_of(view.players).get(actor, "someone") if actor is not None else "someone"
    return f"It is not your turn: waiting for {name} ({step_label(view)})."
