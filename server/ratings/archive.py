"""The standings read back from a host's archive: every outcome the store keeps.

A rebuild reads only the stored outcomes (`games.outcome`), never a game's moves, so ten
thousand games take about a second; `rebuild` runs in a process of its own at server start
(Principle 8), opening the database read-only. An outcome that cannot be read is left out
and logged: one bad row does not cost a host its standings.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from server.ratings.outcome import Outcome
from server.ratings.standings import Standings
from server.store import Store

log = logging.getLogger("gother.server")


def outcomes(store: Store) -> list[Outcome]:
    read = []
    for table, game, text in store.outcomes():
        try:
            read.append(Outcome.from_json(table, game, json.loads(text)))
        except (ValueError, TypeError, KeyError) as exc:
            log.error("game %d of table %s: its outcome cannot be read (%r)", game, table, exc)
    return read


def rebuild(db: str) -> Standings:
    """The standings of the database at `db` (none for a database not yet made)."""
    if db == ":memory:" or not Path(db).is_file():
        return Standings()
    store = Store(db, readonly=True)
    try:
        return Standings.rebuild(outcomes(store))
    finally:
        store.close()
