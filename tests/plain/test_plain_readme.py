"""README's plain-mode sample is what the plain client says (tests/plain/readme_sample.py
makes it from a seeded game; `python -m tests.plain.readme_sample` prints it anew)."""

from __future__ import annotations

from pathlib import Path

from tests.plain.readme_sample import sample

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readmes_plain_sample_is_real_output():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Plain line mode") :]
    block = section[section.index("```text\n") + len("```text\n") :]
    assert block[: block.index("```")].splitlines() == sample()
