"""What each store call costs where the game's loop makes it, SQLite and PostgreSQL side by
side (issue 34 §1): printed, never asserted.

    .venv/bin/python bench/store.py [--games 40] [--moves 200] [--url postgresql://…]

Without --url, a PostgreSQL of its own is started on 127.0.0.1 (tests/kits/pgkit.py), with
fsync on, as a host runs it. Each of `--games` games goes through a host's life: a table made
(`save_table`: with PostgreSQL its id taken host-wide, then the table log), seated and dealt,
`--moves` moves (`add_move`: the table log in both: no trip to PostgreSQL), chat, the game's
end (`finish_game`: with PostgreSQL the whole game crosses in one transaction), what a
record or review reads of it (the archive), the table leaving (`archive_table`); and per
game a hello's name check (`name_owners`), an owner's name claimed (`claim_name`), a
tournament entry and round. Each call's wall time: median and 99th percentile, in µs. Then
the lobby across processes (issue 34 §2): a process publishing `--tables` rows, renewing,
and another reading them, as its thread does every 2 s.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from protocol.moves import DiscardFate
from protocol.text import skeletons
from protocol.view import Variants
from server.game import default_deck_text
from server.store.kinds import Store, open_store
from server.store.tables import ChatLine, SeatRecord, TableRecord
from server.store.tournaments import TournamentRecord

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.kits.pgkit import Cluster, missing  # noqa: E402

OUTCOME = '{"finished": "2026-01-01T00:00:00+00:00", "seats": [], "winners": [0]}'
CALLS = (
    "add_move",
    "save_table",
    "finish_game",
    "read a record",
    "archive_table",
    "name_owners",
    "claim_name",
    "has_table",
    "add_tournament_player",
    "save_tournament_round",
)


def run(store: Store, games: int, moves: int, prefix: str) -> dict[str, list[float]]:
    took: dict[str, list[float]] = defaultdict(list)

    def timed(name: str, call: Callable[..., object], *args: object, **named: object) -> None:
        started = time.perf_counter()
        call(*args, **named)
        took[name].append(time.perf_counter() - started)

    night = f"{prefix}n"
    store.tournaments.save_tournament(
        TournamentRecord(night, "Night", games, 4, Variants(), "normal", False, "org")
    )
    for g in range(games):
        table = f"{prefix}{g:05d}"
        record = TableRecord(
            table, "Crypt", 4, "normal", Variants(), "original", default_deck_text(), None, None
        )
        timed("has_table", store.tables.has_table, table)
        timed("save_table", store.tables.save_table, record)
        seats = [SeatRecord(s, f"P{s}", f"token{s}", None, identity=f"id{s}") for s in range(4)]
        store.tables.save_seats(table, seats)
        store.tables.start_game(table, 1, seed=g)
        for idx in range(moves):
            move = DiscardFate(idx % 55)
            timed("add_move", store.tables.add_move, table, 1, idx, idx % 4, move)
            if idx % 40 == 0:
                store.tables.add_chat(table, 1, ChatLine("P0", "well played"))
        timed("finish_game", store.outcomes.finish_game, table, 1, OUTCOME)
        timed("read a record", _read, store, table)
        timed("archive_table", store.tables.archive_table, table, abandoned=False)
        name = f"{prefix}Player{g}"
        keys = skeletons(name)
        timed("name_owners", store.people.name_owners, keys)
        timed("claim_name", store.people.claim_name, keys, name, f"id{g}", 1.0)
        timed("add_tournament_player", store.tournaments.add_tournament_player, night, g, name)
        rounds = [(table, ["a", "b"])]
        timed(
            "save_tournament_round", store.tournaments.save_tournament_round, night, g + 1, rounds
        )
    return took


def _read(store: Store, table: str) -> None:
    """What a record, a review or a game played on reads of a finished game."""
    archive = store.archive
    archive.has_table(table)
    archive.table(table)
    archive.game(table, 1)
    archive.start(table, 1)
    archive.ended(table, 1)
    archive.movers(table, 1)
    store.outcomes.has_outcome(table, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--tables", type=int, default=1000, help="a process's, in the lobby")
    parser.add_argument("--url", help="a PostgreSQL database to use (empty; default: our own)")
    args = parser.parse_args()
    cluster = None
    url = args.url
    if url is None:
        reason = missing()
        if reason is not None:
            raise SystemExit(f"no PostgreSQL to measure: {reason}")
        cluster = Cluster.started(durable=True)
        url = cluster.new_database()
    try:
        with tempfile.TemporaryDirectory() as folder:
            kinds = {
                "SQLite": open_store(str(Path(folder) / "games.db")),
                "PostgreSQL": open_store(url, str(Path(folder) / "table-log.db")),
            }
            results = {}
            for kind, store in kinds.items():
                run(store, 3, 20, "w")  # warm: the first calls pay for imports and caches
                results[kind] = run(store, args.games, args.moves, "t")
                store.close()
        lobby = directory_costs(url, args.tables)
    finally:
        if cluster is not None:
            cluster.remove()
    print(f"{args.games} games of {args.moves} moves; each call's wall time, µs: median / p99")
    print(f"{'call':24} {'SQLite':>18} {'PostgreSQL':>18}")
    for call in CALLS:
        cells = [_cell(results[kind][call]) for kind in ("SQLite", "PostgreSQL")]
        print(f"{call:24} {cells[0]:>18} {cells[1]:>18}")
    print(f"\nthe lobby across processes, {args.tables} tables, in its thread; µs: median / p99")
    for name, samples in lobby.items():
        print(f"{name:24} {_cell(samples):>18}")


def directory_costs(url: str, tables: int) -> dict[str, list[float]]:
    """The lobby across processes (server/store/directory.py), in its thread: a process's
    first publish of `tables` rows, a renewal with a tenth of them changed, one with none,
    and another process's read of them all, each 20 times."""
    from server.store.directory import PostgresDirectory
    from server.store.postgres_database import PostgresDatabase

    def opened(name: str) -> PostgresDirectory:
        return PostgresDirectory(PostgresDatabase(url), PostgresDatabase(url), f"bench:{name}")

    one, two = opened("one"), opened("two")
    row = bytes(180)  # about a listed table's msgpack
    rows = {f"t{k:05d}": row for k in range(tables)}
    took: dict[str, list[float]] = defaultdict(list)
    for n in range(20):
        tenth = {key: bytes([n]) * 180 for key in list(rows)[::10]}  # changed since
        steps: tuple[tuple[str, Callable[[], object]], ...] = (
            ("publish, all rows", functools.partial(one.publish, "ws://one", rows, (), True)),
            (
                "publish, a tenth changed",
                functools.partial(one.publish, "ws://one", tenth, (), False),
            ),
            ("publish, none changed", functools.partial(one.publish, "ws://one", {}, (), False)),
            ("read every row", two.elsewhere),
        )
        for name, step in steps:
            started = time.perf_counter()
            step()
            took[name].append(time.perf_counter() - started)
    one.close()
    two.close()
    return took


def _cell(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{statistics.median(ordered) * 1e6:8.0f} / {p99 * 1e6:7.0f}"


if __name__ == "__main__":
    main()
