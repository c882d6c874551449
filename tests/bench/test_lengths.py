"""bench/lengths.py writes the one table of how long games run (issue 32 §3) from the kept
games, and protocol/lengths.py says a table's figures from it."""

import json
import subprocess
import sys
from pathlib import Path

from protocol.constants import DEFAULT_ROUND_CAP, SEATS, TRAITS
from protocol.lengths import MEASURED, how_long

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_the_table_is_made_from_the_kept_games_a_table_of_bots_an_entry(tmp_path):
    results, table = tmp_path / "balance.jsonl", tmp_path / "lengths.json"
    for bots, cap in (("normal:steady", "100"), ("normal:steady", "8"), ("random,normal", "100")):
        played = run(
            "balance_runs.py", "play", "--results", str(results), "--players", "4",
            "--games", "30", "--bots", bots, "--round-cap", cap,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
    made = run("lengths.py", "--results", str(results), "--out", str(table))
    assert made.returncode == 0, made.stderr
    entries = json.loads(table.read_text(encoding="utf-8"))
    assert set(entries) == {"4 normal steady 100", "4 normal steady 8"}  # one bot a table
    games = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for name, entry in entries.items():
        cap = int(name.split()[-1])
        kept = [g for g in games if g["kinds"] == ["normal:steady"] and g["round_cap"] == cap]
        assert entry["games"] == sum(entry["by_round"]) == len(kept) == 30
        assert entry["capped"] == sum(g["capped"] for g in kept)
        for rounds, count in enumerate(entry["by_round"], 1):
            assert count == sum(g["rounds"] == rounds for g in kept)
    checked = run("lengths.py", "--results", str(results), "--out", str(table), "--check")
    assert checked.returncode == 0, checked.stdout
    table.write_text(table.read_text(encoding="utf-8").replace('"games": 30', '"games": 31'))
    assert run("lengths.py", "--results", str(results), "--out", str(table), "--check").returncode


def test_every_table_of_easy_or_normal_bots_at_three_to_five_seats_has_its_figures():
    entries = json.loads(MEASURED.read_text(encoding="utf-8"))
    for seats in SEATS:
        for bot in ("easy", "normal"):
            for trait in TRAITS:
                entry = entries[f"{seats} {bot} {trait} {DEFAULT_ROUND_CAP}"]
                assert entry["games"] == sum(entry["by_round"]) >= 300
                said = how_long(seats, bot, trait, DEFAULT_ROUND_CAP)
                assert said is not None and said.startswith("usually ")


def test_a_sentence_is_the_quartiles_and_the_tail_of_the_measured_rounds():
    entries = json.loads(MEASURED.read_text(encoding="utf-8"))
    by_round = entries["5 normal vengeful 100"]["by_round"]
    rounds = [r for r, count in enumerate(by_round, 1) for _ in range(count)]
    n = len(rounds)
    tail = rounds[int(0.9 * n)]
    past = sum(r > tail for r in rounds)
    assert how_long(5, "heuristic", "vengeful", None) == (
        f"usually {rounds[n // 4]} to {rounds[3 * n // 4]} rounds;"
        f" about one game in {round(n / past)} runs past {tail}"
    )
    # a cap not measured: the published cap's games, each past it ended there
    capped = sum(r > 15 for r in rounds)
    assert 0 < 2 * capped < n
    assert how_long(5, "normal", "vengeful", 15) == (
        f"usually {rounds[n // 4]} to {min(rounds[3 * n // 4], 15)} rounds;"
        f" about one game in {round(n / capped)} ends at the 15-round cap"
    )
    assert how_long(5, "normal", "vengeful", 10).endswith("; most games end at the 10-round cap")
    assert how_long(5, "random", "steady", 100) is None
    assert how_long(6, "normal", "steady", 100) is None
