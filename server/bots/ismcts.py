"""`ismcts`: information-set Monte Carlo tree search over the view a human in the seat sees.

The algorithm is single-observer ISMCTS (Cowling, Powley & Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012). One tree is grown for the bot's own
information set; every iteration

1. *determinizes*: samples a world consistent with the view (the bot's own hand, every Fate
   pile, the discard pile and each player's known cards are fixed; the unseen cards are
   dealt at random to the other hands and, in random order, to the draw pile);
2. *selects*: walks down the tree, choosing among the children whose move is a candidate in
   this world with UCB1, where a child's exploration term uses its *availability* count
   (how often it could have been chosen) instead of its parent's visits;
3. *expands* one untried candidate move;
4. *simulates* with a cheap policy (the heuristic bot's) until every opponent has answered,
   and scores the position with a reward in [0, 1] for every seat;
5. *backpropagates*: each node adds the reward of the seat that made its move.

The bot never sees the Game it plays in: `choose` takes a View only; the worlds it
searches are its own samples. `distribute` has up to 120 assignments, so at every node the
moves are restricted to a few candidates: the heuristic bot's choice plus the best few of a
greedy score of this module's own (a second opinion, so the search has real alternatives).
"""

from __future__ import annotations

import itertools
import math
import random
import time

from server.game import (
    SWOON_AT,
    WIN_GOTH,
    Deck,
    DiscardFate,
    DiscardHand,
    Distribute,
    Draw,
    Game,
    LegalDiscardFate,
    LegalDiscardHand,
    LegalDistribute,
    LegalDraw,
    Move,
    View,
    legal,
    view,
)

from .base import BotBase
from .heuristic import HeuristicBot, Table

# -- the greedy score: a seat's standing, what a card does to it, the best few moves -------

# Chance that a player at this effective Sickness is made to swoon before their next turn.
SWOON_RISK = (0.0, 0.05, 0.15, 0.35, 0.6)
SICKNESS_COST = 0.5  # per point: a smaller hand limit (R8)
DEBT_COST = 1.0  # R9: a player in debt may not draw from the discard pile
WIN_BONUS = 100.0
DECK_DRAW_WORTH = 1.5  # what an unseen card from the draw pile is usually worth


def standing(goth: int, sickness_sum: int, money: int) -> float:
    """How good a Fate pile with these sums is for its owner (R5-R9): Goth Points discounted
    by the risk of a swoon, less the cost of Sickness and debt. A swoon empties it (0)."""
    sickness = max(0, sickness_sum)
    if sickness >= SWOON_AT:
        return 0.0
    return (
        goth * (1.0 - SWOON_RISK[sickness])
        - SICKNESS_COST * sickness
        - (DEBT_COST if money < 0 else 0.0)
    )


def place_gain(game: Game, seat: int, card: int) -> float:
    """The change in `seat`'s standing if `card` goes on top of its Fate pile."""
    deck = game.deck
    goth, sick, money = game.goth[seat], game.sickness_sum[seat], game.money[seat]
    return standing(
        goth + deck.goth[card], sick + deck.sickness[card], money + deck.money[card]
    ) - standing(goth, sick, money)


def threat(game: Game, seat: int) -> float:
    """How much it matters to hurt `seat`: the nearer to 20 Goth Points, the more."""
    goth = game.goth[seat]
    return 1.0 + max(0, goth) / 5.0 + (3.0 if goth >= WIN_GOTH - 5 else 0.0)


def card_worth(game: Game, seat: int, card: int) -> float:
    """What holding `card` is worth to `seat`: placed on its own pile, or on the opponent it
    would hurt most."""
    best = place_gain(game, seat, card)
    for other in range(game.players):
        if other != seat:
            best = max(best, -threat(game, other) * place_gain(game, other, card))
    return best


def ranked_assignments(game: Game, seat: int, limit: int) -> list[Distribute]:
    """The `limit` best placements (R11) by the greedy score: the own card's gain, minus every
    other recipient's gain weighted by their threat; reaching 20 Goth Points wins."""
    hand = game.hands[seat]
    players = game.players
    count = min(len(hand), players)
    weight = [1.0 if to == seat else -threat(game, to) for to in range(players)]
    worth = {(to, c): weight[to] * place_gain(game, to, c) for to in range(players) for c in hand}
    for card in hand:
        gets = game.goth[seat] + game.deck.goth[card]
        if gets >= WIN_GOTH and game.sickness_sum[seat] + game.deck.sickness[card] < SWOON_AT:
            worth[seat, card] += WIN_BONUS
    scored: list[tuple[float, tuple[tuple[int, int], ...]]] = []
    if len(hand) >= players:
        for cards in itertools.permutations(hand, players):
            give = tuple(enumerate(cards))
            scored.append((sum(worth[pair] for pair in give), give))
    else:
        for seats in itertools.permutations(range(players), count):
            give = tuple(sorted(zip(seats, hand, strict=True)))
            scored.append((sum(worth[pair] for pair in give), give))
    if limit == 1:
        return [Distribute(seat, max(scored, key=lambda item: item[0])[1])]
    scored.sort(key=lambda item: -item[0])
    return [Distribute(seat, give) for _, give in scored[:limit]]


def ranked_moves(game: Game, seat: int, limit: int) -> list[Move]:
    """The `limit` best moves for `seat` now, by the greedy score, best first. Uses only
    what that seat may know: its own hand and the public piles."""
    choice = legal(game, seat)
    match choice:
        case LegalDiscardFate(cards):
            # R10: drop the card whose leaving helps the own standing most.
            goth, sick, money = game.goth[seat], game.sickness_sum[seat], game.money[seat]
            d = game.deck
            keyed = sorted(
                cards,
                key=lambda c: -standing(goth - d.goth[c], sick - d.sickness[c], money - d.money[c]),
            )
            return [DiscardFate(seat, c) for c in keyed[:limit]]
        case LegalDistribute():
            return list(ranked_assignments(game, seat, limit))
        case LegalDraw(deck, discard):
            worth = sorted(((card_worth(game, seat, c), c) for c in discard), reverse=True)
            moves: list[Move] = []
            for value, card in worth:
                if deck and value < DECK_DRAW_WORTH and Draw(seat, "deck") not in moves:
                    moves.append(Draw(seat, "deck"))
                moves.append(Draw(seat, "discard", card))
            if deck and Draw(seat, "deck") not in moves:
                moves.append(Draw(seat, "deck"))
            return moves[:limit]
        case LegalDiscardHand(cards):
            keyed = sorted(cards, key=lambda c: card_worth(game, seat, c))
            return [DiscardHand(seat, c) for c in keyed[:limit]]
    raise AssertionError(f"seat {seat} has no decision to make")


def canonical(move: Move) -> Move:
    """One form per move, so equal placements are one candidate: pairs sorted by seat (the
    order the engine places them in anyway)."""
    if isinstance(move, Distribute):
        return Distribute(move.seat, tuple(sorted(move.give)))
    return move


def greedy_move(game: Game, seat: int) -> Move:
    """The greedy score's best move (the `greedy` rollout policy)."""
    return ranked_moves(game, seat, 1)[0]


class RolloutHeuristic(HeuristicBot):
    """The heuristic bot with its one costly step made cheap, for rollouts: a discard card is
    taken when it is worth more than a fixed par instead of the mean over the unseen cards
    (as strong against the heuristic bot in 400 games, at a fraction of the cost)."""

    DECK_DRAW_WORTH = 1.0

    def draw(self, table: Table, view: View, discard: tuple[int, ...]) -> int | None:
        if not discard:
            return None
        best = max(discard, key=table.usefulness)
        return best if table.usefulness(best) > self.DECK_DRAW_WORTH else None


# -- determinization --------------------------------------------------------------------


def unseen_cards(view: View, deck_size: int) -> list[int]:
    """Every card the viewer cannot place: not in its hand, any Fate pile, the discard pile
    or a card another player is known to hold. Sorted, so sampling depends only on the rng."""
    seen = set(view.hand or ()) | set(view.discard)
    for player in view.players:
        seen.update(player.fate)
        seen.update(player.known_hand)
    return [card for card in range(deck_size) if card not in seen]


def determinize(view: View, deck: Deck, rng: random.Random) -> Game:
    """A world consistent with `view`: each other player holds their known cards plus a random
    sample of the unseen ones up to their hand count; the rest is the draw pile, shuffled."""
    me = view.seat
    assert me is not None and view.hand is not None
    assert view.turn is not None and view.dealer is not None and view.phase != "lobby"
    unseen = unseen_cards(view, len(deck))
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for player in view.players:
        if player.seat == me:
            hands.append(list(view.hand))
            continue
        hidden = player.hand_count - len(player.known_hand)
        hands.append([*player.known_hand, *unseen[:hidden]])
        del unseen[:hidden]
    if len(unseen) != view.deck_count:
        raise ValueError(
            f"the view does not add up: {len(unseen)} unseen cards left for a draw pile of "
            f"{view.deck_count}"
        )
    return Game.from_position(
        deck,
        hands=hands,
        fates=[player.fate for player in view.players],
        draw_pile=unseen,
        discard=view.discard,
        turn=view.turn,
        dealer=view.dealer,
        phase=view.phase,
        round=view.round,
        variants=view.variants,
        known=[player.known_hand for player in view.players],
        seed=rng.getrandbits(64),
    )


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


# -- the tree ---------------------------------------------------------------------------


class Node:
    """One move in the tree of the observer's information sets. `seat` made `move`; `reward`
    sums that seat's rewards over the `visits` through here; `avail` counts the iterations in
    which this move was a candidate at its parent (the ISMCTS availability count)."""

    __slots__ = ("avail", "children", "move", "reward", "seat", "visits")

    def __init__(self, move: Move | None, seat: int) -> None:
        self.move = move
        self.seat = seat
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0

    def ucb(self, exploration: float) -> float:
        return self.reward / self.visits + exploration * math.sqrt(
            math.log(self.avail) / self.visits
        )


class IsmctsBot(BotBase):
    """Single-observer ISMCTS. `iterations` and `think_time` (seconds) both bound a search:
    it stops at whichever comes first (at least one iteration is always run)."""

    kind = "ismcts"
    thinks_long = True  # a search of up to `think_time` seconds would stall every table

    EXPLORATION = 0.7  # UCB1's constant, for rewards in [0, 1]
    CANDIDATES = 4  # greedy alternatives to the heuristic's move at the observer's nodes
    OPPONENT_CANDIDATES = 2  # moves at an opponent's node (its hand is only a sample)
    HORIZON_TURNS = 0  # simulate this many turns past one full cycle (0: to our next turn)
    SHARPNESS = 0.25  # of the softmax turning standings into win estimates
    ROLLOUT = "heuristic"  # or "greedy": 3x the iterations, no stronger (see the report)

    def __init__(
        self,
        deck: Deck,
        rng: random.Random | None = None,
        iterations: int | None = None,
        think_time: float = 0.5,
    ) -> None:
        super().__init__(deck, rng)
        self.iterations = iterations
        self.think_time = think_time
        self.heuristic = HeuristicBot(deck, random.Random(self.rng.getrandbits(64)))
        self.rollout_policy = RolloutHeuristic(deck, random.Random(self.rng.getrandbits(64)))
        self.last_iterations = 0  # how many iterations the last search ran (for measuring)
        self.last_root: Node | None = None  # and its tree

    def choose(self, view: View) -> Move:
        assert view.seat is not None and view.legal is not None
        deadline = time.perf_counter() + self.think_time
        self.last_iterations, self.last_root = 0, None
        single = only_move(view)
        if single is not None:
            return single
        world = determinize(view, self.deck, self.rng)
        if not reproduces(world, view):  # a sampling bug must never cost an illegal move
            return self.heuristic.choose(view)
        return self._search(view, self._root_moves(view, world), deadline)

    # -- the moves searched ---------------------------------------------------------------

    def _root_moves(self, view: View, world: Game) -> list[Move]:
        """The heuristic's choice first, then the greedy score's best few. Computed on one
        sample: the root's moves depend only on what the viewer sees, so any sample will do."""
        seat = view.seat
        assert seat is not None
        moves = [canonical(self.heuristic.choose(view))]
        for move in ranked_moves(world, seat, self.CANDIDATES):
            if move not in moves:
                moves.append(move)
        return moves

    def _candidates(self, world: Game, seat: int, observer: int) -> list[Move]:
        """Below the root: the rollout policy's move first, then the greedy score's best."""
        total = 1 + self.CANDIDATES if seat == observer else self.OPPONENT_CANDIDATES
        moves = [canonical(self._policy(world, seat))]
        if total > 1:
            for move in ranked_moves(world, seat, total):
                if move not in moves:
                    moves.append(move)
        return moves[:total]

    def _policy(self, world: Game, seat: int) -> Move:
        """The rollout policy, from `seat`'s own view of the sampled world."""
        if self.ROLLOUT == "greedy":
            return greedy_move(world, seat)
        return self.rollout_policy.choose(view(world, seat, log_size=0))

    # -- search --------------------------------------------------------------------------

    def _search(self, view: View, options: list[Move], deadline: float) -> Move:
        """Grow the tree, then play the root move visited most (the robust child; ties go to
        the better mean, then to the heuristic's move)."""
        seat = view.seat
        assert seat is not None
        root = Node(None, seat)
        # Simulate until the turn-holder's next turn: every opponent answers our move.
        players = len(view.players)
        horizon = (
            turn_index(view.round, view.turn, view.dealer, players) + players + self.HORIZON_TURNS
        )
        limit = math.inf if self.iterations is None else self.iterations
        done = 0
        while done < limit and (done == 0 or time.perf_counter() < deadline):
            self._iterate(root, view, options, horizon)
            done += 1
        self.last_iterations, self.last_root = done, root

        def robustness(move: Move) -> tuple[int, float]:
            child = root.children.get(move)
            return (0, 0.0) if child is None else (child.visits, child.reward / child.visits)

        return max(options, key=robustness)

    def _iterate(self, root: Node, view: View, options: list[Move], horizon: int) -> None:
        """One ISMCTS iteration: determinize, select, expand, simulate, backpropagate."""
        world = determinize(view, self.deck, self.rng)
        node, path = root, [root]
        while not world.over and played(world) < horizon:
            seat = world.to_act()
            assert seat is not None
            moves = options if node is root else self._candidates(world, seat, root.seat)
            available = [node.children[m] for m in moves if m in node.children]
            for child in available:
                child.avail += 1
            untried = [m for m in moves if m not in node.children]
            if untried:  # expand: the first untried candidate (the policy's move first)
                move = untried[0]
                child = Node(move, seat)
                child.avail = 1
                node.children[move] = child
                world.apply(move)
                path.append(child)
                break
            node = max(available, key=lambda c: c.ucb(self.EXPLORATION))
            world.apply(node.move)  # type: ignore[arg-type]
            path.append(node)
        rewards = self._rollout(world, horizon)
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.seat]

    def _rollout(self, world: Game, horizon: int) -> list[float]:
        while not world.over and played(world) < horizon:
            seat = world.to_act()
            assert seat is not None
            world.apply(self._policy(world, seat))
        return self.rewards(world)

    def rewards(self, world: Game) -> list[float]:
        """Per seat, in [0, 1]: 1 for a winner (tied winners all win), 0 for a loser; before
        the end, a softmax of the standings, an estimate of each seat's chance to win."""
        if world.winners is not None:
            return [1.0 if s in world.winners else 0.0 for s in range(world.players)]
        scores = [
            self.SHARPNESS * standing(world.goth[s], world.sickness_sum[s], world.money[s])
            for s in range(world.players)
        ]
        top = max(scores)
        weights = [math.exp(score - top) for score in scores]
        total = sum(weights)
        return [w / total for w in weights]


def played(world: Game) -> int:
    """Turns played before the current one in a sampled world."""
    return turn_index(world.round, world.turn, world.dealer, world.players)


def turn_index(round: int, turn: int, dealer: int, players: int) -> int:
    """Turns played before this one since the game began (R4: the dealer opens each round)."""
    return (round - 1) * players + (turn - dealer) % players


def only_move(view: View) -> Move | None:
    """The move, when the decision has a single legal answer and needs no search."""
    seat = view.seat
    assert seat is not None
    match view.legal:
        case LegalDiscardFate(cards) if len(set(cards)) == 1:
            return DiscardFate(seat, cards[0])
        case LegalDraw(deck, discard) if len(discard) + deck == 1:
            return Draw(seat, "deck") if deck else Draw(seat, "discard", discard[0])
        case LegalDiscardHand(cards) if len(set(cards)) == 1:
            return DiscardHand(seat, cards[0])
    return None  # a placement always has a choice of recipients
