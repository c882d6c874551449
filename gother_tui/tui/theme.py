"""The client's colours: ANSI colours only, so the terminal's own 16-colour palette is what
people see (a Linux console, an old xterm, a light or dark scheme all stay readable)."""

from __future__ import annotations

from textual.theme import Theme

GOTHER = Theme(
    name="gother",
    ansi=True,
    primary="ansi_magenta",
    secondary="ansi_cyan",
    accent="ansi_bright_magenta",
    warning="ansi_yellow",
    error="ansi_red",
    success="ansi_green",
    foreground="ansi_default",
    background="ansi_default",
    surface="ansi_default",
    panel="ansi_default",
    boost="ansi_default",
    dark=True,
    variables={
        "ansi-background": "ansi_black",
        "ansi-foreground": "ansi_white",
        "border": "ansi_magenta",
        "border-blurred": "ansi_bright_black",
        "block-cursor-foreground": "ansi_black",
        "block-cursor-background": "ansi_magenta",
        "block-cursor-text-style": "bold",
        "input-cursor-background": "ansi_white",
        "input-cursor-foreground": "ansi_black",
        "input-cursor-text-style": "none",
        "input-selection-background": "ansi_magenta",
        "input-selection-foreground": "ansi_black",
        "screen-selection-background": "ansi_magenta",
        "screen-selection-foreground": "ansi_black",
        "footer-key-foreground": "ansi_bright_magenta",
        "footer-description-foreground": "ansi_default",
        "footer-background": "ansi_default",
    },
)

THEMES = (GOTHER,)
