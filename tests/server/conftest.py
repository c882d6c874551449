"""A real server on 127.0.0.1, port 0, in the test's own event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import GotherServer, ServerConfig


@pytest.fixture
def config(tmp_path, request: pytest.FixtureRequest) -> ServerConfig:
    """A server on a database file; a test overrides fields with `indirect`
    parametrization: @pytest.mark.parametrize("config", [{"rate": 5}], indirect=True)."""
    config = ServerConfig(
        host="127.0.0.1", port=0, db=str(tmp_path / "games.db"), bot_delay=0.0, grace=60.0
    )
    for key, value in getattr(request, "param", {}).items():
        setattr(config, key, value)
    return config


@pytest.fixture
async def server(config) -> AsyncIterator[GotherServer]:
    srv = GotherServer(config)
    await srv.start()
    yield srv
    await srv.close()


@pytest.fixture
def url(server) -> str:
    return f"ws://127.0.0.1:{server.port}"
