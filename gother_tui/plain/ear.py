"""The plain mode told for the ear, its default (`--verbose` tells the whole story).

A round must be heard in about a minute (docs/plain.md): another player's turn is one line,
said once it ends ("Vlad (Goth 6) gave you Stomach Bug, Sickness 2 to 5: you swoon; Lenore
swoons."), your own moves go unsaid but for what they did beyond your choice (a swoon, a
debt), and your draws are one line of their names (`hand` says their values). Scores and
cards are in words, never in marks: espeak-ng says nothing for ☥ and drops the sign of a
number after a mark, an arrow or a bracket ("☥-1" is heard "one", "→ -1" "right arrow
one"), while after a word and a space "-1" is heard "minus one".

- `SPOKEN`: the glyph set of the ear ("Goth +3 Money -2", "Goth 2 to -1"), ASCII only.
- `changes(outcome)`, `flags(outcome, who, you)`, `sickness_words(sums)`: what a move did
  to one player's scores, and what that means ("you swoon"), in those words.
- `Teller`: the narrator's lines in, the ear's lines out, one line at a time.
"""

from __future__ import annotations

from collections.abc import Mapping

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import Line, Narrator
from gother_tui.core.preview import Outcome, Sums

SPOKEN = Glyphs(
    goth="Goth ",
    sickness="Sickness ",
    money="Money ",
    turn=">",
    cursor=">",
    bot="(bot)",
    away="(away)",
    covered="(a bot covers)",
    warning="!",
    swoon="SWOON",
    debt="in debt",
    arrow="to",
    dash="-",
    sep=",",
    ellipsis="...",
    dot="*",
    spread="give or take ",
    ascii_only=True,
)

PRESENCE = frozenset({"joined", "left", "away", "back", "covered", "gap"})


def sickness_words(sums: Sums) -> str:
    """ "3", or "2 banked" (a cure that soaks up the next 2): no minus to lose."""
    return f"{sums.banked} banked" if sums.banked else str(sums.sickness)


def changes(outcome: Outcome) -> list[str]:
    """ "Goth 2 to -1", "Sickness 2 banked to 1": each score the move changed."""
    before, after = outcome.before, outcome.after
    parts = []
    if before.goth != after.goth:
        parts.append(f"Goth {before.goth} to {after.goth}")
    if before.sickness_sum != after.sickness_sum:
        parts.append(f"Sickness {sickness_words(before)} to {sickness_words(after)}")
    if before.money != after.money:
        parts.append(f"Money {before.money} to {after.money}")
    return parts


def flags(outcome: Outcome, who: str, you: bool) -> list[str]:
    """ "you swoon", "Vlad is in debt": what the change means, in a word or two."""
    before, after = outcome.before, outcome.after
    if after.swoon:
        return [f"{who} swoon{'' if you else 's'}"]
    be = "are" if you else "is"
    if after.in_debt and not before.in_debt:
        return [f"{who} {be} in debt"]
    if before.in_debt and not after.in_debt:
        return [f"{who} {be} out of debt"]
    return []


class Teller:
    """Turns the narrator's lines, in the order told, into the ear's lines.

    `tell(line)` gives what to say now (often nothing: another's turn is kept until it
    ends); `draws()` the draws not yet said, once a run of them is over."""

    def __init__(self, you: int | None) -> None:
        self.you = you
        self.other: list[Line] = []  # the turn of another player, so far
        self.drawn: list[Line] = []  # this viewer's draws not yet said
        self._reshuffling = False  # the last line said was a reshuffle: a run is said once

    def tell(self, line: Line, catalogue: Catalogue, names: Mapping[int, str]) -> list[str]:
        said = self._tell(line, catalogue, names)
        if line.kind == "reshuffle":  # said once in a row: a draw between says nothing
            again, self._reshuffling = self._reshuffling, True
            return [] if again else said
        if said:
            self._reshuffling = False
        return said

    def _tell(self, line: Line, catalogue: Catalogue, names: Mapping[int, str]) -> list[str]:
        narrator = Narrator(catalogue, SPOKEN, names, self.you)
        if line.kind in PRESENCE:
            return [line.text]
        if line.kind in ("turn", "over"):
            said = self._turn_over(narrator) + self.draws(catalogue)
            if line.kind == "over" or line.actor == self.you:
                said.append(line.text)
            return said
        theirs = line.actor is not None and line.actor != self.you and line.kind != "swoon"
        if self.other or theirs:
            self.other.append(line)  # what befalls you on their turn is theirs to tell
            return []
        if line.kind == "draw":
            self.drawn.append(line)
            return []
        return self._yours(line, narrator)

    def draws(self, catalogue: Catalogue) -> list[str]:
        """ "You drew Pet Raven; Sunburn.": the names alone (`hand` says their values; the
        next placement's options what they would do)."""
        if not self.drawn:
            return []
        cards = [catalogue.name(line.card) for line in self.drawn if line.card is not None]
        self.drawn = []
        return [f"You drew {'; '.join(cards)}."]

    def _yours(self, line: Line, narrator: Narrator) -> list[str]:
        """Your own move, unsaid (you chose it, the next question follows) but for what it
        did beyond your choice; a line of no one's (a reshuffle) as told."""
        if line.kind == "reshuffle":
            return ["Discard pile reshuffled into the draw pile."]
        if line.actor is None:
            return [line.text]
        if line.kind == "swoon":
            return [f"{narrator.who(line.actor)} swoon{'' if line.actor == self.you else 's'}."]
        if line.outcome is None or line.target is not None:
            return []  # a card given to another: a swoon it causes has a line of its own
        said = [f for f in flags(line.outcome, "you", True) if "swoon" not in f]
        return [f"{s[:1].upper()}{s[1:]}." for s in said]

    def so_far(self, catalogue: Catalogue, names: Mapping[int, str]) -> list[str]:
        """The turn of another player under way, as one line, kept to end as it will."""
        kept = list(self.other)
        said = self._turn_over(Narrator(catalogue, SPOKEN, names, self.you))
        self.other = kept
        return [text.removesuffix(".") + ", so far." for text in said]

    def _turn_over(self, narrator: Narrator) -> list[str]:
        """The turn of another player that has just ended, as one line."""
        lines, self.other = self.other, []
        if not lines:
            return []
        seat = lines[0].actor
        parts: list[str] = []
        after: list[str] = []  # said last: what befell the table, not you
        now = ""
        for line in lines:
            if line.kind == "swoon" and line.actor != self.you:
                parts.append(f"{narrator.who(line.actor)} swoons")
            elif line.kind == "reshuffle":  # once, however many times it was
                after[:] = ["discard pile reshuffled"]
            elif line.kind != "place" or line.outcome is None or line.card is None:
                continue
            elif line.target == self.you and self.you is not None:
                effect = ", ".join(changes(line.outcome))
                said = f"gave you {narrator.catalogue.name(line.card)}"
                said += f", {effect}" if effect else ""
                done = flags(line.outcome, "you", True)
                parts.append(said + (f": {', '.join(done)}" if done else ""))
            elif line.target is None:  # what they kept: where their Goth stands now
                now = f" (Goth {line.outcome.after.goth})"
            elif self.you is None:  # a spectator hears who was given what
                parts.append(
                    f"gave {narrator.who(line.target)} {narrator.catalogue.name(line.card)}"
                )
        if not parts:
            parts = ["played" if self.you is None else "gave you nothing"]
        return [f"{narrator.who(seat)}{now} {'; '.join(parts + after)}."]
