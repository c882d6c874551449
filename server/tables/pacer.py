"""The asyncio side of the tables' timing: one timer per table, armed from `pace.due`.

After every change the table's timer is armed afresh from what server/tables/pace.py says is due
next. Arming is lazy, because most changes only push the deadline later (a move restarts the
next player's patience): the loop's timer is replaced only when the new deadline comes sooner;
one that fires before the table's latest deadline arms itself again for it, so it acts only
at that deadline and on what the last arming saw. When it acts, nothing has changed since (a
change would have armed it again), so it does what is due: a bot makes that seat's move (in
a worker process of the server's searches if the bot thinks long, so that a search never
stalls the other tables; a search that fails or would wait too long gives way to the normal
bot, so the table never stalls), the table warns an idle player, a pause runs out, or a
stopped table tries to write again. Whatever happens, the table is armed again: a bot move
the store refused stops the table, and the retry it arms is what starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable

from server.bots.jobs import BotMove
from server.bots.registry import BotKind, make_bot, word
from server.game import Move, MoveError, View, view
from server.searches import Busy, Searches, SearchFailed
from server.store.database import StoreError
from server.tables.pace import Due, due
from server.tables.table import StoreFailed, Table

log = logging.getLogger("gother.server")


class Pacer:
    def __init__(
        self,
        moved: Callable[[Table], None],
        searches: Searches,
        ended: Callable[[Table], None],
        played: Callable[[], None] = lambda: None,
    ) -> None:
        self.moved = moved  # after a change made here: tell everyone and arm again
        self.played = played  # a bot made a move (the host's count of every move made)
        self.searches = searches  # where the bots that think long think
        self.ended = ended  # every voter wants the game ended: archive the table
        self.timers: dict[str, asyncio.TimerHandle] = {}  # at most one per table
        # table -> (loop time, what is due then, the table's seq): its latest arming
        self.wanted: dict[str, tuple[float, Due, int]] = {}
        self.thinking: set[asyncio.Task[None]] = set()  # bots choosing a move now
        # (table, seat) -> (game, the rounds of it a bot covered an absent player in), kept
        # until that player is back and told (`covered_rounds`)
        self.covered: dict[tuple[str, int], tuple[int, set[int]]] = {}

    def arm(self, table: Table) -> None:
        """(Re)arm the table's timer for what is due next there, if anything."""
        next_due = due(table)
        if next_due is None:
            self.disarm(table)
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + max(0.0, next_due.at - table.settings.clock())
        self.wanted[table.id] = (when, next_due, table.seq)
        timer = self.timers.get(table.id)
        if timer is not None:
            if timer.when() <= when:
                return  # it fires first and waits on for this: no loop timer made a move
            timer.cancel()
        self.timers[table.id] = loop.call_at(when, self._fire, table)

    def disarm(self, table: Table) -> None:
        self.wanted.pop(table.id, None)
        timer = self.timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()

    def close(self) -> None:
        """Stop every timer and every bot still thinking (the server is going down)."""
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        self.wanted.clear()
        for task in self.thinking:
            task.cancel()

    def covered_rounds(self, table: Table, seat: int) -> int:
        """How many rounds of the game on now a bot played for `seat` while its player was
        away; forgotten once asked (the player is back)."""
        game, rounds = self.covered.pop((table.id, seat), (0, set()))
        return len(rounds) if game == table.game_no else 0

    def _cover(self, table: Table, seat: int) -> None:
        assert table.game is not None
        game, rounds = self.covered.get((table.id, seat), (table.game_no, set()))
        if game != table.game_no:  # a game since: its rounds are not this one's
            rounds = set()
        rounds.add(table.game.round)
        self.covered[table.id, seat] = (table.game_no, rounds)

    def _fire(self, table: Table) -> None:
        """The loop's timer: act if the table's latest deadline is this one, else wait on."""
        fired = self.timers.pop(table.id).when()
        when, next_due, seq = self.wanted[table.id]
        if when > fired:  # armed since for later
            self.timers[table.id] = asyncio.get_running_loop().call_at(when, self._fire, table)
            return
        del self.wanted[table.id]
        self._act(table, next_due, seq)

    def _act(self, table: Table, next_due: Due, seq: int) -> None:
        if next_due.why == "bot" and table.settings.heard_by is not None:
            later = due(table)  # more was said since this was armed: the listener first
            if later is not None and later.at > table.settings.clock():
                self.arm(table)
                return
        if next_due.why == "retry":
            if table.try_reopen():
                self.moved(table)
            else:
                self.arm(table)
            return
        if next_due.why == "warn":
            table.warn(next_due.seat)
            self.moved(table)
            return
        if next_due.why == "tally":  # an absent player's grace ended: their vote with it
            if table.tally(table.settings.clock()):
                try:
                    self.ended(table)
                except StoreError as exc:  # the game goes on; the next change counts again
                    log.error("table %s: the game cannot be ended now: %s", table.id, exc)
                return
            table.changed()
            self.moved(table)
            return
        if next_due.why == "go_on":
            table.go_on(table.settings.clock())
            table.changed()
            self.moved(table)
            return
        if next_due.why in ("clock", "idle"):
            table.time_out(next_due.seat)
        holder = table.seats[next_due.seat]
        assert holder is not None
        kind = holder.bot_kind or table.settings.cover_kind
        think = self._think(table, kind, next_due.seat, seq, next_due.why == "cover")
        task = asyncio.get_running_loop().create_task(think)
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    async def _think(self, table: Table, kind: BotKind, seat: int, seq: int, cover: bool) -> None:
        if table.seq != seq or table.game is None or table.retired:
            return  # the table changed before the bot began: its new state was armed anew
        seen = view(table.game, seat, log_size=0)  # no bot reads the log
        try:
            bot = make_bot(kind, table.deck, random.Random(seq), trait=table.trait)
            move = (
                await self._searched(table, kind, seen, seq)
                if bot.thinks_long
                else bot.choose(seen)
            )
        except Exception:  # a bot that fails must not stall its table: the timer re-arms below
            log.exception(
                "table %s: %s bot failed at seat %d; a random move", table.id, word(kind), seat
            )
            move = make_bot("random", table.deck, random.Random(seq)).choose(seen)
        if table.seq != seq or table.retired:
            return  # or while it thought (or the table was archived: its game is over)
        if cover:
            self._cover(table, seat)
        try:
            table.apply(seat, move)
            self.played()
        except StoreFailed:
            pass  # the table stopped and says why; the retry it now arms starts it again
        except MoveError:  # a bot bug must not stall the table: log it, play any legal move
            log.exception("table %s: bot move %r refused; a random one instead", table.id, move)
            fallback = make_bot("random", table.deck, random.Random(seq)).choose(seen)
            with contextlib.suppress(StoreFailed):
                table.apply(seat, fallback)
                self.played()
        self.moved(table)

    async def _searched(self, table: Table, kind: BotKind, seen: View, seq: int) -> Move:
        """The move of a `kind` bot, searched in a worker; the normal bot's if that fails (a
        table never waits on a search that cannot come)."""
        try:
            searched = BotMove(kind, seen, table.deck, seq, table.trait)
            return await self.searches.submit(searched, urgent=True)
        except (Busy, SearchFailed) as exc:
            log.warning(
                "table %s: %s bot's search failed (%s); normal bot moves", table.id, word(kind), exc
            )
            normal = make_bot("heuristic", table.deck, random.Random(seq), trait=table.trait)
            return normal.choose(seen)
