"""Who must act next at a table, when, and why: a pure function of the table.

The game waits on one seat's decision at a time. A bot seat plays `bot_delay` after that
decision began, so people can follow; an absent player keeps the decision for the grace
period, then a bot covers for them; a present player on a clock has until their bank runs
out, then a bot finishes that turn for them. A present player without a clock is simply
waited for. The answer carries its own time (on the table's clock, `Settings.clock`), so
this needs no clock of its own: a time already past means "now". server/pacer.py arms one
timer from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from server.table import Table

Why = Literal["bot", "cover", "clock"]


@dataclass(frozen=True, slots=True)
class Due:
    """A bot must make `seat`'s decision at time `at`, because of `why`."""

    seat: int
    at: float
    why: Why


def due(table: Table) -> Due | None:
    """The next decision a bot must make at this table, or None if it waits on a person."""
    game = table.game
    if game is None or game.over:
        return None
    seat = game.to_act()
    assert seat is not None
    holder = table.seats[seat]
    assert holder is not None
    if holder.is_bot:
        return Due(seat, table.decision_since + table.settings.bot_delay, "bot")
    if table.clock_out == seat:  # a bot is finishing this turn: each of its moves at once
        return Due(seat, table.decision_since, "clock")
    if holder.peer is None:
        assert holder.away_since is not None
        return Due(seat, holder.away_since + table.settings.grace, "cover")
    if table.clock_rule is not None:
        return Due(seat, table.decision_since + holder.bank, "clock")
    return None
