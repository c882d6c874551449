"""A host's standings as people read them: one row of words per player (rank, name,
rating with "?" while provisional, games, wins, places, last seen), for the lobby's
standings, the plain mode's `standings` and `gother standings URL`; and fetching them for
that command.
"""

from __future__ import annotations

from gother_tui.core.fetch import Ask, asking
from gother_tui.core.trust import Trust
from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from protocol import server_messages as sm

COLUMNS = ("#", "Player", "Rating", "Games", "Wins", "Places", "Last seen")
MAX_PAGES = 20  # of STANDINGS_PAGE rows: a command line shows the top thousand at most


class StandingsError(ValueError):
    pass


def rating(row: sm.StandingsRow) -> str:
    """The rating to one decimal; "?" after it while it is provisional, "=" for the
    reference bots, whose rating is fixed."""
    mark = "?" if row.provisional else "=" if row.reference else ""
    return f"{row.mu:.1f}{mark}"


def cells(rank: int, row: sm.StandingsRow) -> tuple[str, ...]:
    places = "/".join(str(n) for n in row.places) or "-"
    return (
        str(rank),
        row.name,
        rating(row),
        str(row.games),
        str(row.wins),
        places,
        row.last_seen[:10],  # the day is enough to see who still comes
    )


def rows_of(pages: list[sm.Standings]) -> list[tuple[str, ...]]:
    return [cells(page.offset + i + 1, row) for page in pages for i, row in enumerate(page.rows)]


def table_lines(pages: list[sm.Standings]) -> list[str]:
    """The standings as aligned text, a header first, and a line on what the marks mean."""
    rows = rows_of(pages)
    if not rows and pages and pages[0].total:
        return [
            f"No one from rank {pages[0].offset + 1}: the standings have {pages[0].total} players."
        ]
    if not rows:
        return ["No finished games on this host yet."]
    widths = [max(len(r[i]) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [COLUMNS, *rows]
    ]
    games = pages[0].provisional_games
    lines.append(
        f"? provisional (fewer than {games} games)  = a reference bot (fixed rating)"
        "  places: 1st/2nd/3rd…"
    )
    return lines


def fetch_standings(
    url: str, name: str, password: str | None = None, trust: Trust | None = None
) -> list[sm.Standings]:
    """Every page of the standings of the server at `url`; StandingsError with one
    sentence when they cannot be had. `trust`: the wss:// certificates trusted, as
    `gother join` trusts them."""
    hello = rq.Hello(v=PROTOCOL_VERSION, name=name, password=password)

    async def every_page(ask: Ask) -> list[sm.Standings]:
        pages: list[sm.Standings] = []
        while len(pages) < MAX_PAGES:
            offset = sum(len(page.rows) for page in pages)
            page = await ask(rq.Standings(offset=offset))
            if not isinstance(page, sm.Standings):
                raise StandingsError(f"{url} did not answer with standings")
            pages.append(page)
            if not page.rows or offset + len(page.rows) >= page.total:
                break
        return pages

    return asking(url, hello, StandingsError, "the standings", every_page, trust=trust)
