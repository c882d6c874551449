"""The outside client in another language: tests/protocol/node/probe.mjs, a Node.js bot
written from docs/protocol.md alone with `ws` and `@msgpack/msgpack` (pinned in its
package-lock.json), plays whole games against bots on a real `gother serve` process. Its
msgpack decoder reads 64-bit integers as BigInt, so a number a JavaScript number would
round (a seed of 63 bits) fails it, as does a request left without its rid's reply."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.kits.prockit import ServerProcess

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="needs Node.js and npm (.ci/run installs them)",
)

HERE = Path(__file__).with_name("node")
GAMES = 3


def installed() -> None:
    """`npm ci` once, from the lock file, as bench/bgio does."""
    if not (HERE / "node_modules" / "ws").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


async def test_a_node_bot_plays_whole_games_from_the_document(tmp_path):
    await asyncio.to_thread(installed)
    server = await ServerProcess.start(
        "--db", str(tmp_path / "games.db"), "--bot-delay", "0", "--no-announce"
    )
    try:
        probe = await asyncio.create_subprocess_exec(
            "node",
            str(HERE / "probe.mjs"),
            server.url,
            str(GAMES),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(probe.communicate(), 120)
    finally:
        await server.stop()
    assert probe.returncode == 0, err.decode()
    played = json.loads(out)
    assert played["games"] == GAMES and played["moves"] >= GAMES * 5, played
    assert played["asked"] == played["answered"], played  # every request had its reply
    assert len(set(played["seeds"])) == GAMES, played  # one seed a game, each exact


async def test_a_node_client_finds_the_server_as_the_document_says(tmp_path):
    """tests/protocol/node/points.mjs: the points of issue 31 §5, from the document."""
    await asyncio.to_thread(installed)
    server = await ServerProcess.start(
        "--db",
        str(tmp_path / "games.db"),
        *("--bot-delay", "0", "--no-announce", "--tournament-password", "night"),
    )
    try:
        probe = await asyncio.create_subprocess_exec(
            "node",
            str(HERE / "points.mjs"),
            server.url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(probe.communicate(), 120)
    finally:
        await server.stop()
    assert probe.returncode == 0, err.decode()
    assert len(json.loads(out)["checked"]) == 12, out
