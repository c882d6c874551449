"""docs/architecture.md's commands run as written (issue 20 §3): every line of its `sh`
blocks, from the clone's root, with this interpreter as `python`, succeeds and prints
something. A moved module or a renamed handler shows here before a reader finds out."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"


def commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line]


def test_the_page_shows_commands():
    assert len(commands()) >= 3


@pytest.mark.parametrize("command", commands())
def test_a_command_of_the_page_runs_as_written(command):
    argv = shlex.split(command)
    if argv[0] == "python":
        argv[0] = sys.executable
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip()
