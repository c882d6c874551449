"""A seat's review in words, for every face of the client: a summary line, then the
costliest moments' sentences (the server wrote those). Plain functions of the protocol's
`Review` (no Textual): the plain mode prints them, the review screen shows them above its
list of decisions."""

from __future__ import annotations

from gother_tui.narrator import plural
from protocol import server_messages as sm


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
