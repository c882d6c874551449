"""A tournament in words, for every face of the client: the open tournaments a lobby
lists, a tournament's heading, how it stands now, a round's tables, the standings and what
their points mean, and the news one `tournament` message brings after the one before.

Plain functions of the protocol's messages (no Textual): the plain mode prints them, the
lobby and the tournament screen show the same sentences.
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


def open_where(row: sm.TournamentRow) -> str:
    """ "registering, 4 players" or "round 2 of 3, 7 players"."""
    where = "registering" if row.phase == "registering" else f"round {row.round} of {row.rounds}"
    return f"{where}, {plural(row.players, 'player')}"


def open_line(rows: tuple[sm.TournamentRow, ...], command: str) -> list[str]:
    """The lobby's line on the server's open tournaments, with the `command` that shows
    them (none when none is open)."""
    if not rows:
        return []
    if len(rows) == 1:
        return [f"Tournament open: {rows[0].name} ({open_where(rows[0])}): {command} shows it."]
    named = ", ".join(f"{row.name} ({open_where(row)})" for row in rows)
    return [f"Tournaments open: {named}: {command} shows them."]


def open_lines(rows: tuple[sm.TournamentRow, ...]) -> list[str]:
    """The open tournaments a line each, with the id that registers in one."""
    return [
        f"  {row.name} ({row.id}): {open_where(row)}, tables of {row.seats}"
        + (", duplicate deals" if row.duplicate else "")
        for row in rows
    ]


def status(t: sm.Tournament) -> str:
    """How the tournament stands now, in one line."""
    if t.phase == "registering":
        return f"Registering: {plural(len(t.players), 'player')} so far; its creator starts it."
    if t.phase == "over":
        leader = t.standings[0].name if t.standings else "nobody"
        return f"Over after {plural(t.rounds, 'round')}: {leader} is first."
    playing = sum(not table.over for table in t.tables)
    if playing:
        return (
            f"Round {t.round} of {t.rounds}: {playing} of {plural(len(t.tables), 'table')} playing."
        )
    return f"Round {t.round} of {t.rounds} is over: the next round is being seated."


def places(t: sm.Tournament) -> dict[str, int]:
    """Each player's place in the standings, by the standings' key."""
    return {row.player: place for place, row in enumerate(t.standings, 1)}


def seated(t: sm.Tournament, table: sm.TournamentTable) -> list[str]:
    """A table's players as "Ann (1st)": their place in the standings, matched by key (a
    table from an older server, which sends no keys, by name only)."""
    place = places(t)
    return [
        f"{name} ({ordinal(place[key])})" if key in place else name
        for name, key in zip(table.players, table.keys or table.players, strict=False)
    ]


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def table_line(number: int, table: sm.TournamentTable, t: sm.Tournament) -> str:
    """ "Table 1 (abc123): Ann (1st), Bea (4th), Cid (7th) and 1 bot, playing"."""
    bots = f" and {plural(table.bots, 'bot')}" if table.bots else ""
    state = "over" if table.over else "playing"
    return f"Table {number} ({table.table}): {', '.join(seated(t, table))}{bots}, {state}"


def points_legend(t: sm.Tournament) -> str:
    """What the standings' points mean, at this tournament's tables (docs/hosting.md says
    why)."""
    first = (
        "Match points first: one for each player who held your seat's cards that round and"
        " did worse, a half for a tie. "
        if t.duplicate
        else ""
    )
    by_place = ", ".join(f"{ordinal(p)} {t.seats - p}" for p in range(1, t.seats + 1))
    return (
        f"{first}Points by place: {by_place} (ties share them); then Goth Points, then the"
        " rating. A seat a bot played most of, or the game you dropped out of, scores nothing."
    )


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
    out = [heading(t), status(t)]
    if t.tables:
        out.append(f"Round {t.round}:")
        out.extend(f"  {table_line(i, table, t)}" for i, table in enumerate(t.tables, 1))
    if t.standings:
        out.append("Standings:")
        out.extend(
            f"  {standing_line(i, row, t.duplicate)}" for i, row in enumerate(t.standings, 1)
        )
        out.append(points_legend(t))
    return out


def news(before: sm.Tournament | None, after: sm.Tournament) -> str | None:
    """One line on what changed that a player wants to hear of, or None. All of it: a
    tournament run at another process of the host is told by its news as it stands at each
    read (server/edge/elsewhere.py), so one message may bring a round seated and a drop."""
    if before is None or before.id != after.id:
        return None
    if after.phase == "over" and before.phase != "over":
        leader = after.standings[0].name if after.standings else "nobody"
        return f"{after.name} is over: {leader} is first. (tournament shows the standings.)"
    said = []
    if after.round > before.round:
        said.append(f"round {after.round} of {after.rounds} is seated.")
    gone = {r.name for r in after.standings if r.dropped} - {
        r.name for r in before.standings if r.dropped
    }
    if gone:
        said.append(f"{', '.join(sorted(gone))} dropped out.")
    return f"{after.name}: {' '.join(said)}" if said else None
