"""The store's tests run against both stores: SQLite, and PostgreSQL from a server of the
session's own (tests/kits/pgkit.py: started once on 127.0.0.1, a fresh database for each test,
skipped with the reason where PostgreSQL cannot run here)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.store.kinds import Store, open_store
from tests.kits.pgkit import Cluster, missing

Opener = Callable[[], Store]


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    cluster = Cluster.started()
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def pg_url(postgres: Cluster) -> str:
    return postgres.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def where(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    """(--db, --table-log) of a host of this kind."""
    if kind == "sqlite":
        return str(tmp_path / "games.db"), None
    return request.getfixturevalue("pg_url"), str(tmp_path / "table-log.db")


@pytest.fixture
def opener(where: tuple[str, str | None]) -> Iterator[Opener]:
    """Opens the host's store (again, after a close: a restart); all closed at the end."""
    opened: list[Store] = []

    def open_it() -> Store:
        opened.append(open_store(*where))
        return opened[-1]

    yield open_it
    for store in opened:
        with contextlib.suppress(Exception):  # closed by the test already
            store.close()


@pytest.fixture
def store(opener: Opener) -> Store:
    return opener()
