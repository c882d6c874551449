"""What the public record says about the draw pile after a reshuffle (R14).

When the draw pile runs out, the discard pile, which lay face up, becomes the new draw pile:
from then on the draw pile can only hold those cards, less the ones drawn since, and a
player's hidden hand can only hold as many of them as that player has drawn blind since.
Both facts are public, but the view shows neither: they are read here from the view's log,
by replaying the discard pile from a moment it is known to have been empty (the deal, or an
earlier reshuffle) up to the last reshuffle. A log too short for that (the server sends the
last 30 events) says nothing, and `draw_facts` returns None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.game import (
    Drew,
    Event,
    FateDiscarded,
    HandDiscarded,
    Reshuffled,
    Swooned,
    TurnBegan,
    View,
)


@dataclass(frozen=True, slots=True)
class DrawFacts:
    """`pool`: the cards that lay in the discard pile at the last reshuffle (None before the
    first one: the draw pile is then what was left after the deal). `drawn`: per seat, blind
    draws from that pool since."""

    pool: frozenset[int] | None
    drawn: tuple[int, ...]


def draw_facts(view: View) -> DrawFacts | None:
    """The draw pile's public facts, or None when the log does not tell (or does not add up
    to the view, which would be a bug, and must not mislead a bot)."""
    log, players = view.log, len(view.players)
    # The dealer's first turn of round 1 happens once: a log that starts there is complete.
    dealt = bool(log) and view.dealer is not None and log[0] == TurnBegan(view.dealer, 1)
    shuffles = [i for i, event in enumerate(log) if isinstance(event, Reshuffled)]
    if not shuffles:
        return DrawFacts(None, (0,) * players) if dealt else None
    last = shuffles[-1]
    if len(shuffles) > 1:
        start = shuffles[-2] + 1  # the discard pile was empty just after the one before
    elif dealt:
        start = 0
    else:
        return None
    pool = _replay_discard([], log[start:last])
    reshuffled = log[last]
    assert isinstance(reshuffled, Reshuffled)
    if pool is None or len(pool) != reshuffled.count:
        return None
    since = log[last + 1 :]
    if _replay_discard([], since) != sorted(view.discard):
        return None
    blind = [e.seat for e in since if isinstance(e, Drew) and e.source == "deck"]
    taken = reshuffled.count - view.deck_count  # the pool's cards drawn since
    if len(blind) == taken + 1:
        # With one card left, the draw that took it is logged just after the reshuffle it
        # caused; with none left (the discard pile was empty then), it drew from the pool.
        blind = blind[1:]
    if len(blind) != taken:
        return None
    return DrawFacts(frozenset(pool), tuple(blind.count(seat) for seat in range(players)))


def _replay_discard(discard: list[int], events: Sequence[Event]) -> list[int] | None:
    """The discard pile after `events` (sorted), from `discard`; None if a card is taken
    from it that was not there."""
    pile = list(discard)
    for event in events:
        match event:
            case FateDiscarded(card=card) | HandDiscarded(card=card):
                pile.append(card)
            case Swooned(cards=cards):
                pile.extend(cards)
            case Drew(source="discard", card=card):
                if card not in pile:
                    return None
                pile.remove(card)
    return sorted(pile)
