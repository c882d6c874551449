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

The search is the one judge of advice (Principle 11): hints, reviews and the hard bot's own
moves are its verdicts. So it works to a fixed budget, never to a clock, and draws its
randomness from a seed of the position (`position.seed_of`): the same position gets the same
verdict on any machine, under any load. The tree runs `iterations` iterations; then its most
visited root moves, and the heuristic's favourite (the move a player is most likely to weigh
against the advice), are *weighed*: each played out in the same WORLDS sampled worlds, with
the same random numbers (common random numbers, `verdict.py`), twice as many where the two
best are close. The best of them by its play-outs is the verdict's move.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
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
    Swooned,
    View,
    legal,
)

from .base import BotBase, Trait
from .evaluate import Evaluator
from .heuristic import TIE, Scored, placement, placement_scores, scored_moves
from .position import Position, seed_of
from .verdict import Outcome, Verdict, Weighed, gap
from .worlds import determinize, reproduces

ITERATIONS = 240  # of the tree a decision: the budget (docs/advice.md)
WEIGHED = 3  # the tree's most visited root moves weighed at the end
WORLDS = 40  # sampled worlds each weighed move is played out in
CLOSE = 2.0  # two best moves closer than this many standard errors: WORLDS more each
LONGEST = 100  # rounds a play-out "to the end" runs at most (H1's default: a table may lift it)
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
    """The hard bot, and the judge behind every hint and review. Its randomness comes from
    the position it judges (`seed_of`), not from `rng`: two searches of one position agree."""

    kind = "ismcts"
    thinks_long = True  # a server should let it think off the event loop

    def __init__(
        self,
        deck: Deck,
        rng: random.Random | None = None,
        iterations: int = ITERATIONS,
        worlds: int = WORLDS,
        trait: Trait = "vengeful",
    ) -> None:
        super().__init__(deck, rng, trait)
        self.iterations = iterations
        self.worlds = worlds
        # for measuring: the play-outs of the last search (its tree's iterations and its
        # weighed worlds), and its tree
        self.last_iterations = 0
        self.last_root: Node | None = None

    def choose(self, view: View) -> Move:
        return self.judge(view).move

    def judge(self, view: View, also: Sequence[Move] = (), seed: int | None = None) -> Verdict:
        """The verdict on the decision `view.legal` of `view.seat`. `also`: moves to weigh
        besides, on the same worlds as the advice, once it is chosen (they change nothing
        of it: a review weighs the move that was played). `seed`: another seed than the
        position's (to measure how much the verdict owes to its seed)."""
        seat, choice = view.seat, view.legal
        assert seat is not None and choice is not None
        self.last_iterations, self.last_root = 0, None
        single = only_move(view)
        if single is not None:
            return Verdict(seat, single, (), 0)
        position = Position.of_view(view, self.deck)
        scored = scored_moves(Evaluator(position, after_placing=True, trait=self.trait), choice)
        seed = seed_of(view, self.deck) if seed is None else seed
        rng = random.Random(seed)
        world = determinize(view, self.deck, rng)
        if not reproduces(world, view):  # a sampling bug must never cost an illegal move
            return Verdict(seat, max(scored, key=lambda item: item[0])[1], (), 0)
        options = root_candidates(position, choice, scored)
        if len(options) == 1:
            return Verdict(seat, options[0][1], (), 0)
        root = self._search(view, options, rng)
        verdict = self._weigh(view, options, root, also, seed)
        self.last_iterations = self.iterations + sum(len(w.outcomes) for w in verdict.weighed)
        return verdict

    def weigh(
        self,
        view: View,
        moves: Sequence[Move],
        worlds: range,
        seed: int | None = None,
        to_end: bool = False,
    ) -> list[Weighed]:
        """`moves` played out in `worlds` (world numbers) of the position's seed, or of
        `seed`: the same worlds whatever else is weighed, and whenever. `to_end`: played
        out to the game's end rather than to the seat's next turn (a longer look, which
        a review gives the few moments it may tell)."""
        seed = seed_of(view, self.deck) if seed is None else seed
        horizon = horizon_of(view) + (LONGEST * len(view.players) if to_end else 0)
        return [
            Weighed(
                signature(self.deck, move),
                move,
                tuple(self._play_out(view, move, seed, i, horizon) for i in worlds),
            )
            for move in moves
        ]

    # -- search --------------------------------------------------------------------------

    def _search(self, view: View, options: Candidates, rng: random.Random) -> Node:
        """Grow the tree for `iterations` iterations."""
        seat = view.seat
        assert seat is not None
        root = Node(seat)
        horizon = horizon_of(view)
        for _ in range(self.iterations):
            world = determinize(view, self.deck, rng)
            self._iterate(root, world, options, horizon, rng)
        self.last_root = root
        return root

    def _weigh(
        self, view: View, options: Candidates, root: Node, also: Sequence[Move], seed: int
    ) -> Verdict:
        """Weigh the tree's WEIGHED most visited root moves (ties: the heuristic's order)
        and the heuristic's favourite on the same worlds; the two best by their play-outs,
        if close, on as many again; the better of those two is the advice."""
        seat = view.seat
        assert seat is not None

        def visits(option: tuple[Hashable, Move]) -> int:
            child = root.children.get(option[0])
            return 0 if child is None else child.visits

        chosen = sorted(options, key=visits, reverse=True)[:WEIGHED]  # a stable sort
        if options[0] not in chosen:
            chosen.append(options[0])
        first = range(self.worlds)
        weighed = self.weigh(view, [move for _, move in chosen], first, seed)
        weighed.sort(key=lambda w: w.mean(), reverse=True)  # stable: ties keep the tree's order
        if not gap(weighed[0], weighed[1]).clear(CLOSE):  # close: look again, twice as hard
            again = range(self.worlds, 2 * self.worlds)
            for i, more in enumerate(self.weigh(view, [w.move for w in weighed[:2]], again, seed)):
                weighed[i] = Weighed(more.key, more.move, weighed[i].outcomes + more.outcomes)
            weighed[:2] = sorted(weighed[:2], key=lambda w: w.mean(), reverse=True)
        best = weighed[0]
        known = {w.key for w in weighed}
        extra = [move for move in also if signature(self.deck, move) not in known]
        weighed += self.weigh(view, extra, range(len(best.outcomes)), seed)
        return Verdict(seat, best.move, tuple(weighed), self.iterations, options[0][0])

    def _play_out(self, view: View, move: Move, seed: int, i: int, horizon: int) -> Outcome:
        """`move` played in world i of `seed`, then on to the horizon as in a rollout."""
        seat = view.seat
        assert seat is not None
        rng = random.Random(f"{seed}/{i}")  # world i: the same for every move weighed
        world = determinize(view, self.deck, rng)
        start = len(world.events)
        world.apply(seat, move)
        reward = self._rollout(world, horizon, seat, rng)[seat]
        swooned = {e.seat for e in world.events[start:] if type(e) is Swooned}
        return Outcome(
            reward,
            tuple(world.goth),
            tuple(world.money),
            tuple(world.sickness_sum),
            tuple(sorted(swooned)),
        )

    def _iterate(
        self, root: Node, world: Game, options: Candidates, horizon: int, rng: random.Random
    ) -> None:
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
        rewards = self._rollout(world, horizon, root.seat, rng)
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

    def _rollout(self, world: Game, horizon: int, observer: int, rng: random.Random) -> list[float]:
        while not reached(world, horizon):
            seat = world.to_act()
            assert seat is not None
            for move in self._policy(world, seat, rng):
                try:
                    world.apply(seat, move)  # verifies first: a refused move changes nothing
                except MoveError:
                    break  # a reshuffle took a planned card: decide again
        return rewards(world, observer, self.trait)

    def _policy(self, world: Game, seat: int, rng: random.Random) -> list[Move]:
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
            order = best[0] if len(best) == 1 else rng.choice(best)
            return [Distribute(placement(choice, order))]
        scored = scored_moves(evaluator, choice)
        if isinstance(choice, LegalDraw):
            return draw_step(scored, choice.remaining)
        top = max(s for s, _ in scored)
        tied = [m for s, m in scored if s >= top - TIE]
        return [tied[0] if len(tied) == 1 else rng.choice(tied)]


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


def horizon_of(view: View) -> int:
    """Where a simulation from `view` stops: once its seat has placed again (every opponent
    answers its move, and the cards it drew are used: a hand is worth nothing to the
    evaluator until placed)."""
    assert view.turn is not None and view.dealer is not None
    players = len(view.players)
    return turn_index(view.round, view.turn, view.dealer, players) + players


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
