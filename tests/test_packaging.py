"""The wheel as users get it: built from a copy of the source, installed with its
dependencies into a fresh venv, and run from outside the source tree. Package data (deck
files, every .tcss, the help text) must be inside it. Slow (a build and an install from
the package index): plain `pytest` leaves it out, `pytest -m ""` runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("gother_tui", "server", "protocol")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def run(*command: str | Path, cwd: Path) -> str:
    result = subprocess.run(
        [str(c) for c in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=200,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build from a copy, so the build leaves nothing in the working tree."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", "tests"
        ),
    )
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        base / "dist",
        ".",
        cwd=source,
    )
    (built,) = (base / "dist").glob("*.whl")
    return built


def test_the_wheel_holds_every_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    # every file of the packages that is not code is data a user needs (decks, styles,
    # help, the web door's pages and fonts): no list to forget a new one in
    expected = {
        p.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for p in (ROOT / package).rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    }
    assert {
        "server/game/decks/original.toml",
        "gother_tui/tui/help/rules.txt",
        "server/doors/web/static/fonts/DejaVuSansMono.ttf",
        "server/doors/web/static/fonts/GotherAnkh.ttf",
        "server/doors/web/static/fonts/LICENSE",
        "server/doors/web/static/xterm/xterm.js",
        "server/doors/web/static/xterm/LICENSE",
        "server/doors/web/templates/terminal.html",
    } <= expected
    assert any(name.endswith(".tcss") for name in expected)
    assert expected - names == set()
    assert not any(name.startswith("tests/") for name in names)


def test_the_installed_wheel_runs_from_a_fresh_venv(wheel, tmp_path):
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    bin_dir = venv / "bin"
    run(
        bin_dir / "python",
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
        wheel,
        cwd=tmp_path,
    )
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    assert run(bin_dir / "gother", "--version", cwd=tmp_path).strip() == f"gother {version}"
    # The web door's packages are an extra: without it, --web says what to install.
    web = subprocess.run(
        [bin_dir / "gother", "serve", "--port", "0", "--web", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert web.returncode == 2 and "gother-than-thou[web]" in web.stderr, web.stderr
    # The installed copy, not the source tree: the deck and the styles come from the wheel.
    report = run(
        bin_dir / "gother", "simulate", "--players", "3", "--games", "2", "--json", cwd=tmp_path
    )
    assert '"games": 2' in report
    check = (
        "import gother_tui, pathlib; from gother_tui.tui.app import GotherApp;"
        "from gother_tui.tui.start_menu import StartApp;"
        "root = pathlib.Path(gother_tui.__file__).parent;"
        "assert 'site-packages' in str(root), root;"
        "paths = [*GotherApp.CSS_PATH, *StartApp.CSS_PATH, root / 'tui' / 'help' / 'rules.txt'];"
        "missing = [str(p) for p in paths if not pathlib.Path(p).is_file()];"
        "assert not missing, missing; print('ok')"
    )
    assert run(bin_dir / "python", "-c", check, cwd=tmp_path).strip() == "ok"
