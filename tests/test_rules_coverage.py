"""Every rule id of the project's rules (docs/rules.md: R1…, H1…) is named by at least one
test, so a reader can go from a rule to the test that proves it. docs/rules_coverage.md
lists them; it is made from the tests (`python -m tests.test_rules_coverage`), so it
cannot drift. Rulings change first in the design folder's RULES.md: where that folder sits
beside this clone, its ids must be ours too."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
PAGE = ROOT / "docs" / "rules_coverage.md"
DESIGN_RULES = ROOT.parent / "shared" / "RULES.md"
RULE = re.compile(r"\*\*([RH]\d+) ([^.*]+)\.?\*\*")


def rules(path: Path = RULES) -> list[tuple[str, str]]:
    """(id, title) of every rule, in order."""
    return RULE.findall(path.read_text(encoding="utf-8"))


def rule_tests() -> dict[str, list[str]]:
    """Test id (file::name) of every test named after a rule, by rule id."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for name in re.findall(
            r"^(?:async )?def (test_([rh]\d+)_\w+)", path.read_text("utf-8"), re.M
        ):
            test, rule = name
            found.setdefault(rule.upper(), []).append(f"{path.relative_to(ROOT)}::{test}")
    return found


def coverage_page() -> str:
    tests = rule_tests()
    lines = [
        "# Rules coverage",
        "",
        "Every rule of [the rules](rules.md) and the tests named after it. Made from the tests",
        "by `python -m tests.test_rules_coverage`; `tests/test_rules_coverage.py` fails if a",
        "rule has no test or this page is out of date.",
        "",
        "| id | rule | tests |",
        "|----|------|-------|",
    ]
    for rule, title in rules():
        named = "<br>".join(f"`{t}`" for t in tests.get(rule, ()))
        lines.append(f"| {rule} | {title.strip()} | {named} |")
    return "\n".join(lines) + "\n"


def test_every_rule_id_is_named_by_a_test():
    ids = [rule for rule, _ in rules()]
    assert len(ids) >= 18  # R1-R15, H1-H3 at the time of writing
    assert [rule for rule in ids if rule not in rule_tests()] == []


def test_the_coverage_page_is_up_to_date():
    assert PAGE.read_text(encoding="utf-8") == coverage_page()


@pytest.mark.skipif(not DESIGN_RULES.exists(), reason="no design folder beside this clone")
def test_our_rules_have_every_id_of_the_design_folder():
    assert [r for r, _ in rules()] == [r for r, _ in rules(DESIGN_RULES)]


if __name__ == "__main__":
    PAGE.write_text(coverage_page(), encoding="utf-8")
    print(f"wrote {PAGE}")


def test_architecture_grep_lands_on_code_for_every_rule():
    """docs/architecture.md says `grep -rnw R11 server/game` lands on code: run it as
    written, and for every rule id (the house rules' ids are the host's, tagged too)."""
    import subprocess

    written = re.search(
        r"`(grep [^`]*R11 server/game)`", (ROOT / "docs/architecture.md").read_text()
    )
    assert written is not None, "docs/architecture.md no longer shows the grep"
    untagged = []
    for rule, _ in rules():
        command = written.group(1).replace("R11", rule).split()
        found = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if found.returncode != 0 or not found.stdout.strip():
            untagged.append(rule)
    assert untagged == []
