"""The server's settings have one home each (issue 20 §4): what a table follows (grace, a
bot's delay, an idle player's time) is the table core's `Settings`, what the lobby holds to
(live tables, expiry) the lobby's; `ServerConfig`, which the command line reads, takes its
defaults from them rather than writing the numbers again."""

import ast
from dataclasses import fields
from pathlib import Path

from server.edge.config import ServerConfig
from server.tables import lobby
from server.tables.table import Settings

CONFIG = Path(__file__).resolve().parents[2] / "server" / "edge" / "config.py"
FROM_THE_TABLES = {
    "grace": Settings.grace,
    "bot_delay": Settings.bot_delay,
    "idle": Settings.idle,
    "max_tables": lobby.MAX_TABLES,
    "expire": lobby.EXPIRE,
}


def test_the_configs_table_defaults_are_the_tables_own():
    config = ServerConfig()
    assert {name: getattr(config, name) for name in FROM_THE_TABLES} == FROM_THE_TABLES
    assert set(FROM_THE_TABLES) <= {f.name for f in fields(ServerConfig)}


def test_the_config_writes_none_of_those_numbers_again():
    """Each of those defaults is a name in config.py, never a number written there too."""
    tree = ast.parse(CONFIG.read_text(encoding="utf-8"))
    written = {
        node.target.id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    assert not [name for name in FROM_THE_TABLES if isinstance(written[name], ast.Constant)]
