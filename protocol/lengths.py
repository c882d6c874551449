"""How long a table's games run, said in one sentence before anyone sits down.

The figures are measured bot games (`protocol/measured_lengths.json`, which
`bench/lengths.py` writes from bench/results/balance.jsonl), found by the table's seat
count, its bots' difficulty and trait, and its round cap (H1). A cap that was not measured
is read from the games measured at the published cap, each game past it ended there. The
server says it in each lobby row (`TableRow.lasts`) and the client's create forms say it
as a table is chosen: both ends read this one module.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from protocol.constants import DEFAULT_ROUND_CAP, PLAYERS_WORD

NOTABLE = 0.05  # games ending at the cap worth a mention: one in twenty or more
MEASURED = Path(__file__).with_name("measured_lengths.json")


@cache
def measured() -> dict[tuple[int, str, str, int | None], tuple[int, tuple[int, ...]]]:
    """By (seats, difficulty, trait, round cap): the games the cap ended, and the games
    that ended after 1, 2, 3, ... rounds."""
    table = json.loads(MEASURED.read_text(encoding="utf-8"))
    found = {}
    for name, entry in table.items():
        seats, bots, trait, cap = name.split()
        key = (int(seats), bots, trait, None if cap == "None" else int(cap))
        found[key] = (entry["capped"], tuple(entry["by_round"]))
    return found


@cache
def how_long(seats: int, bot: str, trait: str, round_cap: int | None) -> str | None:
    """ "usually 5 to 9 rounds; about one game in 11 runs past 14" for a table of `seats`
    with `bot` bots (a difficulty, or a kind) of `trait`, or None when no measured games
    stand for it (a random bot, two or six seats)."""
    word = PLAYERS_WORD.get(bot, bot)
    exact = measured().get((seats, word, trait, round_cap))
    if exact is not None:
        capped, by_round = exact
        rounds = [r for r, games in enumerate(by_round, 1) for _ in range(games)]
    else:
        published = measured().get((seats, word, trait, DEFAULT_ROUND_CAP))
        if published is None:
            return None
        _, by_round = published
        last = round_cap or len(by_round)  # no cap: the published cap was never reached
        rounds = [min(r, last) for r, games in enumerate(by_round, 1) for _ in range(games)]
        capped = sum(r > last for r, games in enumerate(by_round, 1) for _ in range(games))
    return _sentence(rounds, capped, round_cap)


def _sentence(rounds: list[int], capped: int, round_cap: int | None) -> str:
    n = len(rounds)  # in order: games are listed by the round they ended in
    low, high = rounds[n // 4], rounds[3 * n // 4]
    usual = f"usually {low} to {high} rounds" if low < high else f"usually {low} rounds"
    tail = rounds[int(0.9 * n)]  # the 90th percentile, as docs/balance.md counts it
    if round_cap is not None and capped and (capped >= NOTABLE * n or tail >= round_cap):
        if 2 * capped >= n:
            return f"{usual}; most games end at the {round_cap}-round cap"
        return f"{usual}; about one game in {round(n / capped)} ends at the {round_cap}-round cap"
    past = sum(r > tail for r in rounds)
    if not past:
        return f"{usual}; none ran past {tail}"
    return f"{usual}; about one game in {round(n / past)} runs past {tail}"
