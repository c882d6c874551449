"""What untrusted text may hold: player and table names, and chat lines.

Both are drawn on other people's terminals, so neither may carry anything that moves the
cursor, changes what the line around it shows, or hides itself. A name must also look like
no one else and like none of the marks a client draws beside names: "Victim (you)" would
make two "(you)" rows on the victim's screen, and "Vlad ⚙" would fake the bot mark.
"""

from __future__ import annotations

import unicodedata

# Characters that are letters or symbols to Unicode but show nothing: a name made of them
# alone would be invisible, and in chat they only hide things.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")

# Line and tab breaks become a space, so "a\nb" reads "a b" instead of "ab".
_BREAKS = "\t\n\v\f\r\x85\u2028\u2029"

# The symbols clients draw as marks (turn, bot, cursor, online, scores) and the tags they
# put after a name. gother_tui's glyph table draws only these (tests/client checks it).
RESERVED_SYMBOLS = frozenset("▶⚙›●☥☠✚✖⚠")  # noqa: RUF001 (the cursor mark, meant)
RESERVED_TAGS = ("(you)", "(away)", "(watching)", "(rematch)", "[bot]", "covers)", "covers]")


def _shown(char: str) -> bool:
    """A character a terminal draws in place: no control, format (zero-width, bidi, tag),
    private-use, surrogate or unassigned code point."""
    return unicodedata.category(char)[0] != "C"


ZWJ = "\u200d"


def clean_text(text: str) -> str:
    """A chat line safe to show: breaks made spaces, every invisible character removed
    (controls incl. ESC, zero-width and bidi marks, tag characters, blank letters), ends
    stripped. A zero-width joiner stays only inside an emoji sequence (👩‍👩‍👧), where it
    joins two visible pictures into one instead of hiding anything."""
    chars = [" " if char in _BREAKS else char for char in text]
    kept = [
        c
        for i, c in enumerate(chars)
        if (_shown(c) and c not in BLANKS) or (c == ZWJ and _joins_emoji(chars, i))
    ]
    return "".join(kept).strip()


def _joins_emoji(chars: list[str], i: int) -> bool:
    around = chars[i - 1 : i + 2 : 2] if i > 0 else []
    return len(around) == 2 and all(unicodedata.category(c) == "So" for c in around)


def name_problem(name: str) -> str | None:
    """Why `name` (already stripped) cannot be a player's or table's name, or None."""
    if not name.isprintable() or any(c in BLANKS for c in name):
        return "must not contain control or invisible characters"
    if not any(_visible(c) for c in name):
        return "must contain a visible character"
    if any(c in RESERVED_SYMBOLS for c in name):
        return f"must not contain the marks {' '.join(sorted(RESERVED_SYMBOLS))}"
    folded = name.casefold()
    tag = next((t for t in RESERVED_TAGS if t in folded), None)
    if tag is not None:
        return f"must not contain {tag!r}, which the table shows beside names"
    return None


def _visible(char: str) -> bool:
    # Spaces and combining marks alone draw nothing of their own.
    return not char.isspace() and char not in BLANKS and unicodedata.category(char)[0] != "M"
