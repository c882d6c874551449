"""The asyncio side of the tables' timing: one timer per table, armed from `pace.due`.

After every change the table's timer is armed afresh from what server/pace.py says is due
next. When it fires, nothing has changed since (a change would have re-armed it), so the bot
makes that seat's move: on a worker thread if the bot thinks long, so that a search never
stalls the other tables.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable

from server.bots.base import Bot
from server.bots.registry import make_bot
from server.game import MoveError, view
from server.pace import Due, due
from server.table import Table

log = logging.getLogger("gother.server")


class Pacer:
    def __init__(self, moved: Callable[[Table], None]) -> None:
        self.moved = moved  # after a bot's move: tell everyone and arm again
        self.timers: dict[str, asyncio.TimerHandle] = {}  # at most one per table
        self.thinking: set[asyncio.Task[None]] = set()  # bots choosing a move now

    def arm(self, table: Table) -> None:
        """(Re)arm the table's timer for its next due bot decision, if there is one."""
        timer = self.timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()
        next_due = due(table)
        if next_due is None:
            return
        delay = max(0.0, next_due.at - table.settings.clock())
        loop = asyncio.get_running_loop()
        self.timers[table.id] = loop.call_later(delay, self._act, table, next_due, table.seq)

    def close(self) -> None:
        """Stop every timer and every bot still thinking (the server is going down)."""
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        for task in self.thinking:
            task.cancel()

    def _act(self, table: Table, next_due: Due, seq: int) -> None:
        del self.timers[table.id]
        if next_due.why == "clock":
            table.clock_ran_out(next_due.seat)
        holder = table.seats[next_due.seat]
        assert holder is not None
        bot = make_bot(holder.bot_kind or table.settings.cover_kind, table.deck, random.Random(seq))
        task = asyncio.get_running_loop().create_task(self._think(table, bot, next_due.seat, seq))
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    async def _think(self, table: Table, bot: Bot, seat: int, seq: int) -> None:
        if table.seq != seq or table.game is None:
            return  # the table changed before the bot began: its new state was armed anew
        seen = view(table.game, seat)
        move = await asyncio.to_thread(bot.choose, seen) if bot.thinks_long else bot.choose(seen)
        if table.seq != seq:
            return  # or while it thought
        try:
            table.apply(move)
        except MoveError:  # a bot bug must not stop the table: log it and let a human see
            log.exception("table %s: bot move %r refused", table.id, move)
            return
        self.moved(table)
