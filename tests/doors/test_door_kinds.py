"""The doors as registries (issue 33 §4): the command line's (gother_tui/cli/doors/) and
the server's (server/doors/kinds.py) name the same doors, what the one reads becomes the
other's options, and every option a door takes is in docs/hosting.md."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.doors import DOORS
from server.doors.kinds import KINDS

HOSTING = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"
ACCESS = {"ssh": ["--ssh-open"]}  # what a door needs beside its port to be let run


def test_the_command_line_and_the_server_know_the_same_doors():
    assert list(DOORS) == list(KINDS)
    assert all(name == door.name for name, door in DOORS.items())


@pytest.mark.parametrize("kind", list(DOORS))
def test_what_the_command_line_reads_becomes_the_door_options(kind, tmp_path):
    parser = build_parser()
    given = ["serve", f"--{kind}", "0", *ACCESS.get(kind, []), "--db", str(tmp_path / "g.db")]
    args = parser.parse_args(given)
    fields = DOORS[kind].options(args, parser, None)
    assert fields is not None
    options = KINDS[kind].options(fields)
    assert kind == options.KIND and options.port == 0
    assert DOORS[kind].options(parser.parse_args(["serve"]), parser, None) is None  # not asked


@pytest.mark.parametrize("kind", list(DOORS))
def test_every_door_option_is_in_the_hosting_guide(kind):
    parser = argparse.ArgumentParser(add_help=False)
    DOORS[kind].add_options(parser)
    DOORS[kind].add_alone(parser)
    flags = set(re.findall(r"--[a-z][a-z-]*", parser.format_usage()))
    guide = HOSTING.read_text(encoding="utf-8")
    assert flags and {flag for flag in flags if f"`{flag}" not in guide} == set()
