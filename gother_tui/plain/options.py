"""The `NAME=VALUE` words of the plain commands that make something (`create`, `tournament
new`): a form's choices typed on one line, the house rules' under their words
(protocol/house_rules.py)."""

from __future__ import annotations

from collections.abc import Iterable

from gother_tui.core.forms import house_rules
from protocol import ProtocolError
from protocol.checks import read
from protocol.house_rules import plain_words
from protocol.view import HouseRules, Variants


def split(
    words: Iterable[str], known: Iterable[str], command: str
) -> tuple[dict[str, str], list[str]]:
    """The options among `words` (each word with `=` in it, wherever it stands) and the other
    words; ValueError: one line naming an option not `known`, or one given twice."""
    known = tuple(known)
    chosen: dict[str, str] = {}
    others = []
    for word in words:
        if "=" not in word:
            others.append(word)
            continue
        option, _, value = word.partition("=")
        option = option.lower()
        if option not in known:
            listed = ", ".join(f"{o}=" for o in known)
            raise ValueError(f"{command}: no option {option!r} (the options: {listed}).")
        if option in chosen:
            raise ValueError(f"{command}: {option}= is given twice.")
        chosen[option] = value.lower()
    return chosen, others


def variants(chosen: dict[str, str], command: str) -> Variants:
    """The house rules chosen by their words; ValueError: one line saying what to fix."""
    try:
        return read(HouseRules, house_rules(chosen), "variants")  # strictly, as the server will
    except ValueError as exc:  # a number that is none, already in these words
        raise ValueError(f"{command}: {exc}.") from None
    except ProtocolError as exc:  # the protocol's field, in these words
        field, _, why = exc.message.partition(": ")
        raise ValueError(f"{command}: {plain_words().get(field, field)}: {why}.") from None
