"""Who must act next at a table, when, and why: a pure function of the table.

The game waits on one seat's decision at a time. A bot seat plays `bot_delay` after that
decision began, so people can follow; an absent player keeps the decision for the grace
period, then a bot covers for them; a present player has until their clock bank (at a table
with a clock) or their patience (`idle`) runs out, whichever comes first, then a bot
finishes that turn for them; everyone is warned `warn` seconds before (0: no warning). A paused game
waits for nothing but the pause's end; a stopped table (a failed write) only for a retry.
The answer carries its own time (on the table's clock, `Settings.clock`), so this needs no
clock of its own: a time already past means "now". server/pacer.py arms one timer from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from server.table import Table

Why = Literal["bot", "cover", "clock", "idle", "warn", "go_on", "retry"]
RETRY = 5.0  # seconds between attempts to write again at a stopped table


@dataclass(frozen=True, slots=True)
class Due:
    """Something must happen for `seat` at time `at`, because of `why`: a bot makes the
    seat's decision ("bot", "cover", "clock", "idle"), or the table warns ("warn"), ends its pause
    ("go_on") or tries to write again ("retry")."""

    seat: int
    at: float
    why: Why


def due(table: Table) -> Due | None:
    """What must happen next at this table, or None if it waits on a person."""
    game = table.game
    if table.stopped is not None:
        acting = None if game is None else game.to_act()
        return Due(acting or 0, table.write_failed_at + RETRY, "retry")
    if game is None or game.over:
        return None
    seat = game.to_act()
    assert seat is not None
    if table.paused_at is not None:
        return Due(seat, table.paused_at + table.settings.pause_max, "go_on")
    holder = table.seats[seat]
    assert holder is not None
    if holder.is_bot:
        return Due(seat, table.decision_since + table.settings.bot_delay, "bot")
    if table.timed_out == seat:  # a bot is finishing this turn: each of its moves at once
        return Due(seat, table.decision_since, "clock")
    if holder.peer is None:
        assert holder.away_since is not None
        return Due(seat, holder.away_since + table.settings.grace, "cover")
    patience, why = _patience(table, seat)
    lead = min(table.settings.warn, patience / 2)  # a short bank gets a short warning
    if lead > 0 and table.warned != seat:
        return Due(seat, table.decision_since + patience - lead, "warn")
    return Due(seat, table.decision_since + patience, why)


def _patience(table: Table, seat: int) -> tuple[float, Why]:
    """How long a present player may think: their bank or the table's patience, first out."""
    holder = table.seats[seat]
    assert holder is not None
    if table.clock_rule is not None and holder.bank <= table.settings.idle:
        return holder.bank, "clock"
    return table.settings.idle, "idle"


def cover_warning(table: Table, now: float) -> tuple[int, float] | None:
    """(seat, seconds left) once the acting player was warned that a bot covers them soon."""
    game = table.game
    seat = table.warned
    if seat is None or game is None or game.over or game.to_act() != seat:
        return None
    if table.paused_at is not None or table.timed_out == seat:
        return None
    patience, _ = _patience(table, seat)
    return seat, round(max(0.0, table.decision_since + patience - now), 1)
