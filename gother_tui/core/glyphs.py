"""The symbols the client draws with, in a Unicode set and a plain ASCII set.

Every mark that carries meaning (debt, near swoon, away…) is a glyph *and* a word or
letter, never a colour alone, so the table reads the same in 16 colours, in monochrome and
on a Linux console.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Glyphs:
    goth: str
    sickness: str
    money: str
    turn: str  # whose turn it is
    cursor: str  # the highlighted card
    bot: str
    away: str
    covered: str  # a bot is playing for an absent human
    warning: str  # near swoon
    swoon: str
    debt: str
    arrow: str
    dash: str  # between what happened and what it did: "gave you X — Sickness 2 → 5"
    sep: str
    ellipsis: str
    dot: str  # connected
    you: str = "(you)"
    rematch: str = "(rematch)"  # asked for a rematch
    watching: str = "(watching)"  # a spectator's chat line
    spread: str = "±"  # how far off a rating may be: "1523 ±240"
    ascii_only: bool = False


# The marks drawn beside a player's name (the players panel, chat, the game-over table): a
# name may contain none of them (protocol.text.RESERVED_*), so none can be faked.
NAME_MARKS = (
    "goth",
    "sickness",
    "money",
    "turn",
    "cursor",
    "bot",
    "away",
    "covered",
    "warning",
    "swoon",
    "dot",
    "you",
    "rematch",
    "watching",
)


UNICODE = Glyphs(
    goth="☥",
    sickness="☠",
    money="$",
    turn="▶",
    cursor="›",  # noqa: RUF001 (a glyph, meant)
    bot="⚙",
    away="(away)",
    covered="(⚙ covers)",
    warning="⚠",
    swoon="✖ SWOON",
    debt="DEBT",
    arrow="→",
    dash="—",
    sep="·",
    ellipsis="…",
    dot="●",
)

ASCII = Glyphs(
    goth="G",
    sickness="S",
    money="$",
    turn=">",
    cursor=">",
    bot="[bot]",
    away="(away)",
    covered="[bot covers]",
    warning="!",
    swoon="X SWOON",
    debt="DEBT",
    arrow="->",
    dash="-",
    sep="|",
    ellipsis="...",
    dot="*",
    spread="+/-",
    ascii_only=True,
)


def wants_ascii(environ: Mapping[str, str] | None = None) -> bool:
    """ASCII on a Linux console (no Unicode font) or when the locale isn't UTF-8."""
    env = os.environ if environ is None else environ
    if env.get("TERM") == "linux":
        return True
    # The first of these that is set decides the character set, as in setlocale(3).
    locale = next((env[k] for k in ("LC_ALL", "LC_CTYPE", "LANG") if env.get(k)), "")
    return "utf-8" not in locale.lower() and "utf8" not in locale.lower()


def glyphs_for(ascii_only: bool) -> Glyphs:
    return ASCII if ascii_only else UNICODE
