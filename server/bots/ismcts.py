"""`ismcts` (difficulty *hard*): information-set Monte Carlo tree search over its view.

The algorithm is single-observer ISMCTS (Cowling, Powley & Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012). One tree is grown for the bot's own
information set; every iteration

1. *determinizes*: samples a world consistent with every public fact of the view
   (`worlds.py`: the cards it cannot see dealt to the other hands and the draw pile, the
   draw pile holding only cards of the last reshuffle);
2. *selects*: walks down the tree, choosing among the children whose move is a candidate in
   this world with UCB1, where a child's exploration term uses its *availability* count
   (how often it could have been chosen) instead of its parent's visits;
3. *expands* one untried candidate move;
4. *simulates* with the heuristic bot's policy until the bot's own next turn, and scores
   the position with the evaluator, as a reward in [0, 1] for every seat (`rewards`: the
   bot's trait is there, so a steady search is steady in its play-outs too);
5. *backpropagates*: each node adds the reward of the seat that made its move.

The bot never sees the Game it plays in: `choose` takes a View only; the worlds it searches
are its own samples. Its root candidates are wide: for every (recipient, card) pair of a
placement, the best placement that contains it, so a move the heuristic would not make is
searched too. Below the root, the heuristic's few best moves. Moves are told apart by what
they do (a card's values, not its id), so equal cards in different worlds share a node.

A search stops after `iterations` iterations, or at `think_time` seconds, whichever comes
first; with `think_time=None` it runs exactly `iterations` and repeats from its seed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable
from itertools import compress

from server.game import (
    SWOON_AT,
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Game,
    Legal,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    MoveError,
    View,
    legal,
)

from .base import BotBase, Trait
from .evaluate import Evaluator
from .heuristic import TIE, Scored, placement, placement_scores, scored_moves
from .position import Position
from .worlds import determinize, reproduces

THINK_TIME = 0.5  # seconds a move by default; the bot thinks in a worker thread on a server
ROOT_MARGIN = 8.0  # root placements scored this far below the best are not worth searching
DRAW_WIDTH = 5  # discard-pile cards searched at the root, the most useful first
OWN_WIDTH = 3  # candidates at the bot's own nodes below the root
OPPONENT_WIDTH = 2  # at an opponent's node (its hand is only a sample)
EXPLORATION = 0.7  # UCB1's constant, for rewards in [0, 1]
SHARPNESS = 0.25  # of the softmax turning pile values into win estimates

Candidates = list[tuple[Hashable, Move]]  # (what the move does, the move in this world)


class Node:
    """One move in the tree of the observer's information sets. `seat` made the move;
    `reward` sums that seat's rewards over the `visits` through here; `avail` counts the
    iterations in which the move was a candidate at its parent (the availability count)."""

    __slots__ = ("avail", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.children: dict[Hashable, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0

    def ucb(self) -> float:
        return self.reward / self.visits + EXPLORATION * math.sqrt(
            math.log(self.avail) / self.visits
        )


class IsmctsBot(BotBase):
    kind = "ismcts"
    thinks_long = True  # a server should let it think off the event loop

    def __init__(
        self,
        deck: Deck,
        rng: random.Random | None = None,
        iterations: int | None = None,
        think_time: float | None = THINK_TIME,
        trait: Trait = "vengeful",
    ) -> None:
        super().__init__(deck, rng, trait)
        if iterations is None and think_time is None:
            raise ValueError("a search needs a bound: iterations, think_time or both")
        self.iterations = iterations
        self.think_time = think_time
        self.last_iterations = 0  # how many iterations the last search ran (for measuring)
        self.last_root: Node | None = None  # and its tree

    def choose(self, view: View) -> Move:
        seat, choice = view.seat, view.legal
        assert seat is not None and choice is not None
        started = time.perf_counter()
        self.last_iterations, self.last_root = 0, None
        single = only_move(view)
        if single is not None:
            return single
        position = Position.of_view(view, self.deck)
        scored = scored_moves(Evaluator(position, after_placing=True, trait=self.trait), choice)
        world = determinize(view, self.deck, self.rng)
        if not reproduces(world, view):  # a sampling bug must never cost an illegal move
            return max(scored, key=lambda item: item[0])[1]
        options = root_candidates(position, choice, scored)
        if len(options) == 1:
            return options[0][1]
        return self._search(view, options, started)

    # -- search --------------------------------------------------------------------------

    def _search(self, view: View, options: Candidates, started: float) -> Move:
        """Grow the tree, then play the root move visited most (the robust child; ties go to
        the better mean, then to the heuristic's order)."""
        seat = view.seat
        assert seat is not None and view.turn is not None and view.dealer is not None
        root = Node(seat)
        players = len(view.players)
        # Simulate until the bot has placed again (every opponent answers its move, and the
        # cards it drew are used: a hand is worth nothing to the evaluator until placed).
        horizon = turn_index(view.round, view.turn, view.dealer, players) + players
        limit = math.inf if self.iterations is None else self.iterations
        deadline = math.inf if self.think_time is None else started + self.think_time
        done = 0
        while done < limit and (done == 0 or time.perf_counter() < deadline):
            world = determinize(view, self.deck, self.rng)
            self._iterate(root, world, options, horizon)
            done += 1
        self.last_iterations, self.last_root = done, root

        def robustness(option: tuple[Hashable, Move]) -> tuple[int, float]:
            child = root.children.get(option[0])
            return (0, 0.0) if child is None else (child.visits, child.reward / child.visits)

        return max(options, key=robustness)[1]

    def _iterate(self, root: Node, world: Game, options: Candidates, horizon: int) -> None:
        """One ISMCTS iteration in a sampled world: select, expand, simulate, backpropagate."""
        node, path = root, [root]
        while not reached(world, horizon):
            seat = world.to_act()
            assert seat is not None
            moves = options if node is root else self._candidates(world, seat, root.seat)
            available = []
            untried = None
            for key, move in moves:
                child = node.children.get(key)
                if child is None:
                    untried = untried or (key, move)
                else:
                    child.avail += 1
                    available.append((child, move))
            if untried is not None:  # expand: the first untried candidate, the best first
                child = node.children[untried[0]] = Node(seat)
                child.avail = 1
                world.apply(seat, untried[1])
                path.append(child)
                break
            node, move = max(available, key=lambda item: item[0].ucb())
            world.apply(seat, move)
            path.append(node)
        rewards = self._rollout(world, horizon, root.seat)
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.seat]

    def _candidates(self, world: Game, seat: int, observer: int) -> Candidates:
        """Below the root: the heuristic's best few moves for `seat` in this world."""
        choice = legal(world, seat)
        assert choice is not None
        evaluator = Evaluator(Position.of_game(world, seat), after_placing=True, trait=self.trait)
        width = OWN_WIDTH if seat == observer else OPPONENT_WIDTH
        if isinstance(choice, LegalDistribute):  # build only the placements looked at
            scores, orders = placement_scores(evaluator, choice)
            return distinct(
                world.deck, scores, lambda i: Distribute(placement(choice, orders[i])), width
            )
        return best_distinct(world.deck, scored_moves(evaluator, choice), width)

    def _rollout(self, world: Game, horizon: int, observer: int) -> list[float]:
        while not reached(world, horizon):
            seat = world.to_act()
            assert seat is not None
            for move in self._policy(world, seat):
                try:
                    world.apply(seat, move)  # verifies first: a refused move changes nothing
                except MoveError:
                    break  # a reshuffle took a planned card: decide again
        return rewards(world, observer, self.trait)

    def _policy(self, world: Game, seat: int) -> list[Move]:
        """The heuristic's move for `seat`, or its whole draw step at once: what it draws
        barely changes how it values the cards it may still draw (the cost of a rollout is
        mostly valuing positions, and most decisions are draws)."""
        choice = legal(world, seat)
        assert choice is not None
        match choice:
            case LegalDraw(discard=()):
                return [Draw("deck")] * choice.remaining  # in debt: nothing to choose
            case LegalDiscardFate(cards=(card,)):
                return [DiscardFate(card)]
        evaluator = Evaluator(Position.of_game(world, seat), after_placing=True, trait=self.trait)
        if isinstance(choice, LegalDistribute):  # most of a rollout's cost: build one move
            scores, orders = placement_scores(evaluator, choice)
            cut = max(scores) - TIE
            best = list(compress(orders, map(cut.__le__, scores)))  # those within TIE of the top
            order = best[0] if len(best) == 1 else self.rng.choice(best)
            return [Distribute(placement(choice, order))]
        scored = scored_moves(evaluator, choice)
        if isinstance(choice, LegalDraw):
            return draw_step(scored, choice.remaining)
        top = max(s for s, _ in scored)
        tied = [m for s, m in scored if s >= top - TIE]
        return [tied[0] if len(tied) == 1 else self.rng.choice(tied)]


def draw_step(scored: Scored, remaining: int) -> list[Move]:
    """R12's draws, best first: the discard pile's cards that beat a blind draw, then
    blind draws."""
    blind = Draw("deck")
    worth = next((s for s, m in scored if m == blind), -math.inf)
    taken = sorted((item for item in scored if item[0] > worth), key=lambda item: -item[0])
    moves = [move for _, move in taken[:remaining]]
    return moves + [blind] * (remaining - len(moves))


def rewards(world: Game, observer: int, trait: Trait = "vengeful") -> list[float]:
    """Per seat, in [0, 1]: 1 for a winner (tied winners all win), 0 for a loser; before
    the end, `estimates` of the evaluator's pile values (the search plays every seat with
    the bot's own trait)."""
    if world.winners is not None:
        return [1.0 if s in world.winners else 0.0 for s in range(world.players)]
    return estimates(Evaluator(Position.of_game(world, observer)).values, trait)


def estimates(values: tuple[float, ...], trait: Trait) -> list[float]:
    """Each seat's chance, in [0, 1], from the piles' values. Vengeful: the seat's share of
    a softmax over every pile, which gains most by lowering the top pile. Steady: a
    logistic of the seat's value against the mean of the others', which gains as much by
    lowering any of them."""
    if trait == "steady":
        others = len(values) - 1
        total = sum(values)
        return [1.0 / (1.0 + math.exp(-SHARPNESS * (v - (total - v) / others))) for v in values]
    scores = [SHARPNESS * v for v in values]
    top = max(scores)
    weights = [math.exp(score - top) for score in scores]
    total = sum(weights)
    return [w / total for w in weights]


# -- the moves searched ------------------------------------------------------------------


def signature(deck: Deck, move: Move) -> Hashable:
    """What a move does: equal for moves that differ only in which of two equal cards."""

    def values(card: int) -> tuple[int, int, int]:
        return (deck.goth[card], deck.sickness[card], deck.money[card])

    match move:
        case Distribute(give):
            return ("distribute", tuple(sorted((to, values(card)) for to, card in give)))
        case Draw("deck"):
            return ("deck",)
        case Draw(_, card) | DiscardFate(card) | DiscardHand(card):
            assert card is not None
            return (move.kind, values(card))
    raise AssertionError(f"not a move: {move!r}")


def best_distinct(deck: Deck, scored: Scored, width: int) -> Candidates:
    """The `width` best moves that do different things, best first (ties in list order)."""
    return distinct(deck, [score for score, _ in scored], lambda i: scored[i][1], width)


def distinct(
    deck: Deck, scores: list[float], move: Callable[[int], Move], width: int
) -> Candidates:
    """`best_distinct` of the moves `move(i)` scored `scores[i]`, each built only when
    looked at."""
    ranked = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)  # ties stay
    chosen: Candidates = []
    seen: set[Hashable] = set()
    for i in ranked:
        made = move(i)
        key = signature(deck, made)
        if key not in seen:
            seen.add(key)
            chosen.append((key, made))
            if len(chosen) == width:
                break
    return chosen


def root_candidates(position: Position, choice: Legal, scored: Scored) -> Candidates:
    """The moves searched at the root, the heuristic's best first. A placement: for every
    (recipient, card) pair, the best placement containing it, unless it scores more than
    ROOT_MARGIN below the best. Otherwise every distinct move (at most DRAW_WIDTH cards of
    the discard pile, besides the draw pile)."""
    deck = position.deck
    match choice:
        case LegalDistribute():
            top = max(s for s, _ in scored)
            best_with: dict[tuple[int, int], tuple[float, Move]] = {}
            for score, move in scored:
                assert isinstance(move, Distribute)
                for pair in move.give:
                    if pair not in best_with or score > best_with[pair][0]:
                        best_with[pair] = (score, move)
            wide = [item for item in best_with.values() if item[0] >= top - ROOT_MARGIN]
            return best_distinct(deck, wide, len(wide))
        case LegalDraw():
            blind = Draw("deck")
            cards = best_distinct(deck, [item for item in scored if item[1] != blind], DRAW_WIDTH)
            keep = {move for _, move in cards} | {blind}
            return best_distinct(deck, [item for item in scored if item[1] in keep], len(keep))
        case LegalDiscardFate(cards):
            kept = [item for item in scored if not keeps_worse(position, cards, item[1])]
            return best_distinct(deck, kept, len(kept))
        case LegalDiscardHand():
            return best_distinct(deck, scored, len(scored))
    raise AssertionError(f"unknown decision {choice!r}")


def keeps_worse(position: Position, cards: tuple[int, ...], move: Move) -> bool:
    """R10: whether dropping this card of `cards` (our Fate pile) would keep one worse in
    every score (no more Goth, no less Sickness, no more Money). A search on a few hundred
    sampled worlds can prefer such a drop by chance; no world makes it better. A drop that
    swoons us (a cure taken off, R7) is a choice of its own and is always searched."""
    assert isinstance(move, DiscardFate)
    deck, me, card = position.deck, position.me, move.card
    if position.sickness[me] - deck.sickness[card] >= SWOON_AT:
        return False
    mine = (deck.goth[card], -deck.sickness[card], deck.money[card])
    for other in cards:
        theirs = (deck.goth[other], -deck.sickness[other], deck.money[other])
        if theirs != mine and all(t <= m for t, m in zip(theirs, mine, strict=True)):
            return True
    return False


def reached(world: Game, horizon: int) -> bool:
    """Whether a simulation is done: the game over, or turn number `horizon` (the bot's
    next) past its placement (R11)."""
    if world.over:
        return True
    played = turn_index(world.round, world.turn, world.dealer, world.players)
    return played > horizon or (played == horizon and world.phase == "draw")


def turn_index(round: int, turn: int, dealer: int, players: int) -> int:
    """Turns played before this one since the game began (R4: the dealer opens each round)."""
    return (round - 1) * players + (turn - dealer) % players


def only_move(view: View) -> Move | None:
    """The move, when the decision has a single legal answer and needs no search."""
    match view.legal:
        case LegalDiscardFate(cards) if len(set(cards)) == 1:
            return DiscardFate(cards[0])
        case LegalDraw(deck, discard) if len(discard) + deck == 1:
            return Draw("deck") if deck else Draw("discard", discard[0])
        case LegalDiscardHand(cards) if len(set(cards)) == 1:
            return DiscardHand(cards[0])
    return None  # a placement always has a choice of recipients
