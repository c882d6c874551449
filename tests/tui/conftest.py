"""Fixtures for the client tests: a scripted fake server, a private seat-token file, and an
app factory wired to both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.tui.app import GotherApp
from server.edge.app import GotherServer, ServerConfig
from tests.tui.clientkit import URL, FakeServer


@pytest.fixture
def fake() -> FakeServer:
    return FakeServer()


@pytest.fixture
def store(tmp_path) -> SeatStore:
    return SeatStore(tmp_path / "seats.json")


@pytest.fixture
def make_app(fake: FakeServer, store: SeatStore) -> Callable[..., GotherApp]:
    def make(**options: Any) -> GotherApp:
        settings: dict[str, Any] = {
            "url": URL,
            "name": "Raven",
            "first_retry": 0.01,  # reconnect at once: tests wait on state, not on time
            "max_retry": 0.05,
            **options,
        }
        return GotherApp(ClientOptions(**settings), transport=fake.transport, seat_store=store)

    return make


@pytest.fixture
async def live_server(tmp_path):  # -> GotherServer on 127.0.0.1, a free port, this loop
    server = GotherServer(
        ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "games.db"), bot_delay=0.0)
    )
    await server.start()
    yield server
    await server.close()
