"""The embedded store's schema (SQLite) and its upgrades.

The schema has a version (`PRAGMA user_version`): a new database is made as version 0 and
brought up by the same upgrade steps as an old one, so both paths are one. Each step is one
transaction: a database is at one version or the next, never between.
"""

from __future__ import annotations

import sqlite3

CHAT_STORED = 50  # chat lines kept per table: history is bounded, not a log of everything

# Version 0: the schema before it had a version (tests/tables/fixtures/schema0.db).
SCHEMA_0 = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    seats INTEGER NOT NULL,
    bot_kind TEXT NOT NULL,
    variants TEXT NOT NULL,          -- JSON
    deck_name TEXT NOT NULL,
    deck_toml TEXT NOT NULL,         -- the deck itself, so an edited file cannot break replay
    password_hash TEXT,
    clock TEXT,                      -- JSON {initial, increment} or NULL
    game_no INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT,
    bot_kind TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables(id),
    game_no INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    PRIMARY KEY (table_id, game_no)
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move BLOB NOT NULL,              -- msgpack of the wire move
    PRIMARY KEY (table_id, game_no, idx)
);
CREATE TABLE IF NOT EXISTS chat (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
"""
# UPGRADES[n] takes a database from version n to n + 1, inside one transaction.
UPGRADES = (
    # 1: clock banks survive a restart (issue 13, item 11); finished and deserted tables
    # move to an archive instead of counting as live; chat history is bounded per table.
    f"""
    ALTER TABLE seats ADD COLUMN bank REAL;      -- clock seconds left as its decision began
    ALTER TABLE tables ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN ended TEXT;     -- 'abandoned' when the players ended it
    CREATE INDEX chat_by_table ON chat (table_id, id);
    CREATE TABLE probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    DELETE FROM chat WHERE id IN (
        SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY table_id ORDER BY id DESC) AS n
            FROM chat
        ) WHERE n > {CHAT_STORED}
    );
    """,
    # 2: a spectator's chat line stays marked as watching after a restart (issue 18, item 3).
    "ALTER TABLE chat ADD COLUMN watching INTEGER NOT NULL DEFAULT 0;",
    # 3: standings and ratings (issue 21): how each finished game ended, which moves a bot
    # made for a seat's player, and the game in which a player left their seat to a bot.
    """
    ALTER TABLE games ADD COLUMN outcome TEXT;   -- JSON (server/tables/outcome.py) once over
    ALTER TABLE moves ADD COLUMN cover INTEGER NOT NULL DEFAULT 0;  -- 1: a bot played it
    ALTER TABLE seats ADD COLUMN left_game INTEGER;  -- its player left during this game
    """,
    # 4: tournaments (issue 21): what a restart cannot derive. Results are not stored: they
    # are the stored outcomes of game 1 of each tournament table.
    """
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        seats INTEGER NOT NULL,
        variants TEXT NOT NULL,  -- JSON
        bot TEXT NOT NULL,
        duplicate INTEGER NOT NULL,
        organiser TEXT NOT NULL  -- the PlayerId of its creator
    );
    CREATE TABLE tournament_players (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        n INTEGER NOT NULL,  -- registration order
        player TEXT NOT NULL,  -- a PlayerId
        dropped INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament, player)
    );
    CREATE TABLE tournament_tables (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        n INTEGER NOT NULL,  -- the table's number in its round
        table_id TEXT NOT NULL,
        players TEXT NOT NULL,  -- JSON: the PlayerIds at it in seat order
        PRIMARY KEY (tournament, round, n)
    );
    """,
    # 5: lasting identities (issue 18, item 2): the identity a seat is held by, so it comes
    # back without its token; and every name's first identity (item 3), by skeleton.
    """
    ALTER TABLE seats ADD COLUMN identity TEXT;
    CREATE TABLE names (
        skeleton TEXT PRIMARY KEY,  -- one of protocol.text.skeletons(name)
        name TEXT NOT NULL,         -- as its owner wrote it
        identity TEXT NOT NULL,
        seen REAL NOT NULL          -- when its owner last used it (Unix time)
    );
    """,
    # 6: a game played on from a position of another (issue 22 §3) begins there, not at a
    # deal from its seed: the position is part of the game, as its seed and moves are.
    """
    ALTER TABLE games ADD COLUMN start TEXT;  -- JSON (protocol/start.py); NULL: dealt
    """,
    # 7: a tournament player's points stop at their drop (issue 29 §4): the table whose game
    # was still being played when they dropped out scores nothing for them.
    """
    ALTER TABLE tournament_players ADD COLUMN forfeit TEXT;  -- a table id, or NULL
    """,
    # 8: an anonymous player's tournament entry is theirs by a secret (issue 31 §2): its hash.
    """
    ALTER TABLE tournament_players ADD COLUMN secret TEXT;  -- NULL: its identity proves it
    """,
    # 9: whom a table's bots hurt (issue 32 §1); NULL: a table from before bots had a
    # trait, whose bots were vengeful.
    """
    ALTER TABLE tables ADD COLUMN trait TEXT;
    """,
    # 10: the hints each seat was given (issue 29 §3): a review says which moments were the
    # hint's own advice, and never calls one a mistake.
    """
    CREATE TABLE hints (
        table_id TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        step INTEGER NOT NULL,           -- the moves made before it: the decision it was for
        seat INTEGER NOT NULL,
        move BLOB NOT NULL,              -- msgpack of the wire move, as `moves.move`
        PRIMARY KEY (table_id, game_no, step, seat)
    );
    """,
    # 11: a move's row kept in its key's b-tree alone (WITHOUT ROWID): a move's commit then
    # writes one page, not a row's page and its key's index page (issue 34 §5: a move's
    # insert 16 -> 11 µs).
    """
    CREATE TABLE moves_keyed (
        table_id TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        move BLOB NOT NULL,
        cover INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, game_no, idx)
    ) WITHOUT ROWID;
    INSERT INTO moves_keyed (table_id, game_no, idx, seat, move, cover)
        SELECT table_id, game_no, idx, seat, move, cover FROM moves;
    DROP TABLE moves;
    ALTER TABLE moves_keyed RENAME TO moves;
    """,
)
SCHEMA_VERSION = len(UPGRADES)
# a table made by `play_on`: its first game began at a position, not at a deal
PLAYED_ON = "game_no = 1 AND start IS NOT NULL"


def version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def upgrade(db: sqlite3.Connection) -> None:
    """Bring the database to SCHEMA_VERSION, one step (one transaction) at a time; one
    newer than this server is refused (sqlite3.DatabaseError), never read as if it were ours."""
    db.executescript(SCHEMA_0)
    found = version(db)
    if found > SCHEMA_VERSION:
        raise sqlite3.DatabaseError(
            f"schema version {found} is newer than this server's ({SCHEMA_VERSION})"
        )
    for step in range(found, SCHEMA_VERSION):
        # executescript commits first; BEGIN…COMMIT in the script makes the step atomic
        db.executescript(f"BEGIN; {UPGRADES[step]}; PRAGMA user_version = {step + 1}; COMMIT;")
