"""Balance runs that accumulate across sessions (issue 23 §1), printed as figures.

    nice -n 19 .venv/bin/python bench/balance_runs.py play --players 3 4 5 --games 200
        [--seed 1] [--bots hard] [--iterations 100] [--round-cap 100] [--deck FILE] [--jobs 1]
        [--results FILE]
    .venv/bin/python bench/balance_runs.py summary [--results FILE]

`play` plays game i of each table size from seed S+i with `server.bots.simulate.play_game` (the
same game loop as `gother simulate`, the bots rotated over the seats the same way) and
appends one JSON line per finished game to the results file, flushed as it ends: a run
stopped at any point loses at most the games being played, and a restart skips every game
already in the file (same players, bots and their traits, iterations, round cap, deck and
seed). A bot is a name with its trait after a colon ("hard:steady"), or a name alone for
the trait a table of that size gets by default; the file keeps the trait either way
(games from before traits were vengeful, and before `round_cap` was kept, capped at 100).
Each game also keeps the Goth Points at the end of every round. A deck is known by a
digest of its cards' scores (`--deck`: a deck file; the original deck by default), so a
game stays with the deck it was played with when the original is retuned. Table sizes are played in
the order given, each to its `--games` before the next. `summary` reads the file and prints
one balance row per (players, bots, iterations, round cap, deck): game length, round cap,
each seat's share of wins with its standard error, swoons and reshuffles a game, then for
each table with a cap below the published one, what the cap did: games it ended, and how
often its leader (the winner) already led five rounds before; and for each table of more
than one bot (one hard among normal ones: a ladder at any seat count), each bot's share of
the wins a seat it holds, with its standard error. A shared win counts 1/k.
The file is committed (bench/results/), so a table too slow for one session is finished
over several.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from protocol.constants import DEFAULT_ROUND_CAP
from server.bots.registry import named, word
from server.bots.simulate import play_game, seat_kinds
from server.game import Deck, Variants, default_deck, load_deck

RESULTS = Path(__file__).with_name("results") / "balance.jsonl"
# players, bots ("hard:steady"), iterations, deck, round cap
Table = tuple[int, tuple[str, ...], int, str, int | None]


def records(path: Path) -> list[dict[str, Any]]:
    """The games in the file. A last line cut short (the run was killed mid-write) is not
    a game; `play` drops it before appending."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").split("\n")
    return [json.loads(line) for line in lines[:-1] if line]  # the text after the last \n


def drop_cut_line(path: Path) -> None:
    if not path.exists():
        return
    text = path.read_bytes()
    whole = text[: text.rfind(b"\n") + 1]
    if whole != text:
        path.write_bytes(whole)


def game_key(record: dict[str, Any]) -> tuple[Table, int]:
    kinds = tuple(k if ":" in k else f"{k}:vengeful" for k in record["kinds"])
    cap = record.get("round_cap", DEFAULT_ROUND_CAP)
    return (record["players"], kinds, record["iterations"], record["deck"], cap), record["seed"]


def explicit(kinds: Sequence[str], players: int) -> tuple[str, ...]:
    """The bots with their traits spelled out, as the file keeps them ("normal:steady")."""
    return tuple(f"{word(kind)}:{trait}" for kind, trait in (named(k, players) for k in kinds))


def digest(deck: Deck) -> str:
    """What balance depends on in a deck, its cards' scores, as 8 hex digits."""
    scores = json.dumps([deck.goth, deck.sickness, deck.money]).encode()
    return hashlib.sha256(scores).hexdigest()[:8]


def play_one(
    players: int,
    seed: int,
    index: int,
    kinds: Sequence[str],
    iterations: int,
    deck: Deck,
    round_cap: int | None = DEFAULT_ROUND_CAP,
) -> str:
    """Game `index` of a table, dealt from `seed`, as its JSON line."""
    bots = seat_kinds(kinds, players, index)
    result = play_game(deck, players, seed, bots, Variants(round_cap=round_cap), iterations)
    return json.dumps(
        {
            "seed": seed,
            "players": players,
            "kinds": list(kinds),  # with their traits: what a restart matches on
            "bots": list(bots),  # per seat, in this game
            "traits": list(result.traits),
            "iterations": iterations,
            "round_cap": round_cap,
            "deck": digest(deck),
            "rounds": result.rounds,
            "capped": result.capped,
            "winners": list(result.winners),
            "swoons": result.swoons,
            "reshuffles": result.reshuffles,
            "moves": result.moves,
            "goth_by_round": [list(goth) for goth in result.goth_by_round],
        }
    )


def play(args: argparse.Namespace) -> None:
    try:
        for kind in args.bots:
            named(kind, 5)
        deck = default_deck() if args.deck is None else load_deck(args.deck)
    except ValueError as exc:  # an unknown name or a bad deck: refused before any game
        sys.exit(f"balance_runs: {exc}")
    path: Path = args.results
    path.parent.mkdir(parents=True, exist_ok=True)
    drop_cut_line(path)
    done = {game_key(r) for r in records(path)}
    cap = args.round_cap
    with path.open("a", encoding="utf-8") as out, ProcessPoolExecutor(args.jobs) as pool:
        for players in args.players:
            kinds = explicit(args.bots, players)
            table = (players, kinds, args.iterations, digest(deck), cap)
            todo = [
                (players, args.seed + i, i, kinds, args.iterations, deck, cap)
                for i in range(args.games)
                if (table, args.seed + i) not in done
            ]
            print(f"{players} players: {args.games - len(todo)} played, {len(todo)} to play")
            for line in as_played(pool, todo, args.jobs):
                out.write(line + "\n")
                out.flush()


def as_played(pool: ProcessPoolExecutor, todo: list[tuple[Any, ...]], jobs: int) -> Iterator[str]:
    """The games' lines as they finish, at most `jobs` queued at a time (a stopped run
    leaves no long queue of work behind it)."""
    waiting = iter(todo)
    running: set[Future[str]] = set()
    while True:
        for game in waiting:
            running.add(pool.submit(play_one, *game))
            if len(running) >= jobs:
                break
        if not running:
            return
        finished, running = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            yield future.result()


def table_row(games: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """One table's figures. A seat's share is the mean of its per-game share (1, 1/k or 0),
    its standard error that mean's."""
    n = len(games)
    rounds = sorted(g["rounds"] for g in games)
    seats = []
    for seat in range(players):
        share = [1 / len(g["winners"]) if seat in g["winners"] else 0.0 for g in games]
        error = statistics.stdev(share) / math.sqrt(n) if n > 1 else math.nan
        seats.append((statistics.mean(share), error))
    return {
        "games": n,
        "rounds_median": statistics.median(rounds),
        "rounds_p90": rounds[min(n - 1, int(0.9 * n))],
        "capped": sum(g["capped"] for g in games),
        "seats": seats,
        "swoons": sum(g["swoons"] for g in games) / n,
        "reshuffles": sum(g["reshuffles"] for g in games) / n,
    }


def bot_shares(games: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Each bot's share of the wins, a seat it holds (fair: one in the seats), with its
    standard error: in each game, the wins of the seats it held over how many it held."""
    per_game: defaultdict[str, list[float]] = defaultdict(list)
    for g in games:
        for name in set(g["bots"]):
            held = [s for s, bot in enumerate(g["bots"]) if bot == name]
            won = sum(1 / len(g["winners"]) for s in held if s in g["winners"])
            per_game[name].append(won / len(held))
    n = len(games)
    return {
        name: (statistics.mean(v), statistics.stdev(v) / math.sqrt(n) if n > 1 else math.nan)
        for name, v in sorted(per_game.items())
    }


LOOK_BACK = 5  # rounds before the cap at which the cap's leader is looked for


def cap_row(games: list[dict[str, Any]]) -> dict[str, Any]:
    """What a round cap did to a table's games: how many it ended, and of those (with the
    Goth kept round by round) how many the cap's winner already led (alone or tied) at the
    end of the round LOOK_BACK before, with that share's 95 % Wilson interval."""
    ended = [g for g in games if g["capped"] and len(g.get("goth_by_round", ())) > LOOK_BACK]
    led = 0
    for g in ended:
        before = g["goth_by_round"][-1 - LOOK_BACK]
        led += all(before[w] == max(before) for w in g["winners"])
    n = len(ended)
    return {
        "capped": sum(g["capped"] for g in games),
        "looked": n,
        "led": led,
        "interval": wilson(led / n, n) if n else (math.nan, math.nan),
    }


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share measured over n games."""
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(args: argparse.Namespace) -> None:
    tables: defaultdict[Table, list[dict[str, Any]]] = defaultdict(list)
    counted = set()
    for record in records(args.results):
        key = game_key(record)
        if key not in counted:  # two runs started on one file play a seed twice
            counted.add(key)
            tables[key[0]].append(record)
    print(
        "| players | bots | iterations | round cap | games | rounds median | p90 | capped |"
        " win rate by seat ± s.e. (fair) | swoons / game | reshuffles / game | deck |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    original = digest(default_deck())
    for (players, kinds, iterations, deck, cap), games in sorted(tables.items(), key=str):
        row = table_row(games, players)
        seats = " · ".join(f"{100 * p:.1f} ± {100 * e:.1f}" for p, e in row["seats"])
        print(
            f"| {players} | {','.join(kinds)} | {iterations} | {cap or 'off'} | {row['games']}"
            f" | {row['rounds_median']:g} | {row['rounds_p90']}"
            f" | {row['capped']} ({100 * row['capped'] / row['games']:.1f} %)"
            f" | {seats} ({100 / players:.1f}) | {row['swoons']:.1f} | {row['reshuffles']:.1f}"
            f" | {deck}{' (original)' if deck == original else ''} |"
        )
    print()
    print("| players | bots | iterations | round cap | games | wins a seat held ± s.e. (fair) |")
    print("|---:|---|---:|---:|---:|---|")
    for (players, kinds, iterations, _, cap), games in sorted(tables.items(), key=str):
        if len(set(kinds)) > 1:
            shares = " · ".join(
                f"{name} {100 * p:.1f} ± {100 * e:.1f}"
                for name, (p, e) in bot_shares(games).items()
            )
            print(
                f"| {players} | {','.join(kinds)} | {iterations} | {cap or 'off'} | {len(games)}"
                f" | {shares} ({100 / players:.1f}) |"
            )
    print()
    print(
        f"| players | bots | iterations | round cap | games | ended by the cap |"
        f" its leader led {LOOK_BACK} rounds before (95 % interval) |"
    )
    print("|---:|---|---:|---:|---:|---:|---|")
    for (players, kinds, iterations, _, cap), games in sorted(tables.items(), key=str):
        if cap is None or cap >= DEFAULT_ROUND_CAP:
            continue
        row = cap_row(games)
        low, high = row["interval"]
        led = f"{row['led']} of {row['looked']}"
        if row["looked"]:
            led += f" ({100 * low:.0f} to {100 * high:.0f} %)"
        print(
            f"| {players} | {','.join(kinds)} | {iterations} | {cap} | {len(games)}"
            f" | {row['capped']} ({100 * row['capped'] / len(games):.1f} %)"
            f" | {led} |"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--results", type=Path, default=RESULTS)
    modes = parser.add_subparsers(dest="mode", required=True)
    run = modes.add_parser("play", parents=[common], help="play the games not in the file")
    run.add_argument("--players", type=int, nargs="+", choices=range(3, 6), default=[3, 4, 5])
    run.add_argument("--games", type=int, default=200, help="games per table size")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--bots", type=lambda s: s.split(","), default=["hard"])
    run.add_argument("--iterations", type=int, default=100, help="a searching bot's a move")
    run.add_argument("--round-cap", type=int, default=DEFAULT_ROUND_CAP, help="H1")
    run.add_argument("--deck", type=Path, help="a deck file (default: the original deck)")
    run.add_argument("--jobs", type=int, default=1, help="worker processes")
    run.set_defaults(run=play)
    shown = modes.add_parser("summary", parents=[common], help="print the balance table")
    shown.set_defaults(run=summary)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
