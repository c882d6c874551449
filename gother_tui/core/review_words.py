"""A seat's review in words, for every face of the client: a summary line, then the
costliest moments' sentences (the server wrote those). Plain functions of the protocol's
`Review` (no Textual): the plain mode prints them, the review screen shows them above its
list of decisions."""

from __future__ import annotations

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.narrator import plural
from protocol import server_messages as sm
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move


def summary(review: sm.Review, name: str) -> str:
    """ "Ada in game 1: 16 decisions, 12 as the search would have made them, 4.2 Goth given
    up"."""
    moments = review.moments
    same = sum(m.played == m.advised for m in moments)
    lost = sum(max(0.0, m.cost) for m in moments)
    return (
        f"{name} in game {review.game}: {plural(len(moments), 'decision')}, {same} as the "
        f"search would have made them, {lost:.1f} Goth given up"
    )


def lines(review: sm.Review, name: str) -> list[str]:
    """The summary, then each costly moment's sentence, the dearest first."""
    said = [summary(review, name)]
    if not review.costliest:
        said.append("No decision cost anything by the evaluator.")
    said.extend(c.sentence for c in review.costliest)
    return said


def move_words(move: Move, seat: int, catalogue: Catalogue, names: list[str]) -> str:
    """A move in a few words: "Velvet Cape to you, Stomach Bug to Vlad"."""
    match move:
        case Distribute(give=give):
            return ", ".join(
                f"{catalogue.name(card)} to {'you' if to == seat else names[to]}"
                for to, card in give
            )
        case Draw(card=int(card)):
            return f"take {catalogue.name(card)}"
        case Draw():
            return "draw blind"
        case DiscardFate(card=card):
            return f"drop {catalogue.name(card)}"
        case DiscardHand(card=card):
            return f"let go {catalogue.name(card)}"


def moment_line(moment: sm.ReviewMoment, seat: int, catalogue: Catalogue, names: list[str]) -> str:
    """ "Round 2: take Velvet Cape; the search: draw blind (1.4)"; "as the search" when the
    two agree."""
    played = move_words(moment.played, seat, catalogue, names)
    if moment.played == moment.advised:
        return f"Round {moment.round}: {played}, as the search"
    advised = move_words(moment.advised, seat, catalogue, names)
    cost = moment.cost if round(moment.cost, 1) else 0.0  # not "-0.0"
    return f"Round {moment.round}: {played}; the search: {advised} ({cost:.1f})"
