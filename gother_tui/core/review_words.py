"""A seat's review in words, for every face of the client: a summary line, the server's line
on the whole game, then the moments told, each in the server's sentence. Plain functions of
the protocol's `Review` (no Textual): the plain mode prints them, the review screen shows
them above its list of decisions."""

from __future__ import annotations

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.narrator import plural
from protocol import server_messages as sm
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move


def summary(review: sm.Review, name: str) -> str:
    """ "Ada in game 1: 16 decisions, 12 as the search would have made them, 3 as the hint
    said"."""
    moments = review.moments
    same = sum(m.played == m.advised for m in moments)
    line = (
        f"{name} in game {review.game}: {plural(len(moments), 'decision')}, {same} as the "
        f"search would have made them"
    )
    hinted = sum(m.followed_hint for m in moments)
    return f"{line}, {hinted} as the hint said" if hinted else line


def lines(review: sm.Review, name: str) -> list[str]:
    """The summary, the server's line on the whole game, then each moment told, the
    dearest first."""
    said = [summary(review, name)]
    if review.summary:
        said.append(review.summary)
    if not review.costliest:
        said.append("No moment stands out: none the search is sure cost you a chance to win.")
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
    """ "Round 2: take Velvet Cape; the search: draw blind (4 points given up)"; "as the
    search" when the two agree; "the hint's advice" when the move played was the hint's."""
    played = move_words(moment.played, seat, catalogue, names)
    if moment.followed_hint:
        played += ", the hint's advice"
    if moment.played == moment.advised:
        return f"Round {moment.round}: {played}, as the search"
    advised = move_words(moment.advised, seat, catalogue, names)
    return f"Round {moment.round}: {played}; the search: {advised} ({price(moment)})"


def price(moment: sm.ReviewMoment) -> str:
    """What the move played gave up, in words without a sign: "4 points given up", "yours
    2 points better", "no clear difference" (within the search's noise)."""
    if moment.given_up is None:  # an older server: the evaluator's Goth
        cost = moment.cost if round(moment.cost, 1) else 0.0  # not "-0.0"
        return f"{cost:.1f}"
    given_up, noise = moment.given_up, moment.noise or 0.0
    if abs(given_up) <= 2 * noise or round(given_up) == 0:
        return "no clear difference"
    if given_up > 0:
        return f"{given_up:.0f} points given up"
    return f"yours {-given_up:.0f} points better"
