"""The plain client's commands are cut by area (gother_tui/plain/doing/): every command
`help` lists is done by exactly one group, and no group does a command help does not list."""

from __future__ import annotations

import io

from gother_tui.core.options import ClientOptions
from gother_tui.plain.client import PlainClient
from gother_tui.plain.commands import SPECS
from gother_tui.plain.lines import LineCommands
from gother_tui.plain.terminal import Output


async def test_every_command_of_help_is_done_by_exactly_one_group():
    out = Output(io.StringIO(), ascii_only=True)
    commands = LineCommands(PlainClient(ClientOptions(url="ws://127.0.0.1:1", name="Raven"), out))
    done = [
        name.removeprefix("do_")
        for group in commands.groups
        for name in dir(group)
        if name.startswith("do_")
    ]
    assert sorted(done) == sorted(SPECS)  # each once: a second group's would hide the first
    assert set(commands.handlers) == set(SPECS)
