"""DESIGN's layering, checked on the source: the engine is pure, the protocol stands alone,
the client never imports the server (one small module of the command line does, and only
inside the functions that start or ask it, lazily), the client's core and its plain mode
never import Textual or rich: the full-screen client is one face among two; and no SQL is
written outside the store."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _modules(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    if node.module and node.level == 0:
        return {node.module.split(".")[0]}
    return set()


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= _modules(node)
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


SERVER_DOOR = ROOT / "gother_tui" / "cli" / "server_side.py"


def test_one_small_module_of_the_client_imports_the_server():
    importers = [p for p in sources("gother_tui") if "server" in imported_modules(p)]
    assert importers == [SERVER_DOOR]
    assert len(SERVER_DOOR.read_text(encoding="utf-8").splitlines()) < 150  # small


def test_the_server_is_imported_only_when_a_command_needs_it():
    """Not at the module's top level (an `if TYPE_CHECKING:` block, for types, is fine): so
    `gother join` never loads the server."""
    tree = ast.parse(SERVER_DOOR.read_text(encoding="utf-8"))
    top = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    eager = {name for node in top for name in _modules(node)}
    assert "server" not in eager


TEXTUAL_FREE = ("gother_tui/core", "gother_tui/plain")


@pytest.mark.parametrize(
    "path",
    [path for package in TEXTUAL_FREE for path in sources(package)],
    ids=lambda p: str(p.relative_to(ROOT / "gother_tui")),
)
def test_the_client_core_and_the_plain_mode_import_neither_textual_nor_rich(path):
    assert not imported_modules(path) & {"textual", "rich"}


def test_the_plain_client_and_the_core_load_no_textual():
    """Imported, not only written so: nothing the plain client or any module of the core
    imports brings Textual (or rich) along."""
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for package in TEXTUAL_FREE
        for path in sources(package)
    ]
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.partition('.')[0] in ('textual', 'rich')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "gother_tui.plain.client", *modules],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# The server's packages from the bottom up: each imports only packages below it (or the
# small leaves at the top of server/, which import none of ours). So the store knows the
# engine's values and nothing of tables or the edge, and the doors, clients of the edge like
# any other, are known to no package but `serve.py`, which starts them.
SERVER_FLOORS = (
    "game",
    "store",
    "bots",
    "tables",
    "ratings",
    "tournament",
    "edge",
    "doors",
    "serve",
)
LEAVES = {"files", "ratelimit", "searches", "tokens"}
# The client's: the core below its two faces, the command line above them.
CLIENT_FLOORS = ("core", ("tui", "plain"), "cli")
# The zygote is a program of the client's, run by its door (`python -m server.doors.zygote`):
# it alone of the server imports the client, and no server module imports it.
CLIENT_PROGRAMS = {ROOT / "server/doors/zygote.py", ROOT / "server/doors/rehearsal.py"}


def _floor(module: str, floors: tuple[str | tuple[str, ...], ...]) -> int | None:
    name = module.split(".")[1] if "." in module else ""
    for level, floor in enumerate(floors):
        if name == floor or (isinstance(floor, tuple) and name in floor):
            return level
    return None


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


@pytest.mark.parametrize("path", sources("server"), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_server_package_imports_only_the_ones_below_it(path):
    here = _floor(".".join(path.relative_to(ROOT).with_suffix("").parts), SERVER_FLOORS)
    for module in _imports(path):
        if module.startswith("gother_tui"):
            assert path in CLIENT_PROGRAMS, f"{path.name} imports the client ({module})"
        if not module.startswith("server.") or module.split(".")[1] in LEAVES:
            continue
        there = _floor(module, SERVER_FLOORS)
        assert here is not None and there is not None and there <= here, module


@pytest.mark.parametrize("path", sources("gother_tui"), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_client_package_imports_only_the_ones_below_it(path):
    here = _floor(".".join(path.relative_to(ROOT).with_suffix("").parts), CLIENT_FLOORS)
    for module in _imports(path):
        there = _floor(module, CLIENT_FLOORS) if module.startswith("gother_tui.") else None
        if there is not None and here is not None:
            assert there < here or there == here, module
            if isinstance(CLIENT_FLOORS[here], tuple) and there == here:  # tui and plain
                assert module.split(".")[1] == path.relative_to(ROOT).parts[1], module


def test_no_server_module_imports_the_zygote():
    importers = [
        path
        for path in sources("server")
        if any(module.startswith("server.doors.zygote") for module in _imports(path))
    ]
    assert importers == []


STORE = ROOT / "server" / "store"
# What a statement of SQL starts with (or the driver's import), as the code writes it.
SQL = re.compile(
    r"\b(SELECT .+ FROM|INSERT (OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)"
    r"|ALTER TABLE|PRAGMA)\b|^\s*import sqlite3|^\s*from sqlite3",
    re.MULTILINE,
)


def speaks_sql(path: Path) -> str | None:
    found = SQL.search(path.read_text(encoding="utf-8"))
    return None if found is None else found.group(0).strip()


def test_no_sql_is_written_outside_the_store():
    """The store's repositories are the one place that speaks to a database: a second
    database is then a second implementation of their interfaces, and nothing else."""
    code = [
        p for package in ("protocol", "server", "gother_tui", "bench") for p in sources(package)
    ]
    outside = {
        str(path.relative_to(ROOT)): found
        for path in code
        if STORE not in path.parents and (found := speaks_sql(path)) is not None
    }
    assert outside == {}


def test_the_sql_pattern_finds_the_stores_own():
    """The test above looks for something that is there to be found."""
    modules = (
        "schema.py",
        "database.py",
        "tables.py",
        "people.py",
        "outcomes.py",
        "tournaments.py",
    )
    for name in modules:
        assert speaks_sql(STORE / name), name
