"""The rules engine: one game's state as an explicit phase machine (R3-R15, H1, H2).

A game is (deck, variants, seed, ordered moves): `Game.new` deals from the seed and
`Game.replay` rebuilds any position by applying the recorded moves again. For each kind of
move there is a `verify_…` (raises MoveError with a reason), a `can_…` and the move itself;
`apply` dispatches a typed Move and records it. Pure: no I/O, no clocks, no asyncio.

Phases of a turn: `discard_fate` (R10) -> `distribute` (R11) -> `draw` (R12, R13) -> next
turn, or `over`. A step that asks nothing of anyone (an empty Fate pile, an empty hand,
a full hand) is passed through at once. With `overflow = "immediate"` any player whose
hand is over their limit must discard down before anyone else moves: that pending decision
is derived from the hands, never stored, so it cannot go stale.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Literal

from protocol.constants import HAND_SIZE, SWOON_AT, WIN_GOTH
from protocol.view import (
    Drew,
    Event,
    FateDiscarded,
    GameOver,
    HandDiscarded,
    Placed,
    Reshuffled,
    Swooned,
    TurnBegan,
    Variants,
)

from .cards import Deck
from .moves import DiscardFate, DiscardHand, Distribute, Draw, Move, MoveError

Phase = Literal["discard_fate", "distribute", "draw", "over"]


def dealer_for(game_no: int, players: int) -> int:
    """R4: game 1 at a table is dealt by seat 0, and each rematch by the next seat left."""
    return (game_no - 1) % players


class Game:
    """Mutable state of one game. Piles are lists; the top of a pile is its last item
    (Fate piles are bottom first, as on the wire; the draw pile is drawn from the end)."""

    def __init__(self, deck: Deck, variants: Variants, seed: int, players: int) -> None:
        if players not in variants.seat_range:
            raise ValueError(
                f"{players} players: the game is for {variants.seat_range.start}-"
                f"{variants.seat_range.stop - 1}"
                + ("" if variants.two_or_six else " (2 or 6 only with the house rule)")
            )
        deck.check_seats(players)
        self.deck = deck
        self.variants = variants
        self.seed = seed
        self.players = players
        self.rng = random.Random(seed)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.fates: list[list[int]] = [[] for _ in range(players)]
        # Cards everyone saw go into a hand (taken from the discard pile), until they leave it.
        self.known: list[set[int]] = [set() for _ in range(players)]
        # Cached sums of each Fate pile (R5), kept exact by _add_to_fate/_take_from_fate.
        self.goth = [0] * players
        self.sickness_sum = [0] * players
        self.money = [0] * players
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        self.dealer = 0  # R4: deals and plays first; a round ends when the turn is back
        self.turn = 0
        self.round = 1
        self.phase: Phase = "discard_fate"
        self.winners: tuple[int, ...] | None = None
        self.end_reason: Literal["goth", "round_cap"] | None = None
        self.moves: list[Move] = []
        self.events: list[Event] = []

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        deck: Deck,
        players: int,
        seed: int,
        variants: Variants | None = None,
        dealer: int = 0,
    ) -> Game:
        """R3, R4: shuffle with the seeded RNG, deal five each, the dealer starts."""
        game = cls(deck, variants or Variants(), seed, players)
        if not 0 <= dealer < players:
            raise ValueError(f"dealer {dealer}: seats are 0-{players - 1}")
        game.dealer = dealer
        game.draw_pile = list(range(len(deck)))
        game.rng.shuffle(game.draw_pile)
        for _ in range(HAND_SIZE):
            for seat in range(players):
                game.hands[seat].append(game.draw_pile.pop())
        game._begin_turn(dealer)
        return game

    @classmethod
    def replay(
        cls,
        deck: Deck,
        players: int,
        seed: int,
        moves: Iterable[Move],
        variants: Variants | None = None,
        dealer: int = 0,
    ) -> Game:
        """Principle 3: the same seed and the same moves rebuild the same state."""
        game = cls.new(deck, players, seed, variants, dealer)
        for move in moves:
            game.apply(move)
        return game

    @classmethod
    def from_position(
        cls,
        deck: Deck,
        *,
        hands: Sequence[Sequence[int]],
        fates: Sequence[Sequence[int]],
        draw_pile: Sequence[int],
        discard: Sequence[int] = (),
        turn: int = 0,
        phase: Phase = "discard_fate",
        round: int = 1,
        seed: int = 0,
        variants: Variants | None = None,
        known: Sequence[Iterable[int]] | None = None,
        dealer: int = 0,
    ) -> Game:
        """A game set up from explicit piles: scenario tests and the ISMCTS bot's sampled
        worlds. Every card must be in exactly one place. Swoons already due are applied."""
        game = cls(deck, variants or Variants(), seed, len(hands))
        placed = [c for pile in (*hands, *fates, draw_pile, discard) for c in pile]
        if sorted(placed) != list(range(len(deck))):
            raise ValueError("every card of the deck must be in exactly one pile")
        game.hands = [list(h) for h in hands]
        game.draw_pile = list(draw_pile)
        game.discard = list(discard)
        game.known = [set(k) for k in known] if known else [set() for _ in hands]
        for seat, pile in enumerate(fates):
            for card in pile:
                game._add_to_fate(seat, card)
        game.turn, game.phase, game.round, game.dealer = turn, phase, round, dealer
        for seat in range(game.players):
            game._check_swoon(seat)  # R7: a pile set up at 5+ Sickness swoons at once
        game._settle()
        return game

    def clone(self) -> Game:
        """An independent copy for search (the RNG included, so it plays on identically)."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.hands = [h[:] for h in self.hands]
        other.fates = [f[:] for f in self.fates]
        other.known = [set(k) for k in self.known]
        other.goth, other.sickness_sum, other.money = (
            self.goth[:],
            self.sickness_sum[:],
            self.money[:],
        )
        other.draw_pile, other.discard = self.draw_pile[:], self.discard[:]
        other.moves, other.events = self.moves[:], self.events[:]
        return other

    # -- scores (R5, R6, R8, R9) ----------------------------------------------------------

    def sickness(self, seat: int) -> int:
        """R6: effective Sickness is never below zero."""
        return max(0, self.sickness_sum[seat])

    def hand_limit(self, seat: int) -> int:
        """R8."""
        return HAND_SIZE - self.sickness(seat)

    def in_debt(self, seat: int) -> bool:
        """R9."""
        return self.money[seat] < 0

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def overflowing(self) -> int | None:
        """With `overflow = "immediate"`: the first seat, from the active one leftwards,
        whose hand is over its limit and who must therefore discard before play goes on."""
        if self.variants.overflow != "immediate" or self.phase == "over":
            return None
        for step in range(self.players):
            seat = (self.turn + step) % self.players
            if len(self.hands[seat]) > self.hand_limit(seat):
                return seat
        return None

    def to_act(self) -> int | None:
        """The seat whose decision the game is waiting for, or None when it is over."""
        if self.phase == "over":
            return None
        pending = self.overflowing()
        return self.turn if pending is None else pending

    # -- verification: one verify_/can_ pair per move kind ---------------------------------

    def _verify_actor(self, seat: int, phase: Phase) -> None:
        if self.phase == "over":
            raise MoveError("game_over", "the game is over")
        if not 0 <= seat < self.players:
            raise MoveError("not_your_turn", f"there is no seat {seat}")
        actor = self.to_act()
        if seat != actor:
            raise MoveError("not_your_turn", f"it is seat {actor}'s move, not seat {seat}'s")
        if self.overflowing() == seat:
            raise MoveError(
                "illegal_move", f"you must first discard down to {self.hand_limit(seat)} cards"
            )
        if self.phase != phase:
            raise MoveError("illegal_move", f"this is the {self.phase} step, not {phase}")

    def verify_discard_fate(self, seat: int, card: int) -> None:
        self._verify_actor(seat, "discard_fate")
        fate = self.fates[seat]
        if card not in fate:
            raise MoveError("illegal_move", f"{self.deck.card_name(card)} is not in your Fate pile")
        if self.variants.fate_discard == "top" and card != fate[-1]:
            raise MoveError(
                "illegal_move",
                f"only the top card of your Fate pile ({self.deck.card_name(fate[-1])}) "
                "may be discarded at this table",
            )

    def verify_distribute(self, seat: int, give: Sequence[tuple[int, int]]) -> None:
        self._verify_actor(seat, "distribute")
        hand = self.hands[seat]
        cards = [card for _, card in give]
        recipients = [to for to, _ in give]
        if len(set(cards)) != len(cards):
            raise MoveError("illegal_move", "a card can be placed only once")
        for card in cards:
            if card not in hand:
                raise MoveError("illegal_move", f"{self.deck.card_name(card)} is not in your hand")
        if len(set(recipients)) != len(recipients):
            raise MoveError("illegal_move", "no player may receive more than one card")
        for to in recipients:
            if not 0 <= to < self.players:
                raise MoveError("illegal_move", f"there is no seat {to}")
        needed = min(len(hand), self.players)
        if len(give) != needed:
            if len(hand) >= self.players:
                why = "every player, you included, must receive exactly one card"
            else:
                why = f"you hold fewer cards than there are players: place all {len(hand)}"
            raise MoveError("illegal_move", f"{why} (you placed {len(give)})")

    def verify_draw(self, seat: int, source: str, card: int | None = None) -> None:
        self._verify_actor(seat, "draw")
        if len(self.hands[seat]) >= self.hand_limit(seat):
            raise MoveError("illegal_move", "your hand is full")
        if source == "deck":
            if not self.draw_pile and not self.discard:
                raise MoveError("illegal_move", "the draw pile and the discard pile are empty")
            return
        if source != "discard":
            raise MoveError("illegal_move", f"cannot draw from {source!r}")
        if self.in_debt(seat):
            raise MoveError(
                "illegal_move",
                f"you are in debt (Money {self.money[seat]}): draw from the draw pile only",
            )
        if card is None:
            raise MoveError("illegal_move", "name the card to take from the discard pile")
        if card not in self.discard:
            raise MoveError(
                "illegal_move", f"{self.deck.card_name(card)} is not in the discard pile"
            )

    def verify_discard_hand(self, seat: int, card: int) -> None:
        if self.phase == "over":
            raise MoveError("game_over", "the game is over")
        actor = self.to_act()
        if seat != actor:
            raise MoveError("not_your_turn", f"it is seat {actor}'s move, not seat {seat}'s")
        if len(self.hands[seat]) <= self.hand_limit(seat):
            raise MoveError("illegal_move", "your hand is not over its limit: keep your cards")
        if self.overflowing() != seat and self.phase != "draw":
            raise MoveError("illegal_move", "you discard down at your draw step (R13)")
        if card not in self.hands[seat]:
            raise MoveError("illegal_move", f"{self.deck.card_name(card)} is not in your hand")

    def verify(self, move: Move) -> None:
        match move:
            case DiscardFate(seat, card):
                self.verify_discard_fate(seat, card)
            case Distribute(seat, give):
                self.verify_distribute(seat, give)
            case Draw(seat, source, card):
                self.verify_draw(seat, source, card)
            case DiscardHand(seat, card):
                self.verify_discard_hand(seat, card)
            case _:
                raise MoveError("illegal_move", f"not a move: {move!r}")

    def can(self, move: Move) -> bool:
        try:
            self.verify(move)
        except MoveError:
            return False
        return True

    # -- applying moves ---------------------------------------------------------------

    def apply(self, move: Move) -> None:
        """Verify, then make the move, record it, and run the game on to the next decision."""
        self.verify(move)
        match move:
            case DiscardFate(seat, card):
                self._discard_fate(seat, card)
            case Distribute(seat, give):
                self._distribute(seat, give)
            case Draw(seat, source, card):
                self._draw(seat, source, card)
            case DiscardHand(seat, card):
                self._discard_hand(seat, card)
        self.moves.append(move)
        self._settle()

    def _discard_fate(self, seat: int, card: int) -> None:
        self._take_from_fate(seat, card)
        self.discard.append(card)
        self.events.append(FateDiscarded(seat, card))
        self._check_swoon(seat)  # R10: a cure leaving the pile can make one swoon
        self.phase = "distribute"

    def _distribute(self, seat: int, give: Sequence[tuple[int, int]]) -> None:
        hand = self.hands[seat]
        for to, card in sorted(give):
            hand.remove(card)
            self._forget(seat, card)
            self._add_to_fate(to, card)
            self.events.append(Placed(seat, to, card))
            self._check_swoon(to)  # R7: each placement may cause a swoon
        self.phase = "draw"

    def _draw(self, seat: int, source: str, card: int | None) -> None:
        if source == "deck":
            if not self.draw_pile:
                self._reshuffle()  # the deck ran dry earlier with nothing to reshuffle
            card = self.draw_pile.pop()
            if not self.draw_pile:
                self._reshuffle()  # R14
        else:
            assert card is not None
            self.discard.remove(card)
            self.known[seat].add(card)
        self.hands[seat].append(card)
        self.events.append(Drew(seat, source, card))  # type: ignore[arg-type]

    def _discard_hand(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self._forget(seat, card)
        self.discard.append(card)
        self.events.append(HandDiscarded(seat, card))

    # -- piles -----------------------------------------------------------------------

    def _add_to_fate(self, seat: int, card: int) -> None:
        self.fates[seat].append(card)
        self.goth[seat] += self.deck.goth[card]
        self.sickness_sum[seat] += self.deck.sickness[card]
        self.money[seat] += self.deck.money[card]

    def _take_from_fate(self, seat: int, card: int) -> None:
        self.fates[seat].remove(card)
        self.goth[seat] -= self.deck.goth[card]
        self.sickness_sum[seat] -= self.deck.sickness[card]
        self.money[seat] -= self.deck.money[card]

    def _check_swoon(self, seat: int) -> None:
        """R7: at 5+ effective Sickness the whole Fate pile goes to the discard pile."""
        if self.sickness(seat) < SWOON_AT:
            return
        cards = tuple(self.fates[seat])
        self.discard.extend(cards)
        self.fates[seat] = []
        self.goth[seat] = self.sickness_sum[seat] = self.money[seat] = 0
        self.events.append(Swooned(seat, cards))

    def _forget(self, seat: int, card: int) -> None:
        self.known[seat].discard(card)

    def _reshuffle(self) -> None:
        """R14: the discard pile, shuffled, becomes the draw pile."""
        if not self.discard:
            return
        self.draw_pile, self.discard = self.discard, []
        self.rng.shuffle(self.draw_pile)
        self.events.append(Reshuffled(len(self.draw_pile)))

    # -- the turn machine --------------------------------------------------------------

    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.phase = "discard_fate"
        self.events.append(TurnBegan(seat, self.round))
        self._settle()

    def _draw_step_done(self) -> bool:
        held = len(self.hands[self.turn])
        limit = self.hand_limit(self.turn)
        return held == limit or (held < limit and not self.draw_pile and not self.discard)

    def _settle(self) -> None:
        """Run the game on through every step that needs no decision (R10-R15)."""
        while self.phase != "over" and self.overflowing() is None:
            seat = self.turn
            if self.phase == "discard_fate" and not self.fates[seat]:
                self.phase = "distribute"
            elif self.phase == "distribute" and not self.hands[seat]:
                self.phase = "draw"
            elif self.phase == "draw" and self._draw_step_done():
                self._end_turn()
            else:
                return

    def _end_turn(self) -> None:
        seat = self.turn
        if self.goth[seat] >= WIN_GOTH:  # R15: judged only at the end of one's own turn
            self._finish((seat,), "goth")
            return
        following = (seat + 1) % self.players
        if following == self.dealer:
            cap = self.variants.round_cap
            if cap is not None and self.round >= cap:  # H1
                best = max(self.goth)
                self._finish(
                    tuple(s for s in range(self.players) if self.goth[s] == best), "round_cap"
                )
                return
            self.round += 1
        self.turn = following
        self.phase = "discard_fate"
        self.events.append(TurnBegan(following, self.round))

    def _finish(self, winners: tuple[int, ...], reason: Literal["goth", "round_cap"]) -> None:
        self.phase = "over"
        self.winners = winners
        self.end_reason = reason
        self.events.append(GameOver(winners, reason))
