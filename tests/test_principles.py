"""The principles the code cites ("Principle 6") are written in docs/principles.md, in the
repository: a citation names a principle that is there, and the page numbers them in order."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "principles.md"
SOURCES = ("protocol", "server", "gother_tui", "tests", "bench", "docs")


def written() -> list[int]:
    return [int(n) for n in re.findall(r"^(\d+)\. \*\*", PAGE.read_text("utf-8"), re.M)]


def citations() -> dict[str, set[int]]:
    cited: dict[str, set[int]] = {}
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".md") or path in (PAGE, Path(__file__)):
                continue
            numbers = re.findall(r"Principles? (\d+)", path.read_text("utf-8"))
            if numbers:
                cited[str(path.relative_to(ROOT))] = {int(n) for n in numbers}
    return cited


def test_the_page_numbers_its_principles_in_order():
    assert written() == list(range(1, len(written()) + 1)) and len(written()) >= 9


def test_every_principle_cited_is_written_on_the_page():
    known = set(written())
    cited = citations()
    assert len(cited) > 10  # the code does cite them
    assert {path: numbers - known for path, numbers in cited.items() if numbers - known} == {}


def test_no_citation_points_at_the_design_folder_a_clone_does_not_have():
    stale = [path for path in citations() if "DESIGN Principle" in (ROOT / path).read_text("utf-8")]
    assert stale == []
