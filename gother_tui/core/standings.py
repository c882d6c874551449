"""A host's standings as people read them: one row of words per player (rank, name,
rating with "?" while provisional, games, wins, places, last seen), for the lobby's
standings, the plain mode's `standings` and `gother standings URL`; and fetching them for
that command.
"""

from __future__ import annotations

from typing import Any

from protocol import ProtocolError
from protocol import server_messages as sm

COLUMNS = ("#", "Player", "Rating", "Games", "Wins", "Places", "Last seen")
FETCH_TIMEOUT = 10.0  # seconds for each answer of a server
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


def fetch_standings(url: str, name: str, password: str | None = None) -> list[sm.Standings]:
    """Every page of the standings of the server at `url`; StandingsError with one
    sentence when they cannot be had."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode

    def ask(ws: Any, message: dict[str, Any]) -> sm.Message:
        ws.send(encode(message))
        while True:  # skip broadcasts; the reply is the one frame that is not one
            try:
                reply = sm.parse(decode(ws.recv(timeout=FETCH_TIMEOUT)))
            except ProtocolError as exc:
                raise StandingsError(f"{url} sent something unreadable: {exc.message}") from None
            if isinstance(reply, sm.Error):
                raise StandingsError(f"{url}: {reply.message}")
            if reply is not None and not isinstance(reply, sm.State | sm.Chat):
                return reply

    hello: dict[str, Any] = {"t": "hello", "v": PROTOCOL_VERSION, "name": name}
    if password is not None:
        hello["password"] = password
    pages: list[sm.Standings] = []
    try:
        with connect(url, max_size=MAX_FRAME, compression=None, open_timeout=FETCH_TIMEOUT) as ws:
            ask(ws, hello)
            while len(pages) < MAX_PAGES:
                offset = sum(len(page.rows) for page in pages)
                page = ask(ws, {"t": "standings", "offset": offset})
                if not isinstance(page, sm.Standings):
                    raise StandingsError(f"{url} did not answer with standings")
                pages.append(page)
                if not page.rows or offset + len(page.rows) >= page.total:
                    break
    except (OSError, TimeoutError, WebSocketException) as exc:
        raise StandingsError(f"cannot fetch the standings from {url}: {exc}") from None
    return pages
