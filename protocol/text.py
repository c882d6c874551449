"""What untrusted text may hold: player and table names, and chat lines.

Both are drawn on other people's terminals, so neither may carry anything that moves the
cursor, changes what the line around it shows, or hides itself. A name must also look like
no one else and like none of the marks a client draws beside names: "Victim (you)" would
make two "(you)" rows on the victim's screen, and "Vlad ⚙" would fake the bot mark.
Names are compared by their confusable skeleton (Unicode TS #39): "Lydia" in Cyrillic
letters, or with an invisible mark inside, is the same name as "Lydia".
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs.confusables import confusables_data

# Characters that are letters or symbols to Unicode but show nothing: a name made of them
# alone would be invisible, and in chat they only hide things.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")

# Marks that draw nothing (Default_Ignorable code points of category Mn): the combining
# grapheme joiner, Khmer inherent vowels, Mongolian and Unicode variation selectors. They
# only pick a glyph's style, or carry hidden text ("hi" plus a sentence in selectors).
_IGNORABLE_MARKS = (
    (0x034F, 0x034F),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
)


# Every such mark, dropped by str.translate: a name is tidied at each request that names one.
_DROPPED: dict[int, None] = {
    code: None for low, high in _IGNORABLE_MARKS for code in range(low, high + 1)
}


def _ignorable_mark(char: str) -> bool:
    return ord(char) in _DROPPED


# Line and tab breaks become a space, so "a\nb" reads "a b" instead of "ab".
_BREAKS = "\t\n\v\f\r\x85\u2028\u2029"

# The symbols clients draw as marks (turn, bot, cursor, online, scores) and the tags they
# put after a name. gother_tui's glyph table draws only these (tests/tui checks it).
RESERVED_SYMBOLS = frozenset("▶⚙›●☥☠✚✖⚠")  # noqa: RUF001 (the cursor mark, meant)
RESERVED_TAGS = ("(you)", "(away)", "(watching)", "(rematch)", "[bot]", "covers)", "covers]")


def _shown(char: str) -> bool:
    """A character a terminal draws in place: no control, format (zero-width, bidi, tag),
    private-use, surrogate or unassigned code point."""
    return unicodedata.category(char)[0] != "C"


ZWJ = "\u200d"


def clean_text(text: str) -> str:
    """A chat line safe to show: breaks made spaces, every invisible character removed
    (controls incl. ESC, zero-width and bidi marks, tag characters, blank letters,
    variation selectors and the other marks that draw nothing), ends stripped. A zero-width
    joiner stays only inside an emoji sequence (👩‍👩‍👧), where it joins two visible pictures
    into one instead of hiding anything."""
    chars = [" " if char in _BREAKS else char for char in text]
    kept = [
        c
        for i, c in enumerate(chars)
        if (_shown(c) and c not in BLANKS and not _ignorable_mark(c))
        or (c == ZWJ and _joins_emoji(chars, i))
    ]
    return "".join(kept).strip()


def tidy_name(name: str) -> str:
    """A name as it is kept: the marks that draw nothing dropped, ends stripped. Anything
    else invisible is refused by `name_problem` rather than silently removed."""
    return name.translate(_DROPPED).strip()


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


# -- look-alikes ---------------------------------------------------------------------------
# Unicode's confusables.txt (TS #39), as the library ships it: each line "source → prototype"
# is an edge both ways, so every prototype is the centre of a star of its look-alikes.
_CONFUSABLES: dict[str, list[str]] = {
    key.strip("\u200e"): [e["c"].strip("\u200e") for e in entries]
    for key, entries in confusables_data.items()
}


@lru_cache(maxsize=65536)  # bounded: names can hold any of a million code points
def _prototype(char: str) -> str:
    """The one string every look-alike of `char` maps to: the centre of its star (a pair
    with no centre takes its smaller member, the same from either side)."""
    around: list[str] = [char, *_CONFUSABLES.get(char, ())]
    return max(around, key=lambda c: (len(_CONFUSABLES.get(c, ())), _desc(c)))


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)  # max() of these is the smallest string


def _map(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(_prototype(c) for c in text))


# Decoration at a name's ends (symbols, punctuation) makes no new person: "Vlad ⛭" is the
# bot Vlad with a gear drawn next to him.
def _decoration(char: str) -> bool:
    return unicodedata.category(char)[0] in "SPZ"


@lru_cache(maxsize=4096)  # every join compares with every seated name of the table
def skeletons(name: str) -> frozenset[str]:
    """The keys names are compared by (TS #39 skeletons): the marks that draw nothing and
    every space gone, NFKC, decoration at the ends dropped (unless it is all there is),
    each character mapped to its prototype, case folded, mapped again. Mapped before the
    fold (Cyrillic "\u041c" maps to "M") and after it ("LYDIA" is "lydia", but "I" alone maps to
    "l"): a look-alike shares one key or the other."""
    text = "".join(c for c in unicodedata.normalize("NFKC", tidy_name(name)) if not c.isspace())
    core = text
    while core and _decoration(core[0]):
        core = core[1:]
    while core and _decoration(core[-1]):
        core = core[:-1]
    core = core or text
    return frozenset(_map(_map(form).casefold()) for form in (core, core.casefold()))


def looks_like(name: str, other: str) -> bool:
    """Would `name` pass for `other` on someone's screen?"""
    return not skeletons(name).isdisjoint(skeletons(other))
