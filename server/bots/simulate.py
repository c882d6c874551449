"""`gother simulate`: play many bot games and measure length, fairness and speed.

Used to tune the deck's balance (docs/balance.md) and to measure the bot ladder.
A shared win (H1 round cap, tied leaders) counts 1/k to each of the k winners. Bots are
named by difficulty or kind (`server.bots.registry`), with a trait after a colon
("normal:steady") or the one a table of that size gets by default, and win rates are
reported under the names given. A searching bot runs a fixed number of iterations a move
(`iterations`), never a think time, so a run repeats exactly from its seed.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from server.bots.registry import make_bot, named
from server.game import Deck, Game, Reshuffled, Swooned, Variants, view

ITERATIONS = 200  # a searching bot's iterations a move in a simulation


@dataclass(frozen=True, slots=True)
class GameResult:
    rounds: int
    capped: bool
    winners: tuple[int, ...]
    goth: tuple[int, ...]  # each seat's Goth Points at the end (places after the winners)
    kinds: tuple[str, ...]  # bot name per seat, as given
    traits: tuple[str, ...]  # the trait each seat's bot played with
    swoons: int
    reshuffles: int
    moves: int
    # Goth Points per seat at the end of each round played (the last: at the game's end)
    goth_by_round: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class Summary:
    """A run's figures: what `gother simulate` prints, as a report or (`--json`) field by
    field. Shared wins count 1/k to each of the k winners."""

    games: int
    players: int
    rounds_median: float
    rounds_p90: int
    capped: int  # games the round cap ended (H1)
    seat_win_rate: list[float]
    bot_win_rate: dict[str, float]  # by the names given
    swoons_per_game: float
    reshuffles_per_game: float
    moves_per_game: float
    games_per_second: float | None  # None when the run took no measurable time


def seat_kinds(kinds: Sequence[str], players: int, game_index: int) -> tuple[str, ...]:
    """Rotate the listed kinds over the seats so every kind sits in every seat."""
    return tuple(kinds[(seat + game_index) % len(kinds)] for seat in range(players))


def play_game(
    deck: Deck,
    players: int,
    seed: int,
    kinds: Sequence[str],
    variants: Variants,
    iterations: int = ITERATIONS,
) -> GameResult:
    game = Game.new(deck, players, seed, variants)
    chosen = [named(name, players) for name in kinds]
    bots = [
        make_bot(kind, deck, random.Random(seed * 8 + s), iterations=iterations, trait=trait)
        for s, (kind, trait) in enumerate(chosen)
    ]
    goth_by_round = []
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        played = game.round
        game.apply(seat, bots[seat].choose(view(game, seat, log_size=0)))  # no bot reads the log
        if game.round > played or (game.over and len(goth_by_round) < game.round):
            goth_by_round.append(tuple(game.goth))
    assert game.winners is not None
    return GameResult(
        rounds=game.round,
        capped=game.end_reason == "round_cap",
        winners=game.winners,
        goth=tuple(game.goth),
        kinds=tuple(kinds),
        traits=tuple(trait for _, trait in chosen),
        swoons=sum(isinstance(e, Swooned) for e in game.events),
        reshuffles=sum(isinstance(e, Reshuffled) for e in game.events),
        moves=len(game.moves),
        goth_by_round=tuple(goth_by_round),
    )


def _play_games(
    deck: Deck,
    players: int,
    seed: int,
    indices: Sequence[int],
    kinds: Sequence[str],
    variants: Variants,
    iterations: int,
) -> list[GameResult]:
    """Games number `indices` of a run: game i uses seed + i and rotation i."""
    return [
        play_game(deck, players, seed + i, seat_kinds(kinds, players, i), variants, iterations)
        for i in indices
    ]


def simulate(
    deck: Deck,
    players: int,
    games: int,
    seed: int,
    kinds: Sequence[str],
    variants: Variants | None = None,
    jobs: int = 1,
    iterations: int = ITERATIONS,
) -> Summary:
    """Play `games` games and summarise them; `jobs` > 1 spreads them over processes.
    `kinds`: bot names (difficulties or kinds), rotated over the seats; a ValueError names
    an unknown one before any game is played."""
    for kind in kinds:
        named(kind, players)
    variants = variants or Variants()
    jobs = max(1, min(jobs, games))
    started = time.perf_counter()
    if jobs == 1:
        results = _play_games(deck, players, seed, range(games), kinds, variants, iterations)
    else:
        parts = [range(j, games, jobs) for j in range(jobs)]
        with ProcessPoolExecutor(jobs) as pool:
            futures = [
                pool.submit(_play_games, deck, players, seed, part, kinds, variants, iterations)
                for part in parts
            ]
            results = [r for f in futures for r in f.result()]
    return summarise(results, players, time.perf_counter() - started)


def summarise(results: Sequence[GameResult], players: int, elapsed: float) -> Summary:
    seat_wins = [0.0] * players
    kind_wins: defaultdict[str, float] = defaultdict(float)  # shared wins count 1/k
    for r in results:
        for seat in r.winners:
            seat_wins[seat] += 1 / len(r.winners)
            kind_wins[r.kinds[seat]] += 1 / len(r.winners)
    rounds = sorted(r.rounds for r in results)
    n = len(results)
    all_kinds = sorted({k for r in results for k in r.kinds})
    return Summary(
        games=n,
        players=players,
        rounds_median=statistics.median(rounds),
        rounds_p90=rounds[min(n - 1, int(0.9 * n))],
        capped=sum(r.capped for r in results),
        seat_win_rate=[round(w / n, 4) for w in seat_wins],
        bot_win_rate={k: round(kind_wins[k] / n, 4) for k in all_kinds},
        swoons_per_game=round(sum(r.swoons for r in results) / n, 3),
        reshuffles_per_game=round(sum(r.reshuffles for r in results) / n, 3),
        moves_per_game=round(sum(r.moves for r in results) / n, 1),
        games_per_second=round(n / elapsed, 2) if elapsed > 0 else None,
    )


def format_report(summary: Summary) -> str:
    fair = 1 / summary.players
    seats = "  ".join(f"{i}:{w:6.1%}" for i, w in enumerate(summary.seat_win_rate))
    kinds = "  ".join(f"{k}:{w:6.1%}" for k, w in summary.bot_win_rate.items())
    return "\n".join(
        [
            f"games             {summary.games} ({summary.players} players)",
            f"rounds            median {summary.rounds_median}, p90 {summary.rounds_p90}",
            f"round cap hit     {summary.capped} games",
            f"win rate by seat  {seats}   (fair {fair:.1%})",
            f"win rate by bot   {kinds}   (share of games won)",
            f"swoons per game   {summary.swoons_per_game}",
            f"reshuffles a game {summary.reshuffles_per_game}",
            f"moves per game    {summary.moves_per_game}",
            f"games per second  {summary.games_per_second}",
        ]
    )
