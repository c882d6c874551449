"""`gother simulate` through the real console script: figures, JSON keys, clear errors."""

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GOTHER = str(Path(sys.executable).with_name("gother"))
JSON_KEYS = {
    "games",
    "rounds_median",
    "rounds_p90",
    "capped",
    "seat_win_rate",
    "bot_win_rate",
    "swoons_per_game",
    "reshuffles_per_game",
    "games_per_second",
}


def gother(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [GOTHER, *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )


def test_simulate_json_has_the_documented_keys_and_consistent_figures():
    result = gother(
        "simulate",
        "--players",
        "4",
        "--games",
        "12",
        "--seed",
        "5",
        "--bots",
        "heuristic,random",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary.keys() >= JSON_KEYS
    assert summary["games"] == 12
    assert len(summary["seat_win_rate"]) == 4
    # every game has a winner (shared wins split), so the rates add up to one
    assert sum(summary["seat_win_rate"]) == pytest.approx(1, abs=1e-3)
    assert sum(summary["bot_win_rate"].values()) == pytest.approx(1, abs=1e-3)
    assert set(summary["bot_win_rate"]) == {"heuristic", "random"}
    assert 1 <= summary["rounds_median"] <= summary["rounds_p90"] <= 100


def test_simulate_is_reproducible_from_its_seed():
    args = (
        "simulate",
        "--players",
        "3",
        "--games",
        "6",
        "--seed",
        "9",
        "--bots",
        "random",
        "--json",
    )
    first, second = json.loads(gother(*args).stdout), json.loads(gother(*args).stdout)
    first.pop("games_per_second"), second.pop("games_per_second")
    assert first == second


def test_simulate_spreads_games_over_jobs_with_the_same_result():
    args = ("simulate", "--players", "3", "--games", "8", "--seed", "2", "--json")
    alone = json.loads(gother(*args).stdout)
    spread = json.loads(gother(*args, "--jobs", "2").stdout)
    alone.pop("games_per_second"), spread.pop("games_per_second")
    assert alone == spread


def test_simulate_prints_a_readable_report():
    result = gother("simulate", "--players", "3", "--games", "3", "--bots", "random")
    assert result.returncode == 0, result.stderr
    for label in (
        "rounds",
        "round cap hit",
        "win rate by seat",
        "swoons per game",
        "games per second",
    ):
        assert label in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--players", "7"), "the game is for 3-5 players"),
        (("--players", "2"), "2 or 6 only with --two-or-six"),
        (("--games", "0"), "must be at least 1"),
        (("--games", "many"), "is not a whole number"),
        (("--iterations", "0"), "must be at least 1"),
        (("--bots", "genius"), "unknown bot kind genius"),
        (("--fate-discard", "bottom"), "invalid choice"),
    ],
)
def test_bad_arguments_get_a_clear_error(args, message):
    result = gother("simulate", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_deck_file_is_refused_before_any_game(tmp_path):
    deck = tmp_path / "bad.toml"
    deck.write_text(
        '[[card]]\nid = 0\nname = "X"\nflavour = ""\ngoth = 12\nsickness = 0\nmoney = 0\n'
    )
    result = gother("simulate", "--deck", str(deck), "--games", "1")
    assert result.returncode == 2
    assert f"{deck}: card #1 (id 0) field 'goth': 12 is outside -9..9" in result.stderr


def test_the_readmes_bad_deck_sample_is_what_gother_says(tmp_path):
    """README's sample: the original deck with card #7's Goth made 12, as the line says."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sample = readme[readme.index("$ gother simulate --deck mydeck.toml") :].splitlines()
    original = Path(__file__).resolve().parents[2] / "server/game/decks/original.toml"
    cards = original.read_text(encoding="utf-8").split("[[card]]")
    cards[7] = re.sub(r"goth = -?\d+", "goth = 12", cards[7], count=1)  # cards[0]: the header
    (tmp_path / "mydeck.toml").write_text("[[card]]".join(cards), encoding="utf-8")
    result = subprocess.run(
        [GOTHER, *sample[0].split()[2:]], capture_output=True, text=True, timeout=120,
        cwd=tmp_path, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.splitlines() == [sample[1]]


def test_two_or_six_players_only_as_the_labelled_house_rule():
    result = gother("simulate", "--players", "6", "--two-or-six", "--games", "2", "--json")
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["seat_win_rate"]) == 6


def test_version_and_help():
    assert gother("--version").stdout.startswith("gother ")
    for command in ("simulate", "serve", "bot", "export"):
        result = gother(command, "--help")
        assert result.returncode == 0 and "usage: gother " + command in result.stdout


def test_simulate_with_the_search_in_iterations_mode_repeats_from_its_seed():
    """Issue 12: a searching bot in a simulation runs a fixed number of iterations a move,
    never a think time, so the same seed gives the same report; win rates are reported
    under the names given, difficulties included."""
    from server.bots.simulate import Summary, simulate
    from server.game import Variants, default_deck

    def run() -> Summary:
        summary = simulate(
            default_deck(),
            3,
            games=3,
            seed=4,
            kinds=["hard", "normal", "easy"],
            variants=Variants(round_cap=6),
            iterations=8,
        )
        return dataclasses.replace(summary, games_per_second=None)

    first = run()
    assert set(first.bot_win_rate) == {"hard", "normal", "easy"}
    assert first == run()


def test_gother_simulate_iterations_makes_a_hard_bot_repeat_from_its_seed():
    """The command line's way to the same: `--iterations N` for the search."""
    args = ("simulate", "--players", "3", "--games", "2", "--seed", "9", "--round-cap", "4")
    args += ("--bots", "hard,normal,normal", "--iterations", "6", "--json")
    first, second = gother(*args), gother(*args)
    assert first.returncode == 0, first.stderr
    reports = [json.loads(r.stdout) for r in (first, second)]
    for report in reports:
        report.pop("games_per_second")
    assert reports[0] == reports[1]
    assert set(reports[0]["bot_win_rate"]) == {"hard", "normal"}


def test_simulate_refuses_an_unknown_bot_before_playing():
    from server.bots.simulate import simulate
    from server.game import default_deck

    with pytest.raises(ValueError, match="unknown bot 'genius'"):
        simulate(default_deck(), 3, games=1, seed=1, kinds=["normal", "genius"])


def test_simulate_takes_difficulty_names_and_reports_under_them():
    result = gother(
        "simulate", "--players", "3", "--games", "6", "--bots", "easy,normal,random", "--json"
    )
    assert result.returncode == 0, result.stderr
    rates = json.loads(result.stdout)["bot_win_rate"]
    assert set(rates) == {"easy", "normal", "random"}
    assert abs(sum(rates.values()) - 1.0) < 0.01  # every game's win shared among the names


def test_play_and_bot_take_difficulty_names_and_kinds():
    from gother_tui.cli.parser import build_parser

    parser = build_parser()
    for name in ("easy", "normal", "hard", "gentle", "ismcts"):
        assert parser.parse_args(["play", "--bots", name]).bots == name
        bot = parser.parse_args(["bot", "ws://127.0.0.1:1", "--table", "t", "--kind", name])
        assert bot.kind == name
