"""DESIGN's layering, checked on the source: the engine is pure, the protocol stands alone,
and the client never imports the server (only the command line starts one, lazily)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", sources("server/game"), ids=lambda p: p.name)
def test_engine_is_pure(path):
    forbidden = {"websockets", "textual", "asyncio", "socket", "sqlite3", "gother_tui"}
    assert not imported_modules(path) & forbidden


@pytest.mark.parametrize("path", sources("protocol"), ids=lambda p: p.name)
def test_protocol_imports_neither_server_nor_client(path):
    assert not imported_modules(path) & {"server", "gother_tui", "websockets", "textual"}


def test_client_never_imports_server_outside_the_command_line():
    offenders = [
        p.name
        for p in sources("gother_tui")
        if not (p.name == "cli.py" or p.name.startswith("cli_"))  # the command line
        and "server" in imported_modules(p)
    ]
    assert offenders == []
