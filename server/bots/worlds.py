"""Sampled worlds for the search: games that agree with every public fact a view holds.

The bot's own hand, every Fate pile, the discard pile and the cards others are known to hold
stay where the view shows them. The cards it cannot see are dealt to the other hands (each
to its hand count) and to the draw pile. After a reshuffle (R14) the view says more
(`draw_pool`, `pool_draws`): the draw pile holds only cards of the last reshuffle, so the
unseen cards from before it must be in hands, and a hand holds no more of the reshuffled
cards than its owner has drawn blind since.
"""

from __future__ import annotations

import random

from server.game import Deck, Game, View, legal


def unseen_cards(view: View, deck_size: int) -> list[int]:
    """Every card the viewer cannot place: not in its hand, any Fate pile, the discard pile
    or a card another player is known to hold. Sorted, so sampling depends only on the rng."""
    seen = set(view.hand or ()) | set(view.discard)
    for player in view.players:
        seen.update(player.fate)
        seen.update(player.known_hand)
    return [card for card in range(deck_size) if card not in seen]


def determinize(view: View, deck: Deck, rng: random.Random) -> Game:
    """A world consistent with every public fact of `view`."""
    me = view.seat
    assert me is not None and view.hand is not None
    assert view.turn is not None and view.dealer is not None and view.phase != "lobby"
    unseen = unseen_cards(view, len(deck))
    hidden = {p.seat: p.hand_count - len(p.known_hand) for p in view.players if p.seat != me}
    dealt, draw_pile = _deal_after_reshuffle(unseen, hidden, view, rng) or _deal(
        unseen, hidden, rng
    )
    if len(draw_pile) != view.deck_count:
        raise ValueError(
            f"the view does not add up: {len(draw_pile)} unseen cards left for a draw pile of "
            f"{view.deck_count}"
        )
    hands = [
        list(view.hand) if p.seat == me else [*p.known_hand, *dealt[p.seat]] for p in view.players
    ]
    return Game.from_position(
        deck,
        hands=hands,
        fates=[player.fate for player in view.players],
        draw_pile=draw_pile,
        discard=view.discard,
        turn=view.turn,
        dealer=view.dealer,
        phase=view.phase,
        round=view.round,
        variants=view.variants,
        known=[player.known_hand for player in view.players],
        seed=rng.getrandbits(64),
        draw_pool=view.draw_pool,
        pool_draws=view.pool_draws,
    )


Dealt = tuple[dict[int, list[int]], list[int]]  # hidden cards by seat, and the draw pile


def _deal(unseen: list[int], hidden: dict[int, int], rng: random.Random) -> Dealt:
    """Any unseen card anywhere: before the first reshuffle."""
    rng.shuffle(unseen)
    dealt = {}
    for seat, count in hidden.items():
        dealt[seat], unseen = unseen[:count], unseen[count:]
    return dealt, unseen


def _deal_after_reshuffle(
    unseen: list[int],
    hidden: dict[int, int],
    view: View,
    rng: random.Random,
) -> Dealt | None:
    """Hidden hands and a draw pile honouring the last reshuffle, or None when there was
    none (or the facts cannot be met, which would be a bug: then sample as if unknown)."""
    pool, drawn, deck_count = view.draw_pool, view.pool_draws, view.deck_count
    if pool is None:
        return None
    old = [c for c in unseen if c not in pool]  # held since before the reshuffle
    new = [c for c in unseen if c in pool]
    rng.shuffle(old)
    rng.shuffle(new)
    must = {seat: max(0, count - drawn[seat]) for seat, count in hidden.items()}
    spare = len(old) - sum(must.values())  # old cards beyond the hands' minimums
    free = [seat for seat, count in hidden.items() for _ in range(count - must[seat])]
    if spare < 0 or spare > len(free) or len(new) - (len(free) - spare) != deck_count:
        return None
    rng.shuffle(free)
    extra = {seat: free[:spare].count(seat) for seat in hidden}
    dealt: dict[int, list[int]] = {}
    for seat, count in hidden.items():
        olds = must[seat] + extra[seat]
        dealt[seat] = old[:olds] + new[: count - olds]
        del old[:olds], new[: count - olds]
    return dealt, new


def reproduces(world: Game, view: View) -> bool:
    """The sampled world asks the viewer the same decision the view shows."""
    seat = view.seat
    assert seat is not None
    return (
        world.to_act() == view.to_act
        and world.phase == view.phase
        and legal(world, seat) == view.legal
        and len(world.draw_pile) == view.deck_count
        and tuple(world.hands[seat]) == view.hand
    )
