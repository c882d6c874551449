"""What one seat knows of a game, as the bots read it.

A `Position` holds the public piles and scores, the seat's own hand, the cards others are
known to hold (taken from the discard pile in plain sight) and the cards the seat cannot
see. Bots build it from their `View`; the search builds it from a sampled world for each
seat it plays, with `of_game`, which reads exactly what that seat's view would show (a test
holds the two equal), so no bot ever reads a card it could not see.

`seed_of` turns what the seat knows into the seed of the search that judges it (Principle 11):
the same position gets the same seed, whoever asks, wherever, whenever.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import filterfalse

import msgspec

from server.game import Deck, Game, View

_FACTS = msgspec.msgpack.Encoder()


@dataclass(frozen=True, slots=True)
class Position:
    deck: Deck
    me: int
    turn: int  # the active player
    placed: bool  # whether the active player has placed its cards this turn (R11 is done)
    goth: tuple[int, ...]  # per seat, sums of the Fate pile (R5)
    sickness: tuple[int, ...]  # raw sums, negative when a cure is banked (R6)
    money: tuple[int, ...]
    hand_count: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]  # per seat, cards known to be in its hand (ours: all)
    hand: tuple[int, ...]
    discard: tuple[int, ...]
    deck_count: int
    unseen: tuple[int, ...]  # the other hands' hidden cards and the draw pile, sorted
    pool: frozenset[int] | None  # R14: the draw pile's cards at its last reshuffle, if any
    turns_left: int | None  # H1: turns still to begin before the round cap ends the game

    @property
    def players(self) -> int:
        return len(self.goth)

    @classmethod
    def of_view(cls, view: View, deck: Deck) -> Position:
        me, hand, turn = view.seat, view.hand, view.turn
        assert me is not None and hand is not None and turn is not None
        fates = [p.fate for p in view.players]
        known = tuple(hand if p.seat == me else p.known_hand for p in view.players)
        return cls(
            deck=deck,
            me=me,
            turn=turn,
            placed=view.phase in ("draw", "over"),
            goth=tuple(p.scores.goth for p in view.players),
            # the view floors Sickness for display (R6); a banked cure is in the pile's sum
            sickness=tuple(sum(deck.sickness[c] for c in fate) for fate in fates),
            money=tuple(p.scores.money for p in view.players),
            hand_count=tuple(p.hand_count for p in view.players),
            known=known,
            hand=tuple(hand),
            discard=view.discard,
            deck_count=view.deck_count,
            unseen=_unseen(len(deck), fates, view.discard, known),
            pool=None if view.draw_pool is None else frozenset(view.draw_pool),
            turns_left=_turns_left(view.round_cap, view.round, turn, view.dealer, len(fates)),
        )

    @classmethod
    def of_game(cls, game: Game, seat: int) -> Position:
        """The position `seat` sees in `game` (a sampled world): the same as of_view."""
        hand = tuple(game.hands[seat])
        known = tuple(
            hand if s == seat else tuple(sorted(k)) if k else () for s, k in enumerate(game.known)
        )
        return cls(
            deck=game.deck,
            me=seat,
            turn=game.turn,
            placed=game.phase in ("draw", "over"),
            goth=tuple(game.goth),
            sickness=tuple(game.sickness_sum),
            money=tuple(game.money),
            hand_count=tuple(map(len, game.hands)),
            known=known,
            hand=hand,
            discard=tuple(game.discard),
            deck_count=len(game.draw_pile),
            unseen=_unseen(len(game.deck), game.fates, game.discard, known),
            pool=game.draw_pool,
            turns_left=_turns_left(
                game.variants.round_cap, game.round, game.turn, game.dealer, game.players
            ),
        )


def _turns_left(
    cap: int | None, round: int, turn: int, dealer: int | None, players: int
) -> int | None:
    """H1: the turns that begin after this one before the cap ends the game (the last round
    ends with the seat before the dealer, R4); None without a cap."""
    if cap is None:
        return None
    assert dealer is not None
    return max(0, cap - round) * players + (dealer - 1 - turn) % players


def _unseen(
    deck_size: int,
    fates: list[list[int]] | list[tuple[int, ...]],
    discard: tuple[int, ...] | list[int],
    known: tuple[tuple[int, ...], ...],
) -> tuple[int, ...]:
    seen = set(discard).union(*fates, *known)
    return tuple(filterfalse(seen.__contains__, range(deck_size)))


def seed_of(view: View, deck: Deck) -> int:
    """A 64-bit seed from the facts of `view` a search reads, and nothing else: the piles,
    the seat's hand, the decision, the round and the cards' values (not the names, the
    clocks, the log, who is connected), so a hint asked live and the review of the same
    moment, built from the record, search alike. A digest, not Python's `hash`: the same on
    every machine and in every process."""
    assert view.you is not None and view.legal is not None
    facts = (
        view.you,
        view.legal,
        view.phase,
        view.turn,
        view.dealer,
        view.round,
        view.table.variants,
        view.deck_count,
        view.discard,
        [(p.hand_count, p.fate, p.known_hand) for p in view.players],
        view.draw_pool,
        view.pool_draws,
        (deck.goth, deck.sickness, deck.money),
    )
    digest = hashlib.blake2b(_FACTS.encode(facts), digest_size=8).digest()
    return int.from_bytes(digest, "big")
