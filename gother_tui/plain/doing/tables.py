"""Tables: the lobby's list and the standings, making a table, sitting at one or watching
it, and a seat's votes there (start, rematch, pause, go on, end) and leaving it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gother_tui.core.comeback import kept_for_the_first
from gother_tui.core.forms import lasts
from gother_tui.core.narrator import plural
from gother_tui.core.standings import table_lines
from gother_tui.plain import options
from gother_tui.plain.doing.where import at_table, in_lobby
from gother_tui.plain.moves import Problem
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.constants import DEFAULT_BOT, DIFFICULTIES, TRAITS
from protocol.house_rules import OFF, ROUND_CAP, asked
from protocol.view import Variants, View

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient


class Tables:
    def __init__(self, client: PlainClient) -> None:
        self.client = client
        self.ending = False  # `end` asked whether to vote: the next line answers

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    async def do_list(self, args: str) -> None:
        reply = await self.client.ask(rq.List())
        if isinstance(reply, sm.Tables):
            self.client.show_tables(reply)

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

    async def do_create(self, args: str) -> None:
        """create [SEATS [BOTS]] [easy|normal|hard] [vengeful|steady] [short] [NAME]
        [RULE=VALUE ...]: the words in any order before the name, a house rule's anywhere;
        each left out is the server's default."""
        in_lobby(self.client)
        try:
            chosen, rest = options.split(args.split(), (rule.word for rule in asked()), "create")
        except ValueError as exc:
            raise Problem(str(exc)) from None
        numbers: list[int] = []
        while rest and rest[0].isdigit() and len(numbers) < 2:
            numbers.append(int(rest.pop(0)))
        bot = trait = None
        presets = {p.word: p for p in ROUND_CAP.presets if p.word}  # H1's: the short game
        while rest and rest[0].lower() in (*DIFFICULTIES, *TRAITS, *presets):
            word = rest.pop(0).lower()
            if word in DIFFICULTIES:
                bot = word
            elif word in TRAITS:
                trait = word
            else:
                chosen.setdefault(ROUND_CAP.word, str(presets[word].value or OFF))
        try:
            rules = options.variants(chosen, "create") if chosen else None
        except ValueError as exc:
            raise Problem(str(exc)) from None
        seats = numbers[0] if numbers else 4
        bots = numbers[1] if len(numbers) > 1 else max(seats - 1, 0)
        name = " ".join(rest) or f"{self.client.options.name}'s table"
        request = rq.Create(name=name, seats=seats, bots=bots, bot=bot, trait=trait, variants=rules)
        reply = await self.client.ask(request)
        if isinstance(reply, sm.Created):
            cap = (rules or Variants()).round_cap
            length = lasts(str(seats), bot or DEFAULT_BOT, trait or "", str(cap or ""))
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
        in_lobby(self.client)
        which, _, password = args.partition(" ")
        if not which:
            raise Problem(f"{'watch' if watch else 'join'} N: N is a table's number in list.")
        table = self.table_numbered(which)
        table_id = table.id if isinstance(table, sm.TableRow) else table
        if isinstance(table, sm.TableRow) and not watch:
            if not table.free:
                why = f"{table.name} has no free seat: watch {which} watches it."
                started = table.phase != "lobby"  # as the server's refusal would say
                kept = kept_for_the_first("already_started", self.client.options.door_token)
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
        view = at_table(self.client)
        if view.you is None or view.phase != "lobby":
            raise Problem("start deals a new table's first game, for a player seated there.")
        await self.client.ask(rq.Start())

    async def do_rematch(self, args: str) -> None:
        view = at_table(self.client)
        if view.you is None or not view.over:
            raise Problem("rematch asks for another game once this one is over.")
        reply = await self.client.ask(rq.Rematch())
        if isinstance(reply, sm.State) and reply.view.over:  # others have yet to ask
            self.say("Rematch asked for: it starts once every player has asked.")

    def playing(self) -> View:
        """The view of a game in progress at our seat: the votes are its players'."""
        view = at_table(self.client)
        if view.you is None or view.phase == "lobby" or view.over:
            raise Problem("pause, go on and end are for a seated player, during a game.")
        return view

    async def do_pause(self, args: str) -> None:
        table = self.playing().table
        if table.paused:
            raise Problem("The game is paused already: go on votes to go on.")
        view = self.client.view
        if view is not None and view.seat in table.pause_votes:
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

    async def end_answered(self, line: str) -> None:
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

    async def do_leave(self, args: str) -> None:
        at_table(self.client)
        await self.client.ask(rq.Leave())
