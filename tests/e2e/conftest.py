"""Fixtures the whole-game tmux tests share: a server whose bots move at once, and a tmux
server whose terminals have an explicit UTF-8 environment."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e.e2ekit import Tmux, gother_serve, terminal_env


@pytest.fixture
def quick_bots_server(tmp_path) -> Iterator[int]:
    """The port of a `gother serve` keeping its games in tmp_path/games.db, its bots
    moving after 0.05 s."""
    with gother_serve(tmp_path, "--bot-delay", "0.05") as port:
        yield port


@pytest.fixture
def utf8_tmux(tmp_path) -> Iterator[Tmux]:
    home = tmp_path / "home"
    home.mkdir()
    mux = Tmux(terminal_env(home, PATH=os.environ.get("PATH", "/usr/bin:/bin"), LC_ALL="C.UTF-8"))
    try:
        yield mux
    finally:
        mux.kill()
