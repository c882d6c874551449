"""bench/processes.py plays its load on a host of several game processes sharing a
PostgreSQL (issue 34 §4): every seat connects to the host's address, and those whose table
another process holds follow `elsewhere` there and play it, with no error."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.kits.pgkit import missing

BENCH = Path(__file__).resolve().parents[2] / "bench"

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def test_a_host_of_two_processes_plays_every_table_its_seats_sent_on_to_the_other_half():
    done = subprocess.run(
        [sys.executable, str(BENCH / "processes.py"), "--tables", "4", "--moves", "6",
         "--think", "0.05", "--processes", "2"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {
        (cells[0], int(cells[1])): cells
        for cells in (line.split() for line in done.stdout.splitlines())
        if cells and cells[0] in ("sqlite", "postgresql")
    }
    assert set(rows) == {("sqlite", 1), ("postgresql", 2)}, done.stdout
    for cells in rows.values():
        tables, players, moves_per_s = cells[2:5]
        assert (tables, players, cells[7]) == ("4", "16", "0"), done.stdout  # 0 errors
        assert float(moves_per_s) > 0, done.stdout
    # the tables were made at each process in turn; the seats of the other's half follow
    assert rows["sqlite", 1][8] == "0" and rows["postgresql", 2][8] == "8", done.stdout
