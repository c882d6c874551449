"""Persistence, as repositories: each aggregate of the host's data (tables.py: tables with
their seats, games, moves and chat; people.py: names and the identities owning them;
outcomes.py: how games ended, for the ratings; tournaments.py) in a module of its own, with
its record types and the typed interface (a Protocol) its callers are given. schema.py is
the SQLite schema and its versioned upgrades, database.py the one connection and owner of
transactions, sqlite.py the embedded store made of them all. No SQL is written elsewhere.
"""
