"""The command line's one door into `server`, imported inside the functions that need it:
the client starts without loading the server, and no other module of gother_tui imports it
(tests/test_layering.py). Settings cross it as maps by field name, as the parser reads them."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol import requests, validate_request, view

if TYPE_CHECKING:
    from server.edge.app import GotherServer


class ServerSideError(Exception):
    """The server's code refused: a bad deck file, a bot turned away, no such game."""


def simulate(
    deck_path: str | None,
    players: int,
    games: int,
    seed: int,
    bots: list[str],
    variants: view.Variants,
    jobs: int,
    iterations: int | None = None,
) -> tuple[dict[str, Any], str]:
    """`gother simulate`: its summary and report (`iterations` None: the simulation's own)."""
    from server.bots.simulate import ITERATIONS, format_report
    from server.bots.simulate import simulate as run
    from server.game import DeckError, default_deck, load_deck

    try:
        deck = default_deck() if deck_path is None else load_deck(deck_path)
        deck.check_seats(players, deck_path or "original deck")
    except DeckError as exc:
        raise ServerSideError(f"bad deck file: {exc}") from None
    summary = run(deck, players, games, seed, bots, variants, jobs, iterations or ITERATIONS)
    return vars(summary), format_report(summary)


def default_data_dir(db: str) -> Path:
    from server.doors.ssh import default_data_dir as data_dir

    return data_dir(db)


def self_signed(db: str, host: str) -> tuple[str, str]:
    """`gother serve --tls` without a certificate: the (certfile, keyfile) kept for it."""
    from server.edge.tls import self_signed as kept

    cert, key = kept(default_data_dir(db) / "tls", host)
    return str(cert), str(key)


def config_defaults() -> dict[str, Any]:  # for `gother serve --help`
    from server.edge.config import ServerConfig

    return vars(ServerConfig())


def serve(doors: dict[str, dict[str, Any]], **config: Any) -> None:
    """`gother serve` till SIGINT or SIGTERM: `config` a ServerConfig's, `doors` each
    door's options by its kind (server/doors/kinds.py); with `processes` > 1, that many of
    it (server/processes.py; ValueError: not with --db)."""
    from server.doors.kinds import KINDS
    from server.edge.config import ServerConfig
    from server.processes import many
    from server.serve import run

    if config.get("processes", 1) > 1:
        return many(sys.argv[1:], **config)
    chosen = [KINDS[kind].options(fields) for kind, fields in doors.items()]
    asyncio.run(run(ServerConfig(**config), chosen))


def is_shared(db: str) -> bool:
    """Whether several game processes can share the store `db` names (PostgreSQL)."""
    from server.store.kinds import is_postgres

    return is_postgres(db)


def run_door(kind: str, options: dict[str, Any] | None, key_file: str, **spec: Any) -> None:
    """`gother door KIND` (`options` the door's, `spec` a DoorSpec's): serve till SIGTERM."""
    from server.doors.door import DoorUnreachable, read_door_key, run_alone
    from server.doors.kinds import KINDS
    from server.doors.spec import DoorSpec

    assert options is not None
    chosen = KINDS[kind].options(options)
    try:
        asyncio.run(run_alone(DoorSpec(chosen, key=read_door_key(Path(key_file)), **spec)))
    except (DoorUnreachable, ValueError, OSError) as exc:  # no key, no server, port taken
        raise ServerSideError(str(exc)) from None


def play_bot(url: str, table: str, bot: dict[str, Any]) -> tuple[int, ...]:
    """`gother bot`: play `table` to the end as the NetBot of these fields; the winners'."""
    from server.bots.netbot import BotRefused, NetBot, run_bot

    try:
        final = run_bot(NetBot(url, table, **bot))
    except BotRefused as exc:
        raise ServerSideError(str(exc)) from None
    return tuple(final.winner or ())


def export(db: str, table: str, file: str, game: int | None, seat: int | None = None) -> int:
    """`gother export`: write the record (with `seat`'s views, from 0); its number of moves."""
    from server.tables.export import ExportError, export_game

    try:
        return export_game(db, table, file, game, seat)
    except ExportError as exc:
        raise ServerSideError(str(exc)) from None


def copy_db(source: str, target: str, table_log: str | None, replace: bool) -> str:
    """`gother db copy`: what was copied, said (OSError: nothing was, and why)."""
    from server.store.copy import copy_host

    return copy_host(source, target, table_log, replace).summary()


class PrivateServer:
    """`gother play`'s server: 127.0.0.1, a free port, games in memory, in a loop of its own."""

    def __init__(self, bot_delay: float, heard_by: Callable[[], float] | None = None) -> None:
        self.bot_delay, self.heard_by = bot_delay, heard_by
        self._server: GotherServer | None = None

    async def start(self) -> int:
        from server.edge import app, config

        settings = config.ServerConfig(host="127.0.0.1", port=0, db=":memory:")
        settings.bot_delay, settings.heard_by = self.bot_delay, self.heard_by
        self._server = app.GotherServer(settings)
        await self._server.start()
        return self._server.port

    def create_table(self, request: requests.Create) -> str:
        """A table made as a `create` request would make it (and checked as one); its id."""
        checked = validate_request(request.to_wire())  # as the server reads a received one
        assert self._server is not None and isinstance(checked, requests.Create), "not started"
        return self._server.lobby.create(checked).id

    async def close(self) -> None:
        if self._server is not None:
            await self._server.close()
