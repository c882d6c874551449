"""The rules engine: one game's state as an explicit phase machine, laid out as a turn is
played (R3-R15, H1, H2).

A game is (deck, variants, seed, ordered moves): `Game.new` deals from the seed and
`Game.replay` rebuilds any position by applying the recorded moves again. `apply` verifies a
seat's move (the protocol's typed value), makes it, records it, runs the game on to the next
decision and returns the events it caused. Pure: no I/O, no clocks, no asyncio.

A turn, section by section below: R10 Fate discard -> R11 distribute -> R12/R14 draw (and
reshuffle) -> R13 discard down -> R15/H1 end of turn (a win, the round cap, or the next
seat). Each step has its `verify_…` (raises MoveError with the reason) and its applier;
`can(seat, move)` is `verify` as a bool. A step that asks nothing of anyone (an empty Fate pile,
an empty hand, a full hand) is passed through at once by `_settle`. Who must discard down
(R13, and at once under `overflow = "immediate"`) is one predicate, `must_discard_down`,
derived from the hands, never stored, so it cannot go stale.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from protocol.constants import HAND_SIZE, SWOON_AT, WIN_GOTH
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.start import Start
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
from .moves import MoveError, Played

Phase = Literal["discard_fate", "distribute", "draw", "over"]
Source = Literal["deck", "discard"]


def dealer_for(game_no: int, players: int) -> int:
    """R4: game 1 at a table is dealt by seat 0, and each rematch by the next seat left."""
    return (game_no - 1) % players


class Game:
    """Mutable state of one game. Piles are lists; the top of a pile is its last item
    (Fate piles are bottom first, as on the wire; the draw pile is drawn from the end)."""

    def __init__(self, deck: Deck, variants: Variants, seed: int, players: int) -> None:
        if players not in variants.seat_range:  # R2: 3 to 5, or 2 and 6 as a house rule
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
        # Per seat, how often its hand, Fate pile or known cards changed: the view rebuilds a
        # seat's public entry only when this moved (every change goes through the pile helpers).
        self.changes = [0] * players
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        # R14, public: the cards the draw pile was made of at the last reshuffle (None before
        # the first: it is then the deal's remainder), and each seat's blind draws from them.
        self.draw_pool: frozenset[int] | None = None
        self.pool_draws = [0] * players
        self.dealer = 0  # R4: deals and plays first; a round ends when the turn is back
        self.turn = 0
        self.round = 1
        self.phase: Phase = "discard_fate"
        self.winners: tuple[int, ...] | None = None
        self.end_reason: Literal["goth", "round_cap"] | None = None
        self.moves: list[Played] = []
        self.events: list[Event] = []

    # -- construction (R3, R4; Principle 3) ----------------------------------------------

    @classmethod
    def new(
        cls,
        deck: Deck,
        players: int,
        seed: int,
        variants: Variants | None = None,
        dealer: int = 0,
        start: Start | None = None,
    ) -> Game:
        """R3, R4: shuffle with the seeded RNG, deal five each, the dealer starts; or, with a
        `start`, set up that position instead of a deal (a played-on game: its dealer is the
        start's, and the seed serves the reshuffles to come)."""
        if start is not None:
            if start.players != players:
                raise ValueError(f"a start of {start.players} seats for a game of {players}")
            return cls.from_position(
                deck,
                hands=start.hands,
                fates=start.fates,
                draw_pile=start.draw_pile,
                discard=start.discard,
                turn=start.turn,
                phase=start.phase,
                round=start.round,
                seed=seed,
                variants=variants,
                known=start.known,
                dealer=start.dealer,
                draw_pool=start.draw_pool,
                pool_draws=start.pool_draws,
            )
        game = cls(deck, variants or Variants(), seed, players)
        if not 0 <= dealer < players:
            raise ValueError(f"dealer {dealer}: seats are 0-{players - 1}")
        game.dealer = dealer
        game.draw_pile = list(range(len(deck)))
        game.rng.shuffle(game.draw_pile)
        for _ in range(HAND_SIZE):
            for seat in range(players):
                game.hands[seat].append(game.draw_pile.pop())
        game.turn = dealer
        game.events.append(TurnBegan(dealer, game.round))
        game._settle()
        return game

    @classmethod
    def replay(
        cls,
        deck: Deck,
        players: int,
        seed: int,
        moves: Iterable[Played],
        variants: Variants | None = None,
        dealer: int = 0,
        start: Start | None = None,
    ) -> Game:
        """Principle 3: the same seed (and start) and the same moves rebuild the same state."""
        game = cls.new(deck, players, seed, variants, dealer, start)
        for seat, move in moves:
            game.apply(seat, move)
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
        draw_pool: Iterable[int] | None = None,
        pool_draws: Sequence[int] = (),
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
        if draw_pool is not None:
            game.draw_pool = frozenset(draw_pool)
            game.pool_draws = list(pool_draws) or [0] * game.players
        for seat, pile in enumerate(fates):
            for card in pile:
                game._add_to_fate(seat, card)
        game.turn, game.phase, game.round, game.dealer = turn, phase, round, dealer
        for seat in range(game.players):
            game._check_swoon(seat)  # R7: a pile set up at 5+ Sickness swoons at once
        game._settle()
        return game

    def position(self) -> Start:
        """Where the game stands now (before it is over), to be played on from."""
        if self.phase == "over":
            raise ValueError("a game that is over has no position to play on from")
        return Start(
            hands=tuple(tuple(h) for h in self.hands),
            fates=tuple(tuple(f) for f in self.fates),
            draw_pile=tuple(self.draw_pile),
            discard=tuple(self.discard),
            known=tuple(tuple(sorted(k)) for k in self.known),
            turn=self.turn,
            dealer=self.dealer,
            phase=self.phase,
            round=self.round,
            draw_pool=None if self.draw_pool is None else tuple(sorted(self.draw_pool)),
            pool_draws=tuple(self.pool_draws) if self.draw_pool is not None else (),
        )

    # -- scores (R5, R6, R8, R9) ----------------------------------------------------------

    def sickness(self, seat: int) -> int:
        """R6: effective Sickness is never below zero."""
        sickness = self.sickness_sum[seat]
        return sickness if sickness > 0 else 0

    def hand_limit(self, seat: int) -> int:
        """R8: five less the effective Sickness (R6)."""
        sickness = self.sickness_sum[seat]
        return HAND_SIZE - sickness if sickness > 0 else HAND_SIZE

    def in_debt(self, seat: int) -> bool:
        """R9."""
        return self.money[seat] < 0

    @property
    def over(self) -> bool:
        return self.phase == "over"

    # -- a move: whose it is, verified, applied, recorded ------------------------------

    def to_act(self) -> int | None:
        """The seat whose decision the game is waiting for, or None when it is over."""
        if self.phase == "over":
            return None
        if self.variants.overflow != "immediate":
            return self.turn  # then only the active player can owe a discard-down (R13)
        pending = self.discarding_down()
        return self.turn if pending is None else pending

    def verify(self, seat: int, move: Move) -> None:
        """Raise MoveError, with the reason, unless `seat` may make `move` now."""
        # Dispatched on the exact type: a match statement costs several times as much here.
        if type(move) is DiscardFate:
            self.verify_discard_fate(seat, move.card)
        elif type(move) is Distribute:
            self.verify_distribute(seat, move.give)
        elif type(move) is Draw:
            self.verify_draw(seat, move.source, move.card)
        elif type(move) is DiscardHand:
            self.verify_discard_hand(seat, move.card)
        else:
            raise MoveError("illegal_move", f"not a move: {move!r}")

    def can(self, seat: int, move: Move) -> bool:
        """`verify` as a bool."""
        try:
            self.verify(seat, move)
        except MoveError:
            return False
        return True

    def apply(
        self, seat: int, move: Move, first: Callable[[], object] | None = None
    ) -> list[Event]:
        """Verify `seat`'s move, then make it, record it, and run the game on to the next
        decision. Returns the events this caused, in order (a refused move changes nothing).
        `first` runs once the move is verified, before it is made, and may refuse it by
        raising: a table's write of the move to its store (Principle 6)."""
        self.verify(seat, move)
        if first is not None:
            first()
        events = len(self.events)
        if type(move) is DiscardFate:  # by exact type, as in verify()
            self._discard_fate(seat, move.card)
        elif type(move) is Distribute:
            self._distribute(seat, move.give)
        elif type(move) is Draw:
            self._draw(seat, move.source, move.card)
        elif type(move) is DiscardHand:
            self._discard_hand(seat, move.card)
        self.moves.append(Played(seat, move))
        self._settle()
        return self.events[events:]

    def _verify_turn(self, seat: int, step: Phase | None) -> None:
        """The game goes on and it is `seat`'s decision; for the steps of R10-R12 (`step`),
        that it owes no discard-down first (R13) and that the turn is at that step."""
        if self.phase == "over":
            raise MoveError("game_over", "the game is over")
        pending = self.discarding_down()
        actor = self.turn if pending is None else pending
        if seat != actor:
            if not 0 <= seat < self.players:
                raise MoveError("not_your_turn", f"there is no seat {seat}")
            raise MoveError("not_your_turn", f"it is seat {actor}'s move, not seat {seat}'s")
        if step is None:
            return
        if pending == seat:
            raise MoveError(
                "illegal_move",
                f"your hand is full: discard down to {self.hand_limit(seat)} cards first",
            )
        if self.phase != step:
            raise MoveError("illegal_move", f"this is the {self.phase} step, not {step}")

    def _settle(self) -> None:
        """Run the game on through every step that needs no decision (R10-R15)."""
        while self.phase != "over" and self.discarding_down() is None:
            seat = self.turn
            if self.phase == "discard_fate" and not self.fates[seat]:
                self.phase = "distribute"  # R10: nothing to discard
            elif self.phase == "distribute" and not self.hands[seat]:
                self.phase = "draw"  # R11: an empty hand places nothing
            elif self.phase == "draw" and self._drawn_enough():
                self._end_turn()
            else:
                return

    # -- R10 Fate discard ----------------------------------------------------------------

    def verify_discard_fate(self, seat: int, card: int) -> None:
        """R10: one card of the own Fate pile, any of them (H2 `fate_discard = "top"`: the
        top one)."""
        self._verify_turn(seat, "discard_fate")
        fate = self.fates[seat]
        if card not in fate:
            raise MoveError("illegal_move", f"{self.deck.card_name(card)} is not in your Fate pile")
        if self.variants.fate_discard == "top" and card != fate[-1]:
            raise MoveError(
                "illegal_move",
                f"only the top card of your Fate pile ({self.deck.card_name(fate[-1])}) "
                "may be discarded at this table",
            )

    def _discard_fate(self, seat: int, card: int) -> None:
        """R10: the card goes to the discard pile; its effect leaves with it (R5)."""
        self._take_from_fate(seat, card)
        self.discard.append(card)
        self.events.append(FateDiscarded(seat, card))
        self._check_swoon(seat)  # R7: a cure leaving the pile can make one swoon
        self.phase = "distribute"

    # -- R11 distribute ------------------------------------------------------------------

    def verify_distribute(self, seat: int, give: Sequence[tuple[int, int]]) -> None:
        """R11: one card of the hand on every Fate pile, the own included; or, holding fewer
        cards than there are players, every card, no player receiving two."""
        self._verify_turn(seat, "distribute")
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

    def _distribute(self, seat: int, give: Sequence[tuple[int, int]]) -> None:
        """R11: the cards go on top of their piles in seat order, each placement checked for
        a swoon (R7) before the next."""
        for to, card in sorted(give):
            self._take_from_hand(seat, card)
            self._add_to_fate(to, card)
            self.events.append(Placed(seat, to, card))
            self._check_swoon(to)
        self.phase = "draw"

    # -- R12 draw, R14 reshuffle -----------------------------------------------------------

    def verify_draw(self, seat: int, source: str, card: int | None = None) -> None:
        """R12: the top card of the draw pile (a deck draw names no card), or, when not in
        debt (R9), any named card of the discard pile."""
        self._verify_turn(seat, "draw")
        if source == "deck":
            if card is not None:
                raise MoveError(
                    "illegal_move", "a draw from the draw pile takes its top card: name no card"
                )
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

    def _draw(self, seat: int, source: Source, card: int | None) -> None:
        """R12: one card into the hand; a card taken from the discard pile is known to all.
        R14: the draw pile is never left empty while the discard pile holds cards."""
        if source == "deck":
            if not self.draw_pile:
                self._reshuffle()  # R14: it ran dry earlier, with nothing to reshuffle then
            card = self.draw_pile.pop()
            self.pool_draws[seat] += 1  # a blind draw from the pool (if there is one yet)
            if not self.draw_pile:
                self._reshuffle()  # R14: the last card was taken
            self._take_into_hand(seat, card, seen=False)
        else:
            assert card is not None  # verified
            self.discard.remove(card)
            self._take_into_hand(seat, card, seen=True)
        self.events.append(Drew(seat, source, card))

    def _reshuffle(self) -> None:
        """R14: the discard pile, shuffled, becomes the draw pile."""
        if not self.discard:
            return
        self.draw_pile, self.discard = self.discard, []
        self.draw_pool = frozenset(self.draw_pile)
        self.pool_draws = [0] * self.players
        self.rng.shuffle(self.draw_pile)
        self.events.append(Reshuffled(len(self.draw_pile)))

    def _drawn_enough(self) -> bool:
        """R12, R14: the draw step is over once the hand reaches its limit, or falls short
        of it with both piles empty."""
        turn = self.turn
        sickness = self.sickness_sum[turn]
        limit = HAND_SIZE - sickness if sickness > 0 else HAND_SIZE  # R8 (hand_limit, inlined)
        return len(self.hands[turn]) >= limit or not (self.draw_pile or self.discard)

    # -- R13 discard down ------------------------------------------------------------------

    def must_discard_down(self, seat: int) -> bool:
        """R13: `seat` holds more cards than its limit and must discard one now: at its own
        draw step, or at any moment under `overflow = "immediate"` (H2). The one home of the
        rule: `legal()`, the verifiers and `_settle` all ask this."""
        sickness = self.sickness_sum[seat]
        if len(self.hands[seat]) <= (HAND_SIZE - sickness if sickness > 0 else HAND_SIZE):
            return False  # within its limit (R8, hand_limit inlined: this is asked very often)
        if self.variants.overflow == "immediate":
            return self.phase != "over"
        return self.phase == "draw" and seat == self.turn

    def discarding_down(self) -> int | None:
        """R13: the seat that must discard down before play goes on, if any. Under
        `overflow = "immediate"` the first from the active player leftwards; otherwise only
        the active player can be."""
        if self.variants.overflow != "immediate":
            # The phase test first only spares the predicate's call away from the draw step.
            turn = self.turn
            return turn if self.phase == "draw" and self.must_discard_down(turn) else None
        for step in range(self.players):
            seat = (self.turn + step) % self.players
            if self.must_discard_down(seat):
                return seat
        return None

    def verify_discard_hand(self, seat: int, card: int) -> None:
        """R13: one card of a hand that must discard down."""
        self._verify_turn(seat, None)
        if not self.must_discard_down(seat):
            if len(self.hands[seat]) <= self.hand_limit(seat):
                raise MoveError("illegal_move", "your hand is not over its limit: keep your cards")
            raise MoveError("illegal_move", "you discard down at your draw step, once drawn")
        if card not in self.hands[seat]:
            raise MoveError("illegal_move", f"{self.deck.card_name(card)} is not in your hand")

    def _discard_hand(self, seat: int, card: int) -> None:
        """R13: the card goes to the discard pile, face up."""
        self._take_from_hand(seat, card)
        self.discard.append(card)
        self.events.append(HandDiscarded(seat, card))

    # -- R15 win, H1 round cap: the end of a turn ----------------------------------------

    def _end_turn(self) -> None:
        """R15: 20+ Goth Points at the end of one's own turn wins. H1: after the last round
        the highest Goth Points win. Else the turn passes left (R4)."""
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
        """R15 or H1: the game is over; nobody is asked anything any more."""
        self.phase = "over"
        self.winners = winners
        self.end_reason = reason
        self.events.append(GameOver(winners, reason))

    # -- the piles: every change to a hand or Fate pile goes through here -----------------

    def _add_to_fate(self, seat: int, card: int) -> None:
        """R5: the card's effect joins the pile's sums."""
        self.fates[seat].append(card)
        self.goth[seat] += self.deck.goth[card]
        self.sickness_sum[seat] += self.deck.sickness[card]
        self.money[seat] += self.deck.money[card]
        self.changes[seat] += 1

    def _take_from_fate(self, seat: int, card: int) -> None:
        """R5: the card's effect leaves with it."""
        self.fates[seat].remove(card)
        self.goth[seat] -= self.deck.goth[card]
        self.sickness_sum[seat] -= self.deck.sickness[card]
        self.money[seat] -= self.deck.money[card]
        self.changes[seat] += 1

    def _check_swoon(self, seat: int) -> None:
        """R7: at 5+ effective Sickness the whole Fate pile goes to the discard pile."""
        if self.sickness_sum[seat] < SWOON_AT:  # R6's floor at 0 cannot reach 5
            return
        cards = tuple(self.fates[seat])
        self.discard.extend(cards)
        self.fates[seat] = []
        self.goth[seat] = self.sickness_sum[seat] = self.money[seat] = 0
        self.changes[seat] += 1
        self.events.append(Swooned(seat, cards))

    def _take_into_hand(self, seat: int, card: int, *, seen: bool) -> None:
        """A card joins a hand; `seen`: everyone saw which (taken from the discard pile)."""
        self.hands[seat].append(card)
        if seen:
            self.known[seat].add(card)
        self.changes[seat] += 1

    def _take_from_hand(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.known[seat].discard(card)
        self.changes[seat] += 1
