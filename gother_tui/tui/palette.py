"""The colours of the marks that carry one, always beside their word (never a colour
alone): taken from the theme's own named colours ($success, $warning, $error), so each
theme recolours them and none is written in Python."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style
from textual.color import Color

PLAIN = Style()
BOLD = Style(bold=True)
LOUD = Style(bold=True, reverse=True)


@dataclass(frozen=True, slots=True)
class Palette:
    """Colour-only styles; the default is none at all (a plain rendering, tests)."""

    success: Style = PLAIN
    warning: Style = PLAIN
    error: Style = PLAIN

    @classmethod
    def of_theme(cls, variables: Mapping[str, str]) -> Palette:
        """From a theme's CSS variables (`App.theme_variables`)."""
        return _palette(*(variables.get(name) for name in ("success", "warning", "error")))


@lru_cache(maxsize=8)  # made once a theme, not on every redraw
def _palette(success: str | None, warning: str | None, error: str | None) -> Palette:
    def colour(value: str | None) -> Style:
        return PLAIN if value is None else Style(color=Color.parse(value).rich_color)

    return Palette(colour(success), colour(warning), colour(error))


NO_COLOUR = Palette()
