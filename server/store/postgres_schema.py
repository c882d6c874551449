"""The PostgreSQL store's schema and its upgrades: what spans a host's tables, shared by
every game process of the host (docs/architecture.md, "What crosses to PostgreSQL").

Its tables are the SQLite schema's (schema.py) where both hold the same facts, column for
column, so that a repository reads both with the same SQL: the finished games (tables,
seats, games, moves, chat), names, tournaments. What only a live table needs (its seats'
tokens, its chat as it is said) stays in the log of the process holding it; `tables.log`
names that log while the table is live.

The version is kept in a table of its own (`gother_schema`). A new database is made as
version 0 and brought up by the same steps as an old one; each step is one transaction, taken
under an advisory lock, so two processes starting at once upgrade it once: a database is at
one version or the next, never between.
"""

from __future__ import annotations

from typing import Any

import psycopg

# Any number of ours, the same in every process: the lock the upgrades are taken under.
UPGRADE_LOCK = 0x607E5

VERSION_TABLE = "CREATE TABLE IF NOT EXISTS gother_schema (version INTEGER NOT NULL)"

# UPGRADES[n] takes a database from version n to n + 1, inside one transaction.
UPGRADES = (
    # 1: what spans tables (issue 34 §1), as the SQLite schema holds it at its version 9.
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        seats INTEGER NOT NULL,
        bot_kind TEXT NOT NULL,
        variants TEXT NOT NULL,          -- JSON
        deck_name TEXT NOT NULL,
        deck_toml TEXT NOT NULL,         -- the deck itself, so an edited file cannot break replay
        password_hash TEXT,
        clock TEXT,                      -- JSON {initial, increment} or NULL
        game_no INTEGER NOT NULL DEFAULT 0,  -- its newest game here (0: none finished yet)
        log TEXT,                        -- the table log holding it live; NULL: archived
        trait TEXT                       -- whom its bots hurt (issue 32 §1); NULL: before traits
    );
    CREATE INDEX tables_by_log ON tables (log) WHERE log IS NOT NULL;
    CREATE TABLE seats (                 -- as they were at the table's newest game here
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        token_hash TEXT,                 -- always NULL: a token opens a live table only
        bot_kind TEXT,
        bank DOUBLE PRECISION,
        left_game INTEGER,
        identity TEXT,
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE games (
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        game_no INTEGER NOT NULL,
        seed BIGINT NOT NULL,
        ended TEXT,                      -- 'abandoned' when the players ended it
        outcome TEXT,                    -- JSON (server/tables/outcome.py) once over
        start TEXT,                      -- JSON (protocol/start.py); NULL: dealt
        PRIMARY KEY (table_id, game_no)
    );
    CREATE TABLE moves (
        table_id TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        move BYTEA NOT NULL,             -- msgpack of the wire move
        cover INTEGER NOT NULL DEFAULT 0,  -- 1: a bot played it
        PRIMARY KEY (table_id, game_no, idx),
        FOREIGN KEY (table_id, game_no) REFERENCES games ON DELETE CASCADE
    );
    CREATE TABLE chat (                  -- a table's newest lines, as at its newest game here
        id BIGSERIAL PRIMARY KEY,
        table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        game_no INTEGER NOT NULL,
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        watching INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX chat_by_table ON chat (table_id, id);
    CREATE TABLE names (
        skeleton TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        identity TEXT NOT NULL,
        seen DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX names_by_identity ON names (identity);
    CREATE TABLE tournaments (
        rowid BIGSERIAL UNIQUE,          -- the order they were made in, as SQLite's own rowid
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        seats INTEGER NOT NULL,
        variants TEXT NOT NULL,
        bot TEXT NOT NULL,
        duplicate INTEGER NOT NULL,
        organiser TEXT NOT NULL
    );
    CREATE TABLE tournament_players (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        n INTEGER NOT NULL,
        player TEXT NOT NULL,
        dropped INTEGER NOT NULL DEFAULT 0,
        forfeit TEXT,
        secret TEXT,
        PRIMARY KEY (tournament, player)
    );
    CREATE TABLE tournament_tables (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        n INTEGER NOT NULL,
        table_id TEXT NOT NULL,
        players TEXT NOT NULL,
        PRIMARY KEY (tournament, round, n)
    );
    """,
    # 2: the lobby across the host's processes (issue 34 §2, server/store/directory.py).
    """
    CREATE TABLE processes (             -- a game process of the host, named by its table log
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,               -- where its players connect
        lease_until TIMESTAMPTZ NOT NULL -- on this server's clock: alive until then
    );
    CREATE TABLE lobby (                 -- each live table's `list` row, where it is held
        table_id TEXT PRIMARY KEY,
        process TEXT NOT NULL REFERENCES processes(id) ON DELETE CASCADE,
        entry BYTEA NOT NULL             -- msgpack of the row (protocol TableRow)
    );
    CREATE INDEX lobby_by_process ON lobby (process);
    """,
    # 3: the hints each seat was given (issue 29 §3), crossing with their game, as the SQLite
    # schema's version 10 keeps them.
    """
    CREATE TABLE hints (
        table_id TEXT NOT NULL,
        game_no INTEGER NOT NULL,
        step INTEGER NOT NULL,           -- the moves made before it: the decision it was for
        seat INTEGER NOT NULL,
        move BYTEA NOT NULL,             -- msgpack of the wire move, as `moves.move`
        PRIMARY KEY (table_id, game_no, step, seat),
        FOREIGN KEY (table_id, game_no) REFERENCES games ON DELETE CASCADE
    );
    """,
    # 4: a tournament round's tables placed at the host's processes (issue 34 §2,
    # server/store/placements.py).
    """
    CREATE TABLE placements (            -- a table of a round, to be made at `process`
        tournament TEXT NOT NULL,
        round INTEGER NOT NULL,
        number INTEGER NOT NULL,         -- the table's, in its round (1, 2, ...)
        process TEXT NOT NULL REFERENCES processes(id) ON DELETE CASCADE,
        runner TEXT NOT NULL,            -- the process running the tournament, told when made
        name TEXT NOT NULL,              -- the table's
        seats INTEGER NOT NULL,
        variants TEXT NOT NULL,          -- JSON, as tournaments.variants
        bot TEXT NOT NULL,               -- how its bots play
        seed BIGINT,                     -- duplicate: the round's deal; NULL: the table's own
        players TEXT NOT NULL,           -- JSON [[player, name], ...] in seat order
        table_id TEXT,                   -- the table made there; NULL: not made yet
        PRIMARY KEY (tournament, round, number)
    );
    CREATE INDEX placements_by_process ON placements (process) WHERE table_id IS NULL;
    """,
    # 5: each tournament's lock key, a number of its own (server/store/holds.py): a hash of
    # its id could be another's too, and one would pass for running the other.
    """
    CREATE TABLE tournament_locks (
        id TEXT PRIMARY KEY,             -- the tournament's
        key INTEGER GENERATED ALWAYS AS IDENTITY UNIQUE  -- given once, never again
    );
    """,
)
SCHEMA_VERSION = len(UPGRADES)
# Every table of ours, children first: what `gother db copy --replace` empties.
TABLES = (
    "tournament_tables",
    "tournament_players",
    "tournaments",
    "names",
    "chat",
    "hints",
    "moves",
    "games",
    "seats",
    "tables",
)
# What only running processes write (the lobby across them): emptied too, never copied.
LOBBY = ("tournament_locks", "placements", "lobby", "processes")


def version(connection: psycopg.Connection[Any]) -> int:
    """The schema's version (0: none of ours yet)."""
    made = connection.execute("SELECT to_regclass('gother_schema') IS NOT NULL").fetchone()
    if made is None or not made[0]:
        return 0
    row = connection.execute("SELECT version FROM gother_schema").fetchone()
    return 0 if row is None else int(row[0])


def upgrade(connection: psycopg.Connection[Any]) -> None:
    """Bring the database to SCHEMA_VERSION, one step (one transaction) at a time; one newer
    than this server is refused (psycopg.DataError), never read as if it were ours."""
    while True:
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (UPGRADE_LOCK,))
            connection.execute(VERSION_TABLE)
            found = version(connection)  # again, under the lock: another may have moved it
            if found > SCHEMA_VERSION:
                raise psycopg.DataError(
                    f"schema version {found} is newer than this server's ({SCHEMA_VERSION})"
                )
            if found == SCHEMA_VERSION:
                return
            connection.execute(UPGRADES[found])
            connection.execute("DELETE FROM gother_schema")
            connection.execute("INSERT INTO gother_schema VALUES (%s)", (found + 1,))
