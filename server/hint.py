"""`hint`: what the cover bot would do in a seat now, from that seat's own view only."""

from __future__ import annotations

import random
from typing import Any

from protocol import ProtocolError
from server.bots.registry import make_bot
from server.game import view
from server.table import Table


def hint(table: Table, seat: int) -> dict[str, Any]:
    """The wire move the bot suggests; the bot sees nothing the seat cannot (issue 2)."""
    if table.game is None or table.game.over:
        raise ProtocolError("not_started", "there is no game in progress")
    seen = view(table.game, seat, log_size=0)
    if seen.legal is None:
        raise ProtocolError("not_your_turn", "there is no decision of yours to hint at")
    bot = make_bot(table.settings.cover_kind, table.deck, random.Random(table.seq))
    return bot.choose(seen).to_wire()
