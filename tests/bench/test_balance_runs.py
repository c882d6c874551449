"""bench/balance_runs.py through its real script: a run appends one line a game, a restart
plays only the games not yet in the file, and the summary reads them back."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from server.game import default_deck_text

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "balance_runs.py"


def runs(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_run_appends_a_line_a_game_and_a_restart_skips_the_seeds_played(tmp_path):
    results = tmp_path / "balance.jsonl"
    play = ("play", "--results", str(results), "--players", "3", "--bots", "random,normal")
    first = runs(*play, "--games", "3", "--seed", "7")
    assert first.returncode == 0, first.stderr
    played = lines(results)
    assert [g["seed"] for g in played] == [7, 8, 9]
    assert {g["players"] for g in played} == {3}
    # the bots rotate over the seats as in `gother simulate`: game i starts at kind i; each
    # with its trait spelled out (a name alone: the default of a table of three)
    assert [g["bots"] for g in played] == [
        ["random:vengeful", "normal:vengeful", "random:vengeful"],
        ["normal:vengeful", "random:vengeful", "normal:vengeful"],
        ["random:vengeful", "normal:vengeful", "random:vengeful"],
    ]
    for game in played:
        assert game.keys() >= {"iterations", "rounds", "capped", "winners", "swoons"}
        assert game["winners"] and set(game["winners"]) <= {0, 1, 2}
        assert game["traits"] == ["vengeful"] * 3 and game["round_cap"] == 100
        assert len(game["goth_by_round"]) == game["rounds"]  # the Goth at each round's end

    again = runs(*play, "--games", "5", "--seed", "7", "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert "3 played, 2 to play" in again.stdout
    grown = lines(results)
    assert grown[:3] == played  # what was there is kept as it was
    assert sorted(g["seed"] for g in grown[3:]) == [10, 11]


def test_a_line_cut_short_by_a_killed_run_is_dropped_and_its_game_played_again(tmp_path):
    results = tmp_path / "balance.jsonl"
    play = ("play", "--results", str(results), "--players", "4", "--bots", "random")
    assert runs(*play, "--games", "2").returncode == 0
    whole = results.read_text(encoding="utf-8")
    last = whole.splitlines()[-1]
    results.write_text(whole[: -len(last) - 1] + last[:20], encoding="utf-8")  # killed mid-write
    again = runs(*play, "--games", "2")
    assert again.returncode == 0, again.stderr
    assert "1 played, 1 to play" in again.stdout
    assert results.read_text(encoding="utf-8") == whole  # the same game, dealt from its seed


def test_the_summary_counts_each_table_of_the_file_each_seed_once(tmp_path):
    results = tmp_path / "balance.jsonl"
    for players in ("3", "5"):
        played = runs(
            "play",
            "--results",
            str(results),
            "--players",
            players,
            "--games",
            "4",
            "--bots",
            "random",
        )
        assert played.returncode == 0, played.stderr
    with results.open("a", encoding="utf-8") as out:  # a second run played a seed again
        out.write(results.read_text(encoding="utf-8").splitlines()[0] + "\n")
    shown = runs("summary", "--results", str(results))
    assert shown.returncode == 0, shown.stderr
    rows = [line for line in shown.stdout.splitlines() if line.startswith(("| 3 ", "| 5 "))]
    assert len(rows) == 2
    for row, players in zip(rows, (3, 5), strict=True):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        trait = "vengeful" if players == 3 else "steady"  # the seat count's default
        assert cells[:5] == [str(players), f"random:{trait}", "100", "100", "4"]
        shares = [float(seat.split("±")[0]) for seat in cells[8].split("(")[0].split("·")]
        assert len(shares) == players
        assert abs(sum(shares) - 100) < 0.5  # every game has winners; shared wins split


def test_games_of_another_deck_are_a_table_of_their_own(tmp_path):
    """A retuned deck's games are not taken for the original's: a restart with the
    other deck plays its seeds, and the summary gives each deck its row."""
    results, retuned = tmp_path / "balance.jsonl", tmp_path / "retuned.toml"
    goth = re.compile(r"^goth = (-?\d+)$", re.MULTILINE)  # the first card's, one more
    retuned.write_text(goth.sub(lambda m: f"goth = {int(m[1]) + 1}", default_deck_text(), 1))
    play = ("play", "--results", str(results), "--players", "3", "--bots", "random")
    assert runs(*play, "--games", "2").returncode == 0
    other = runs(*play, "--games", "2", "--deck", str(retuned))
    assert other.returncode == 0, other.stderr
    assert "0 played, 2 to play" in other.stdout
    decks = [g["deck"] for g in lines(results)]
    assert decks[0] == decks[1] != decks[2] == decks[3]
    shown = runs("summary", "--results", str(results)).stdout
    rows = [line for line in shown.splitlines() if line.startswith("| 3 ")]
    assert {row.rsplit("|", 2)[-2].strip() for row in rows} == {
        f"{decks[0]} (original)",
        decks[2],
    }


def test_a_bad_deck_file_is_refused_before_any_game(tmp_path):
    results, deck = tmp_path / "balance.jsonl", tmp_path / "deck.toml"
    deck.write_text("[[card]]\nid = 1\n")
    refused = runs("play", "--results", str(results), "--deck", str(deck))
    assert refused.returncode != 0
    assert str(deck) in refused.stderr
    assert not results.exists()


def test_an_unknown_bot_is_refused_before_any_game(tmp_path):
    results = tmp_path / "balance.jsonl"
    refused = runs("play", "--results", str(results), "--bots", "random,grandmaster")
    assert refused.returncode != 0
    assert "unknown bot 'grandmaster'" in refused.stderr
    assert not results.exists()


def test_a_trait_and_a_round_cap_are_tables_of_their_own_and_the_caps_effect_is_told(tmp_path):
    results = tmp_path / "balance.jsonl"
    play = ("play", "--results", str(results), "--players", "4", "--games", "6")
    assert runs(*play, "--bots", "easy:steady").returncode == 0
    capped = runs(*play, "--bots", "easy:steady", "--round-cap", "6")
    assert capped.returncode == 0, capped.stderr
    assert "0 played, 6 to play" in capped.stdout  # another cap: other games
    older = lines(results)[0]  # a game kept before traits and caps were: vengeful, capped at 100
    for key in ("traits", "round_cap"):
        del older[key]
    older["kinds"] = ["easy"]
    with results.open("a", encoding="utf-8") as out:
        out.write(json.dumps(older) + "\n")
    shown = runs("summary", "--results", str(results))
    assert shown.returncode == 0, shown.stderr
    rows = [line for line in shown.stdout.splitlines() if line.startswith("| 4 ")]
    tables = {tuple(cell.strip() for cell in row.strip("|").split("|"))[:5] for row in rows}
    assert tables >= {
        ("4", "easy:steady", "100", "100", "6"),
        ("4", "easy:steady", "100", "6", "6"),
        ("4", "easy:vengeful", "100", "100", "1"),
    }
    (cap,) = [row for row in rows if "ended" not in row and row.count("|") == 8]
    cells = [cell.strip() for cell in cap.strip("|").split("|")]
    games = [g for g in lines(results) if g.get("round_cap") == 6]
    ended = sum(g["capped"] for g in games)
    assert cells[:6] == ["4", "easy:steady", "100", "6", "6", f"{ended} ({100 * ended / 6:.1f} %)"]
    assert ended and cells[6].startswith(tuple(f"{k} of {ended} (" for k in range(ended + 1)))


def test_a_table_of_two_bots_gives_each_its_share_of_the_wins_a_seat(tmp_path):
    results = tmp_path / "balance.jsonl"
    play = ("play", "--results", str(results), "--players", "4", "--games", "8")
    assert runs(*play, "--bots", "normal,random").returncode == 0
    shown = runs("summary", "--results", str(results))
    assert shown.returncode == 0, shown.stderr
    (table,) = [t for t in shown.stdout.split("\n\n") if "wins a seat held" in t]
    (row,) = table.splitlines()[2:]  # below the header and its rule: the one table of two bots
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:5] == ["4", "normal:vengeful,random:vengeful", "100", "100", "8"]
    shares = {part.split()[0]: float(part.split()[1]) for part in cells[5].split("(")[0].split("·")}
    assert set(shares) == {"normal:vengeful", "random:vengeful"}
    # two seats each: a game's win is the two bots' shares a seat, twice each
    assert 2 * shares["normal:vengeful"] + 2 * shares["random:vengeful"] == pytest.approx(
        100, abs=0.2
    )
    assert shares["normal:vengeful"] > shares["random:vengeful"]
