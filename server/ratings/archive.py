"""The standings read back from a host's archive: every outcome the store keeps.

A rebuild reads the stored outcomes (`games.outcome`), not a game's moves, so ten thousand
games take about a second; `rebuild` runs in a process of its own at server start
(Principle 8), opening the database read-only. Games played out before outcomes were
stored are replayed instead (about 2 ms each), their seats as the archive holds them now,
with no time of their end. Which games are practice (at a table made by `play_on`) the
store says, for outcomes stored before as well. An outcome that cannot be read, or a game
that cannot be replayed, is left out and logged: one bad row does not cost a host its
standings.
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
import sys
from pathlib import Path

from server.game import DeckError, Game, MoveError, dealer_for, parse_deck
from server.ratings.standings import Standings
from server.store.outcomes import OutcomeStore
from server.store.sqlite import SqliteStore
from server.store.tables import GameArchive
from server.tables.outcome import Outcome, SeatResult
from server.tables.players import player_id

log = logging.getLogger("gother.server")


def outcomes(stored: OutcomeStore) -> list[Outcome]:
    read = []
    practice = stored.practice_tables()
    for table, game, text in stored.all():
        try:
            outcome = Outcome.from_json(table, game, text)
            read.append(dataclasses.replace(outcome, practice=table in practice))
        except (ValueError, TypeError, KeyError) as exc:
            log.error("game %d of table %s: its outcome cannot be read (%r)", game, table, exc)
    return read


def replayed(stored: OutcomeStore, archive: GameArchive) -> list[Outcome]:
    """The outcomes of games played out before outcomes were stored, by replaying them."""
    read = []
    for table_id, game_no in stored.games_without_outcome():
        try:
            record = archive.table(table_id)
            seed, moves = archive.game(table_id, game_no)
            assert seed is not None  # the games row holds it
            game = Game.replay(
                parse_deck(record.deck_toml, record.deck_name),
                record.seats,
                seed,
                moves,
                record.variants,
                dealer_for(game_no, record.seats),
                archive.start(table_id, game_no),
            )
        except (ValueError, TypeError, KeyError, DeckError, MoveError) as exc:
            log.error("game %d of table %s cannot be replayed (%r)", game_no, table_id, exc)
            continue
        if game.winners is None:
            continue  # still being played
        if [s.seat for s in record.seat_records] != list(range(record.seats)):
            log.error("game %d of table %s has a seat missing", game_no, table_id)
            continue
        seats = tuple(
            SeatResult(player_id(s.name, s.bot_kind, s.identity), game.goth[s.seat], 1.0, s.name)
            for s in record.seat_records
        )
        practice = archive.played_on(table_id)
        read.append(Outcome(table_id, game_no, "", seats, game.winners, practice))
    return read


def rebuild(db: str) -> Standings:
    """The standings of the database at `db` (none for a database not yet made)."""
    if db == ":memory:" or not Path(db).is_file():
        return Standings()
    store = SqliteStore(db, readonly=True)
    try:
        return Standings.rebuild(outcomes(store.outcomes) + replayed(store.outcomes, store.tables))
    finally:
        store.close()


if __name__ == "__main__":  # the server's rebuild at start (server/ratings/host.py)
    sys.stdout.buffer.write(pickle.dumps(rebuild(sys.argv[1])))
