"""Ratings and standings (issue 21), printed as figures, never asserted.

    .venv/bin/python bench/ratings.py [--archive 10000] [--season 400] [--real 150]

- rebuild: `--archive` finished games (3-5 seats; a club of 60 players, now and then a
  reference bot or a seat a cover bot finished) stored as a host stores them, then
  `server.ratings.archive.rebuild` of the database file timed (target <= 2 s for 10,000);
- the same rebuild as a server runs it at start, in a process of its own: its wall time,
  and meanwhile the round trips of another table's moves and of `list`, against the same
  after the rebuild (the game's loop must not wait on it);
- a season of bots of known strength: a club of three easy, three normal and three hard
  members (none anchored: they are what is measured), four at a table, each game's order
  drawn by Plackett-Luce from strengths taken from the bot ladder (docs/balance.md: normal
  wins 38.8 % against three easy, hard about 55 % against three normal, so strengths 1,
  1.9 and 7.0). Reported: after how many games the difficulty means are ordered easy <
  normal < hard for good, and after how many every member is; then the final standings;
- `--real` games played by the real easy and normal bots (the hard bot's search takes
  seconds a game here: `--hard-iterations N` seats it too, at exactly N iterations a
  move), played in `--workers` processes (the cores by default) and rated the same way;
  Ctrl-C cuts the season short and reports the games played so far.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from server.bots.simulate import play_game
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.game import Variants, default_deck
from server.ratings.archive import rebuild
from server.ratings.skill import ANCHORS
from server.ratings.standings import Standings
from server.store.sqlite import SqliteStore
from server.tables.outcome import Outcome, SeatResult
from server.tables.players import PlayerId, shown

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.kits.netkit import Client, first_legal_move  # noqa: E402

LEVELS = {"easy": 1.0, "normal": 1.9, "hard": 7.0}  # Plackett-Luce strengths, from the ladder


def drawn_order(strengths: list[float], rng: random.Random) -> list[int]:
    """Seats from first to last, drawn by Plackett-Luce: each next place goes to one of
    those left with odds proportional to their strength."""
    left, order = list(range(len(strengths))), []
    while left:
        pick = rng.choices(left, weights=[strengths[i] for i in left])[0]
        left.remove(pick)
        order.append(pick)
    return order


def outcome_of(table: str, n: int, players: list[PlayerId], order: list[int]) -> Outcome:
    """A game where `order` gives the places: the first wins, Goth Points fall by place."""
    goth = {seat: 20 - 4 * place for place, seat in enumerate(order)}
    finished = f"2026-{1 + n // 100_000:02d}-01T00:00:00.{n % 1_000_000:06d}"
    seats = tuple(SeatResult(p, goth[i], 1.0, shown(p)) for i, p in enumerate(players))
    return Outcome(table, n, finished, seats, (order[0],))


# -- the archive and its rebuild ------------------------------------------------------------


def write_archive(path: str, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    club = [(PlayerId(f"name:Member {i}"), rng.lognormvariate(0, 0.6)) for i in range(60)]
    bots = [(p, LEVELS[p.removeprefix("bot:")]) for p in ANCHORS]
    store = SqliteStore(path)
    for n in range(games):
        size = rng.randint(3, 5)
        seated = rng.sample(club, size - (rng.random() < 0.3))
        if len(seated) < size:
            seated.append(rng.choice(bots))
        order = drawn_order([s for _, s in seated], rng)
        outcome = outcome_of(f"t{n // 5}", n % 5 + 1, [p for p, _ in seated], order)
        if rng.random() < 0.05:  # a player left and a cover bot finished for them
            first = outcome.seats[0]
            left = SeatResult(first.player, first.goth, rng.random(), first.name)
            seats = (left, *outcome.seats[1:])
            outcome = Outcome(outcome.table, outcome.game, outcome.finished, seats, outcome.winners)
        store.tables.start_game(outcome.table, outcome.game, seed=n)
        store.outcomes.finish_game(outcome.table, outcome.game, outcome.to_json())
    store.close()


def time_rebuild(path: str) -> tuple[float, float, Standings]:
    """The best of three rebuilds: wall-clock seconds and CPU seconds of this process (a
    shared machine's other work slows the first, never the second)."""
    wall = cpu = float("inf")
    standings = Standings()
    for _ in range(3):
        started, started_cpu = time.perf_counter(), time.process_time()
        standings = rebuild(path)
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return wall, cpu, standings


# -- another table while the server rebuilds -------------------------------------------------


async def next_request(probe: Client) -> float:
    """An honest table's next request, from the newest view its player has heard: a move if
    the decision is theirs, a listing while the bots move, a rematch once it is over; its
    round trip in seconds."""
    states = probe.states()
    view = states[-1]["view"] if states else None
    started = time.perf_counter()
    if view is not None and view["phase"] == "over":
        await probe.request("rematch")
    elif view is None or view["legal"] is None:
        await probe.request("list")
    else:
        await probe.request("move", move=first_legal_move(view["legal"]))
    return time.perf_counter() - started


async def latency_while_rebuilding(path: str) -> dict[str, Any]:
    config = ServerConfig(host="127.0.0.1", port=0, db=path, bot_delay=0.0, announce=False)
    server = GotherServer(config)
    started = time.perf_counter()
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    during: list[float] = []
    after: list[float] = []
    rebuilt_in = 0.0
    probe = await Client.connect(url, "Probe")
    table = (await probe.request("create", name="Probe", seats=3, bots=2))["table"]
    await probe.request("join", table=table, seat=0)
    while len(after) < 60:
        took = await next_request(probe)
        (during if server.standings.rebuilding else after).append(took)
        if not rebuilt_in and not server.standings.rebuilding:
            rebuilt_in = time.perf_counter() - started
    await probe.close()
    await server.close()
    return {"rebuilt_in": rebuilt_in, "during": during, "after": after}


def milliseconds(times: list[float]) -> str:
    if not times:
        return "none"
    cut = sorted(times)
    p99 = cut[min(len(cut) - 1, int(0.99 * len(cut)))]
    return (
        f"{len(times)} round trips, p50 {statistics.median(times) * 1e3:.1f} ms, "
        f"p99 {p99 * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms"
    )


# -- seasons ----------------------------------------------------------------------------------


def ordered_for_good(history: list[bool]) -> int | None:
    """The number of games after which every later check held (None: it never settled)."""
    for n in range(len(history)):
        if all(history[n:]):
            return n + 1
    return None


class Season:
    """A club of three members of each level, rated as they play (none anchored)."""

    def __init__(self, levels: list[str]) -> None:
        self.levels = levels
        self.members = {PlayerId(f"name:{lv}-{i}"): lv for lv in levels for i in (1, 2, 3)}
        self.standings = Standings()
        self.means: list[bool] = []  # after each game: the levels' mean mu in order?
        self.everyone: list[bool] = []  # every member below every member of the next level?

    def add(self, outcome: Outcome) -> None:
        self.standings.add(outcome)
        by_level = [
            [self.standings.ratings[p].mu for p, lv in self.members.items() if lv == level]
            for level in self.levels
        ]
        means = [statistics.mean(mus) for mus in by_level]
        self.means.append(all(a < b for a, b in itertools.pairwise(means)))
        pairs = itertools.pairwise(by_level)
        self.everyone.append(all(max(low) < min(high) for low, high in pairs))

    def means_now(self) -> str:
        """The levels' mean mu as they stand, in the levels' order."""
        means = [
            statistics.mean(
                self.standings.ratings[p].mu for p, lv in self.members.items() if lv == level
            )
            for level in self.levels
        ]
        return ", ".join(f"{lv} {mu:.1f}" for lv, mu in zip(self.levels, means, strict=True))

    def report(self) -> None:
        order = " < ".join(self.levels)
        print(f"  level means ordered {order} for good after: {ordered_for_good(self.means)} games")
        print(f"  every member so ordered for good after: {ordered_for_good(self.everyone)} games")
        print("  final standings:")
        print("    #   player     rating     mu    sigma  games  wins")
        for rank, row in enumerate(self.standings.rows(), 1):
            shown_rating = f"{row.rating.shown} ±{row.rating.spread}"
            print(
                f"    {rank:<3} {shown(row.player):<9}  {shown_rating:<9} {row.rating.mu:5.1f}  "
                f"{row.rating.sigma:5.2f}  {row.record.games:5}  {row.record.wins:4}"
            )


def known_strength_season(games: int, seed: int) -> None:
    rng = random.Random(seed)
    season = Season(list(LEVELS))
    for n in range(games):
        seated = rng.sample(sorted(season.members), 4)
        order = drawn_order([LEVELS[season.members[p]] for p in seated], rng)
        season.add(outcome_of("season", n + 1, seated, order))
    print(f"season of bots of known strength: {games} games, 4 a table, 9 members")
    season.report()


def real_game(seated: list[PlayerId], kinds: list[str], seed: int, hard_iterations: int) -> Outcome:
    """One game of the real bots at `kinds`' levels, played as `gother simulate` plays one
    (from its seed alone, so a worker process can play it): its places as an `Outcome` of
    game `seed`."""
    played = play_game(default_deck(), len(kinds), seed, kinds, Variants(), hard_iterations)
    results = tuple(SeatResult(p, played.goth[i], 1.0, shown(p)) for i, p in enumerate(seated))
    finished = f"2026-01-01T00:00:00.{seed:06d}"
    return Outcome("real", seed, finished, results, played.winners)


def real_bot_season(games: int, seed: int, hard_iterations: int, workers: int) -> None:
    """The games are drawn first and played in `workers` processes (each from its own
    seed), then rated in order, so any number of workers gives the same season."""
    if not games:
        return
    season = Season(["easy", "normal", *(["hard"] * bool(hard_iterations))])
    rng = random.Random(seed)
    tables = [rng.sample(sorted(season.members), 4) for _ in range(games)]
    jobs = [
        (seated, [season.members[p] for p in seated], seed + n, hard_iterations)
        for n, seated in enumerate(tables)
    ]
    started = time.perf_counter()
    pool = ProcessPoolExecutor(max(1, workers))
    try:
        for n, outcome in enumerate(pool.map(real_game, *zip(*jobs, strict=True)), 1):
            season.add(outcome)
            if n % 20 == 0:  # a long run tells how it goes
                took = time.perf_counter() - started
                ordered = "ordered" if season.means[-1] else "not ordered"
                print(
                    f"  after {n} games ({took:.0f} s): {season.means_now()} ({ordered})",
                    flush=True,
                )
    except KeyboardInterrupt:  # cut short (Ctrl-C): the season so far is reported
        print(f"  cut short after {len(season.means)} games", flush=True)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    took = time.perf_counter() - started
    print(
        f"season of the real bots ({', '.join(season.levels)}; hard at {hard_iterations} "
        f"iterations a move): {len(season.means)} games in {took:.1f} s, {workers} worker(s)"
    )
    season.report()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=int, default=10_000, help="archived games to rebuild")
    parser.add_argument(
        "--season", type=int, default=400, help="games of the known-strength season"
    )
    parser.add_argument("--real", type=int, default=150, help="games of real bots")
    parser.add_argument("--hard-iterations", type=int, default=0, help="seat hard bots too")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes for the real games"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "games.db")
        write_archive(path, args.archive, args.seed)
        wall, cpu, standings = time_rebuild(path)
        print(
            f"rebuild of {args.archive} archived games: {cpu:.2f} s of CPU, {wall:.2f} s wall "
            f"({cpu / max(1, args.archive) * 1e6:.0f} us a game, best of 3; target <= 2 s "
            f"for 10,000), {len(standings.records)} identities"
        )
        seen = asyncio.run(latency_while_rebuilding(path))
        rebuilt_in = seen["rebuilt_in"]
        print(f"server start: the standings rebuilt in their own process in {rebuilt_in:.2f} s")
        print(f"  another table during the rebuild: {milliseconds(seen['during'])}")
        print(f"  the same table after it:          {milliseconds(seen['after'])}")
    known_strength_season(args.season, args.seed)
    real_bot_season(args.real, args.seed, args.hard_iterations, args.workers)


if __name__ == "__main__":
    main()
