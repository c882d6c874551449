"""What is worth interrupting a player for, from the lines a new view added: your turn
begins, you swoon, someone swoons, you fall into or leave debt, someone is one turn from
winning. The app shows each as a toast (and the turn also in the terminal's title, with a
bell when asked for); none takes the focus or a key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gother_tui.core.narrator import Line, names_of
from protocol.constants import WIN_GOTH
from protocol.view import View

Severity = Literal["information", "warning", "error"]
SEVERITIES: tuple[Severity, ...] = ("information", "warning", "error")  # mildest first


@dataclass(frozen=True, slots=True)
class Alert:
    text: str
    severity: Severity = "information"
    your_turn: bool = False  # the one that sets the terminal's title and rings the bell


def alerts(before: View | None, after: View, added: Sequence[Line]) -> list[Alert]:
    you = after.seat
    names = names_of(after.players)
    found = []
    for line in added:
        if line.kind == "turn" and line.actor == you and not after.over:
            found.append(Alert(f"Your turn (round {line.round}).", your_turn=True))
        elif line.kind == "swoon" and line.actor == you:
            found.append(Alert("You swooned: your Fate pile is gone.", "error"))
        elif line.kind == "swoon":
            found.append(Alert(f"{names.get(line.actor or 0, '?')} swooned."))
        elif line.target == you or (line.actor == you and line.target is None):
            if "debt" in line.marks:
                found.append(Alert("You are in debt: you may draw only from the deck.", "warning"))
            elif "out_of_debt" in line.marks:
                found.append(Alert("You are out of debt."))
    if before is not None and not after.over and before.table.game == after.table.game:
        was = {p.seat: p.goth for p in before.players}
        for p in after.players:
            if p.goth >= WIN_GOTH > was.get(p.seat, 0):
                who = "You have" if p.seat == you else f"{names[p.seat]} has"
                end = "your" if p.seat == you else "their"
                found.append(
                    Alert(
                        f"{who} {p.goth} Goth Points: {WIN_GOTH}+ at the end of {end} "
                        "own turn wins.",
                        "warning",
                    )
                )
    return found
