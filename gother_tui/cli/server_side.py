"""The command line's one door into `server`. Every import of it is here, inside the
function that needs it: the client starts without loading the server, and no other module
of gother_tui imports it (tests/test_layering.py holds both)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.view import Variants

if TYPE_CHECKING:
    from server.app import GotherServer


class ServerSideError(Exception):
    """The server's code refused: a bad deck file, a bot turned away, no such game."""


def simulate(
    deck_path: str | None,
    players: int,
    games: int,
    seed: int,
    bots: list[str],
    variants: Variants,
    jobs: int,
    iterations: int | None = None,
) -> tuple[dict[str, Any], str]:
    """`gother simulate`: the summary, and the report people read; `iterations`: a
    searching bot's a move (None: the simulation's own default)."""
    from server.game import DeckError, default_deck, load_deck
    from server.simulate import ITERATIONS, format_report
    from server.simulate import simulate as run

    try:
        deck = default_deck() if deck_path is None else load_deck(deck_path)
        deck.check_seats(players, deck_path or "original deck")
    except DeckError as exc:
        raise ServerSideError(f"bad deck file: {exc}") from None
    summary = run(deck, players, games, seed, bots, variants, jobs, iterations or ITERATIONS)
    return summary, format_report(summary)


def default_data_dir(db: str) -> Path:
    from server.ssh import default_data_dir as data_dir

    return data_dir(db)


def self_signed(db: str, host: str) -> tuple[str, str]:
    """`gother serve --tls` without a certificate: (certfile, keyfile) of the one made
    and kept in the data folder."""
    from server.tls import self_signed as kept

    cert, key = kept(default_data_dir(db) / "tls", host)
    return str(cert), str(key)


def config_defaults() -> dict[str, Any]:
    """Every ServerConfig field's default, by name (`gother serve --help` says them)."""
    import dataclasses

    from server.app import ServerConfig

    return {f.name: getattr(ServerConfig(), f.name) for f in dataclasses.fields(ServerConfig)}


def serve(ssh: dict[str, Any] | None, web: dict[str, Any] | None, **config: Any) -> None:
    """`gother serve`: run until SIGINT or SIGTERM. `config` is a ServerConfig's fields,
    `ssh` an SshOptions' and `web` a WebOptions' (None: no such door)."""
    from server.app import ServerConfig, run
    from server.ssh import SshLimits, SshOptions

    ssh_door = None if ssh is None else SshOptions(**{**ssh, "limits": SshLimits(**ssh["limits"])})
    web_door = None
    if web is not None:
        from server.web.door import WebOptions

        web_door = WebOptions(**web)
    asyncio.run(run(ServerConfig(**config, ssh=ssh_door, web=web_door)))


def play_bot(
    url: str, table: str, kind: str, name: str, seat: int | None, password: str | None
) -> tuple[int, ...]:
    """`gother bot`: play `table` to the end; the winners' seats."""
    from server.netbot import BotRefused, NetBot, run_bot

    try:
        final = run_bot(NetBot(url, table, kind, name, seat, password))
    except BotRefused as exc:
        raise ServerSideError(str(exc)) from None
    return tuple(final.winner or ())


def export(db: str, table: str, file: str, game: int | None) -> int:
    """`gother export`: write the record; the number of moves in it."""
    from server.export import ExportError, export_game

    try:
        return export_game(db, table, file, game)
    except ExportError as exc:
        raise ServerSideError(str(exc)) from None


class PrivateServer:
    """`gother play`'s server: 127.0.0.1, a free port, games in memory. Its methods run in
    the server's own event loop."""

    def __init__(self, bot_delay: float) -> None:
        self.bot_delay = bot_delay
        self._server: GotherServer | None = None

    async def start(self) -> int:
        """Listen; the port."""
        from server.app import GotherServer, ServerConfig

        config = ServerConfig(host="127.0.0.1", port=0, db=":memory:", bot_delay=self.bot_delay)
        self._server = GotherServer(config)
        await self._server.start()
        return self._server.port

    def create_table(self, request: dict[str, Any]) -> str:
        """A table made as a `create` request would make it; its id."""
        assert self._server is not None, "not started"
        return self._server.lobby.create(request).id

    async def close(self) -> None:
        if self._server is not None:
            await self._server.close()
