"""A tournament in words, for every face of the client: its heading, a round's tables, the
standings, and the news one `tournament` message brings after the one before.

Plain functions of the protocol's `Tournament` (no Textual): the plain mode prints them,
the tournament screen shows the same sentences above its tables.
"""

from __future__ import annotations

from gother_tui.core.narrator import plural
from protocol import server_messages as sm


def heading(t: sm.Tournament) -> str:
    """ "Big Night (n1): round 2 of 3, tables of 4, duplicate deals"."""
    where = {
        "registering": f"registering, {plural(len(t.players), 'player')}",
        "playing": f"round {t.round} of {t.rounds}",
        "over": f"over after {plural(t.rounds, 'round')}",
    }.get(t.phase, t.phase)
    extra = ", duplicate deals" if t.duplicate else ""
    return f"{t.name} ({t.id}): {where}, tables of {t.seats}{extra}"


def table_line(number: int, table: sm.TournamentTable) -> str:
    """ "Table 1 (abc123): Ann, Bea, Cid and 1 bot, playing"."""
    bots = f" and {plural(table.bots, 'bot')}" if table.bots else ""
    state = "over" if table.over else "playing"
    return f"Table {number} ({table.table}): {', '.join(table.players)}{bots}, {state}"


def number(value: float) -> str:
    """Points as people write them: 3, 2.5."""
    return f"{value:g}"


def standing_line(place: int, row: sm.TournamentStanding, duplicate: bool) -> str:
    """ "1. Ann: 5 points, 31 Goth, 2 games" (with match points first under duplicate)."""
    match = f"{number(row.match_points)} match points, " if duplicate else ""
    dropped = ", dropped out" if row.dropped else ""
    return (
        f"{place}. {row.name}: {match}{plural_points(row.points)}, {row.goth} Goth, "
        f"{plural(row.games, 'game')}{dropped}"
    )


def plural_points(value: float) -> str:
    return f"{number(value)} point{'' if value == 1 else 's'}"


def lines(t: sm.Tournament) -> list[str]:
    """The whole tournament: its heading, the current round's tables, the standings."""
    out = [heading(t)]
    if t.tables:
        out.append(f"Round {t.round}:")
        out.extend(f"  {table_line(i, table)}" for i, table in enumerate(t.tables, 1))
    if t.standings:
        out.append("Standings:")
        out.extend(
            f"  {standing_line(i, row, t.duplicate)}" for i, row in enumerate(t.standings, 1)
        )
    return out


def news(before: sm.Tournament | None, after: sm.Tournament) -> str | None:
    """One line on what changed that a player wants to hear of, or None."""
    if before is None or before.id != after.id:
        return None
    if after.phase == "over" and before.phase != "over":
        leader = after.standings[0].name if after.standings else "nobody"
        return f"{after.name} is over: {leader} is first. (tournament shows the standings.)"
    if after.round > before.round:
        return f"{after.name}: round {after.round} of {after.rounds} is seated."
    gone = {r.name for r in after.standings if r.dropped} - {
        r.name for r in before.standings if r.dropped
    }
    if gone:
        return f"{after.name}: {', '.join(sorted(gone))} dropped out."
    return None
