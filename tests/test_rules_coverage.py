"""Every rule id of RULES.md (R1…, H1…) is named by at least one test, so a reader can go
from a rule to the test that proves it; docs/rules_coverage.md lists them."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "RULES.md"


def rule_ids() -> list[str]:
    return re.findall(r"\*\*([RH]\d+)\b", RULES.read_text(encoding="utf-8"))


def named_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"def (test_\w+)", path.read_text(encoding="utf-8")))
    return names


@pytest.mark.skipif(not RULES.exists(), reason="../shared/RULES.md is not beside this clone")
def test_every_rule_id_is_named_by_a_test():
    ids = rule_ids()
    assert len(ids) >= 18  # R1-R15, H1-H3 at the time of writing
    names = named_tests()
    missing = [i for i in ids if not any(n.startswith(f"test_{i.lower()}_") for n in names)]
    assert missing == []


@pytest.mark.skipif(not RULES.exists(), reason="../shared/RULES.md is not beside this clone")
def test_the_coverage_page_lists_every_rule():
    page = (ROOT / "docs" / "rules_coverage.md").read_text(encoding="utf-8")
    assert [i for i in rule_ids() if f"| {i} " not in page] == []
