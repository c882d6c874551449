"""The plain client's typed lines, done: each line is one command, checked against the view
before anything is sent, and answered with at least one line.

A move is made from the decision's numbered options or from the player's words
(gother_tui.plain.moves); a placement may be composed in parts (`give … to …` several
times, or `give` alone, which asks seat by seat) and is then sent with `confirm`. Not your
turn, not this step, a card you do not hold, a seat that cannot receive: one line, nothing
sent, nothing changed. Each command is done by its area's group (gother_tui.plain.doing),
found by its name: the group's `do_NAME`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from gother_tui.plain.commands import Command, Unknown, parse
from gother_tui.plain.doing.finished import Finished
from gother_tui.plain.doing.looking import Looking
from gother_tui.plain.doing.placing import Placing
from gother_tui.plain.doing.playing import Playing
from gother_tui.plain.doing.tables import Tables
from gother_tui.plain.doing.tournaments import Tournaments
from gother_tui.plain.moves import Problem

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient

Handler = Callable[[str], Awaitable[bool | None]]  # False: quit
NO_SERVER = frozenset({"help", "quit"})  # commands that need no answer from the server


class LineCommands:
    """Every command of `help`, each done by the group of its area."""

    def __init__(self, client: PlainClient) -> None:
        self.client = client
        self.placing = Placing(client, self.do)
        self.tables = Tables(client)
        self.groups = (
            Looking(client),
            Playing(client),
            self.placing,
            self.tables,
            Finished(client),
            Tournaments(client),
        )
        self.handlers: dict[str, Handler] = {
            name.removeprefix("do_"): getattr(group, name)
            for group in self.groups
            for name in dir(group)
            if name.startswith("do_")
        }

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
        if self.placing.asking is not None and await self.placing.answer(line):
            return True
        if self.tables.ending:
            await self.tables.end_answered(line)
            return True
        command = parse(line)
        quitting = isinstance(command, Command) and command.name == "quit"
        if self.client.flow.wants_password and line and not quitting:
            self.client.password_typed(line)
            return True
        if command is None:
            return True
        if isinstance(command, Unknown):
            self.client.say(command.problem)
            return True
        handler = self.handlers[command.name]
        try:
            return await handler(command.args) is not False
        except Problem as problem:
            self.client.say(str(problem))
            return True
