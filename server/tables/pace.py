"""Who must act next at a table, when, and why: a pure function of the table.

The game waits on one seat's decision at a time. A bot seat plays `bot_delay` after that
decision began, so people can follow (and not before a private server's listener has heard
the last line said: `heard_by`); an absent player keeps the decision for the grace
period, then a bot covers for them; a present player has until their clock bank (at a table
with a clock) or their patience (`idle`) runs out, whichever comes first, then a bot
finishes that turn for them; everyone is warned `warn` seconds before (0: no warning). A paused game
waits for nothing but the pause's end; a stopped table (a failed write) only for a retry.
A vote (pause, go on, end) that every present player gave waits for the absent ones until
their grace ends: then it is counted again ("tally"), before any cover bot moves.
The answer carries its own time (on the table's clock, `Settings.clock`), so this needs no
clock of its own: a time already past means "now". server/tables/pacer.py arms one timer from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Callable

    from server.tables.table import Seat, Table

Why = Literal["bot", "cover", "clock", "idle", "warn", "go_on", "retry", "tally"]
RETRY = 5.0  # seconds between attempts to write again at a stopped table


@dataclass(frozen=True, slots=True)
class Due:
    """Something must happen for `seat` at time `at`, because of `why`: a bot makes the
    seat's decision ("bot", "cover", "clock", "idle"), or the table warns ("warn"), ends its pause
    ("go_on"), tries to write again ("retry") or counts its votes again ("tally")."""

    seat: int
    at: float
    why: Why


def due(table: Table) -> Due | None:
    """What must happen next at this table, or None if it waits on a person (or is retired:
    its game is archived, nothing happens there any more)."""
    if table.retired:
        return None
    next_due = _due(table)
    carries = None if table.stopped is not None else _vote_carries(table)
    if carries is not None and (next_due is None or carries <= next_due.at):
        return Due(next_due.seat if next_due else 0, carries, "tally")  # before a cover move
    return next_due


def _vote_carries(table: Table) -> float | None:
    """When a vote every present player gave carries because the last absent player who
    has not given it runs out of grace (None: no such vote)."""
    game = table.game
    if game is None or game.over:
        return None
    paused = table.turn.paused_at is not None
    if not paused and not any(s is not None and (s.end or s.pause) for s in table.seats):
        return None  # nobody voted: the common case, asked after every move
    humans = [s for s in table.seats if s is not None and not s.is_bot]
    present = [s for s in humans if s.away_since is None]
    votes: list[Callable[[Seat], bool]] = [
        lambda s: s.end,
        lambda s: not s.pause if paused else s.pause,
    ]
    times = []
    for agrees in votes:
        if present and all(agrees(s) for s in present):
            waiting = [s.away_since for s in humans if s.away_since is not None and not agrees(s)]
            if waiting:
                times.append(max(waiting) + table.settings.grace)
    if paused and not present:  # nobody left to hold the pause once the last grace ends
        away = [s.away_since for s in humans if s.away_since is not None]
        times.append(max(away) + table.settings.grace if away else table.settings.clock())
    return min(times, default=None)


def _due(table: Table) -> Due | None:
    game = table.game
    if table.stopped is not None:
        acting = None if game is None else game.to_act()
        return Due(acting or 0, table.write_failed_at + RETRY, "retry")
    if game is None or game.over:
        return None
    seat = game.to_act()
    assert seat is not None
    if table.turn.paused_at is not None:
        return Due(seat, table.turn.paused_at + table.settings.pause_max, "go_on")
    holder = table.seats[seat]
    assert holder is not None
    if holder.is_bot:
        settings = table.settings
        at = table.turn.since + settings.bot_delay
        if settings.heard_by is not None:  # and the listener has heard what was said
            at = max(at, settings.heard_by())
        return Due(seat, at, "bot")
    if table.turn.timed_out == seat:  # a bot is finishing this turn: each of its moves at once
        return Due(seat, table.turn.since, "clock")
    if holder.peer is None:
        assert holder.away_since is not None
        return Due(seat, holder.away_since + table.settings.grace, "cover")
    patience, on_clock = table.patience(seat)
    lead = min(table.settings.warn, patience / 2)  # a short bank gets a short warning
    if lead > 0 and table.turn.warned != seat:
        return Due(seat, table.turn.since + patience - lead, "warn")
    return Due(seat, table.turn.since + patience, "clock" if on_clock else "idle")
