"""DESIGN's layering, checked on the source: the engine is pure, the protocol stands alone,
the server never imports the client, the client never imports the server (one small module of
the command line does, and only inside the functions that start or ask it, lazily), the
client's core and its plain mode never import Textual or rich: the full-screen client is one
face among two; and no SQL is written outside the store."""

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
    assert len(SERVER_DOOR.read_text(encoding="utf-8").splitlines()) < 160  # small


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
    ("serve", "processes"),  # the programs: one process, or several of one host
)
LEAVES = {"files", "ratelimit", "searches", "tokens"}
# The client's: the core below its two faces, the command line above them, and the doors'
# zygote (`python -m gother_tui.zygote`, run by a door that never imports it) on top.
CLIENT_FLOORS = ("core", ("tui", "plain"), "cli", "zygote")


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
        assert not module.startswith("gother_tui"), f"{path.name} imports the client ({module})"
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


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Each module of `packages` -> the modules of theirs it imports, wherever the import
    stands (in a function, under TYPE_CHECKING): `from a.b import c` names a.b.c when c is
    a module, else a.b."""
    modules = {_module_of(path): path for package in packages for path in sources(package)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    inner = f"{node.module}.{alias.name}"
                    found.add(inner if inner in modules else node.module)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[name] = {module for module in found if module in modules and module != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The sets of modules that import each other, round a circle (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            circle = set()
            while (top := stack.pop()) != module:
                circle.add(top)
            if circle:
                circles.append(circle | {module})

    for module in graph:
        if module not in index:
            visit(module)
    return circles


def test_no_module_imports_one_that_imports_it_back():
    """The arrows run one way, type-only and lazy imports too: a name two modules both need
    has a home below both (server/doors/spec.py's DoorSpec was door.py's, whose kinds
    imported it back under TYPE_CHECKING)."""
    assert _circles(_module_graph(("protocol", "server", "gother_tui"))) == []


def test_the_circle_finder_finds_a_circle():
    """The test above looks for something that is there to be found."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [{"a", "b", "c"}]


STORE = ROOT / "server" / "store"
# What a statement of SQL starts with (or the driver's import), as the code writes it.
SQL = re.compile(
    r"\b(SELECT .+ FROM|INSERT (OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)"
    r"|ALTER TABLE|PRAGMA)\b|^\s*(import|from) (sqlite3|psycopg)\b",
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
        "postgres_schema.py",
        "postgres_database.py",
        "postgres.py",
        "copy.py",
    )
    for name in modules:
        assert speaks_sql(STORE / name), name


EDGE = ROOT / "server" / "edge"
HANDLERS = EDGE / "handlers"


@pytest.mark.parametrize("path", sorted(HANDLERS.glob("*.py")), ids=lambda p: p.name)
def test_a_handler_group_is_given_services_and_knows_no_other_group_nor_the_root(path):
    """The edge's rooms: each group of handlers imports the services it is given, never
    another group, the composition root, the gate or the dispatch that calls it."""
    above = {"server.edge.app", "server.edge.gate", "server.edge.dispatch"}
    for module in _imports(path):
        assert module not in above, module
        assert not module.startswith("server.edge.handlers"), module


def _matches_requests(path: Path) -> bool:
    return "case rq." in path.read_text(encoding="utf-8")


def test_one_match_hands_every_request_to_its_handler():
    assert [p for p in sources("server/edge") if _matches_requests(p)] == [EDGE / "dispatch.py"]


def test_the_joined_reply_is_built_in_one_place():
    builders = [
        path
        for path in sources("server/edge")
        if "server_messages.Joined(" in path.read_text(encoding="utf-8")
    ]
    assert builders == [EDGE / "seating.py"]


def test_the_turn_clock_is_a_value_of_its_own():
    """server/tables/clock.py needs nothing of the server: a value and its pure questions."""
    clock = ROOT / "server" / "tables" / "clock.py"
    assert {m.split(".")[0] for m in _imports(clock)} <= {"__future__", "dataclasses", "protocol"}


PLAIN = ROOT / "gother_tui" / "plain"
# what the plain client keeps for its commands, written by it alone (client.py)
KEPT = {"plan", "hint", "tables", "spoken", "drawing_all", "_plan", "_hint", "_tables"}


def _writes(path: Path) -> set[str]:
    """The attributes of other objects than `self` this module assigns to (or into)."""
    written = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute):
                owner = target.value
                if not (isinstance(owner, ast.Name) and owner.id == "self"):
                    written.add(target.attr)
    return written


@pytest.mark.parametrize("path", sources("gother_tui/plain"), ids=lambda p: p.name)
def test_what_the_plain_commands_keep_has_one_owner(path):
    assert not _writes(path) & KEPT


@pytest.mark.parametrize("path", sorted((PLAIN / "doing").glob("*.py")), ids=lambda p: p.name)
def test_a_plain_command_group_knows_no_other_group(path):
    for module in _imports(path):
        if module.startswith("gother_tui.plain.doing."):
            assert module == "gother_tui.plain.doing.where", module  # the checks they share
        assert module != "gother_tui.plain.lines", module
