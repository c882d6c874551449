"""A host's standings as people read them: one row of words per player (rank, name,
rating with how far off it may be, games, wins, places, last seen) and the lines that say
what the marks mean, for the lobby's standings, the tournament screen's rating, the plain
mode's `standings` and `gother standings URL`; and fetching them for that command.
"""

from __future__ import annotations

from gother_tui.core.fetch import Ask, asking
from gother_tui.core.glyphs import Glyphs, glyphs_for, wants_ascii
from gother_tui.core.trust import Trust
from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.constants import RATING_START

COLUMNS = ("#", "Player", "Rating", "Games", "Wins", "Places", "Last seen")
MAX_PAGES = 20  # of STANDINGS_PAGE rows: a command line shows the top thousand at most


class StandingsError(ValueError):
    pass


def legend(g: Glyphs) -> list[str]:
    """What the marks mean, a line each (the help and docs/hosting.md say it at length)."""
    return [
        f"Ratings start at {RATING_START}, the normal bot's; {g.spread.strip()}: how far off"
        " one may still be (95 % sure); = a bot's, fixed.",
        f"Places: how many games finished 1st/2nd/3rd{g.ellipsis}",
    ]


def rating_cell(g: Glyphs, rating: float, spread: int | None, fixed: bool = False) -> str:
    """A rating as every face shows it: "1523 ±240", "1500 =" for a reference bot; an
    older server's number (it sends no spread) as it sent it."""
    if spread is None:
        return f"{rating:.1f}"
    return f"{rating:.0f} =" if fixed else f"{rating:.0f} {g.spread}{spread}"


def cells(g: Glyphs, rank: int, row: sm.StandingsRow) -> tuple[str, ...]:
    places = "/".join(str(n) for n in row.places) or "-"
    mu = row.mu if row.rating is None else row.rating  # an older server's is openskill's
    return (
        str(rank),
        row.name,
        rating_cell(g, mu, row.spread, row.reference),
        str(row.games),
        str(row.wins),
        places,
        row.last_seen[:10],  # the day is enough to see who still comes
    )


def rows_of(g: Glyphs, pages: list[sm.Standings]) -> list[tuple[str, ...]]:
    return [cells(g, page.offset + i + 1, row) for page in pages for i, row in enumerate(page.rows)]


def table_lines(pages: list[sm.Standings], g: Glyphs | None = None) -> list[str]:
    """The standings as aligned text, a header first, then what the marks mean (in the
    terminal's glyphs unless told)."""
    g = g or glyphs_for(wants_ascii())
    rows = rows_of(g, pages)
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
    return [*lines, *legend(g)]


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
