"""README's Quick start is two commands, and its test command is the one CI runs: the whole
suite, the tests marked slow too, while a plain `pytest` leaves those out."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = ".venv/bin/python -m pytest"


def quick_start() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.DOTALL)


def collected(*args: str) -> str:
    """What pytest would run of one slow module with these arguments (none: as configured)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, *args, "tests/test_packaging.py"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    return done.stdout


def test_the_quick_start_is_two_commands_and_ci_runs_its_test_command():
    play, test = quick_start()
    assert "gother play" in play and PYTEST in test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci.replace("pip install -q", "pip install") == test


def test_the_test_command_runs_the_slow_tests_and_plain_pytest_leaves_them_out():
    _, test = quick_start()
    given = shlex.split(test.split(PYTEST, 1)[1])
    everything = collected(*given)
    assert "test_packaging.py::test_the_installed_wheel_runs_from_a_fresh_venv" in everything
    assert "deselected" not in everything
    quick = collected()  # the quick run while working
    assert "test_packaging.py::" not in quick and "deselected" in quick
