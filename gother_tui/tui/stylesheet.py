"""Textual CSS parsed once a process, not once a stylesheet.

Textual keeps a stylesheet's parsed rules in that stylesheet only, and re-parses all of
its sources in a fresh one at every `reparse` (a theme change, and twice for each screen
mode a client opens): about 40 % of a client's start was spent parsing the same CSS. A
`SharedStylesheet` takes each source's rules from `PARSED`, keyed by all a parse depends
on (the source, where it came from, its tie-breaker and scope, and the theme's variables),
so a source is parsed once a process for each theme. `parse_ahead` fills it before a
session needs it: a door's zygote (gother_tui/zygote/) does, and its children share
the rules it parsed instead of parsing them again.

Rules are never changed once parsed (Textual's own cache hands the same ones out again),
so sharing them is safe; the keys are bounded by sources times themes used.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.dom import DOMNode

Variables = frozenset[tuple[str, str]]
Key = tuple[str, CSSLocation, bool, int, str, Variables]
PARSED: dict[Key, list[RuleSet]] = {}  # the process's parsed sources


class SharedStylesheet(Stylesheet):
    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._key = frozenset((variables or {}).items())

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._key = frozenset(variables.items())

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, self._key)
        rules = PARSED.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            PARSED[key] = rules
        return rules

    def reparse(self) -> None:
        # Textual's parses in a fresh Stylesheet, without this class's cache; a parse
        # here also leaves the rules as they were if a source fails, and raises
        self.parse()


def parse_ahead(app: App[Any]) -> int:
    """Parse into `PARSED`, in `app`'s theme, every source a client may read: its CSS files
    and the DEFAULT_CSS of each widget class imported so far (with each tie-breaker its
    subclasses give it); how many sources."""
    sheet = SharedStylesheet(variables=app.get_css_variables())
    sources = {
        (location, css, True, tie_breaker, scope)
        for node in _subclasses(DOMNode)
        for location, css, tie_breaker, scope in _default_css(node)
    }
    for path in app.css_path:
        sheet.read(path)
    sources |= {(where, source.content, False, 0, "") for where, source in sheet.source.items()}
    for location, css, is_default, tie_breaker, scope in sources:
        sheet._parse_rules(css, location, is_default, tie_breaker, scope)
    return len(sources)


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _subclasses(sub)


def _default_css(node: type[DOMNode]) -> list[tuple[CSSLocation, str, int, str]]:
    """What an instance of `node` adds to its app's stylesheet (Textual's own reckoning,
    which reads only the class's bases: no instance is made)."""
    bases = SimpleNamespace(_node_bases=DOMNode._css_bases(node))
    return DOMNode._get_default_css(cast(DOMNode, bases))
