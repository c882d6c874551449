"""The numbered options of a decision, taken from the server's `legal` and nothing else.

Each option is one line saying what it does, with the move it plays (checked by the
client's `Plan`, which offers only what `legal` lists). A Fate discard, a draw or a
discard-down lists every card `legal` allows. A distribution is a whole placement: the
server's hint first, then a few sensible others, each found among every placement `legal`
allows by what it does to the scores (the sums the preview shows, R5): the most Goth Points
for you, the fewest for the leader, the widest lead. No rule is worked out here.

Every option also has a `short` text, in the ear's words (gother_tui.plain.ear), and a
decision a `brief`: how many options the ear hears first (a placement's hint, two cards of
a Fate pile, the top card of the discard pile at a turn's first draw; `more` says the
rest). A draw's options are heard on its heading's line ("Draw 4: 1 one, 2 all, 3 take
…"), once a draw step: each draw after it is one line, the "Choose" a script waits for with
what is left ("Choose 1-2: 3 more to draw."). The numbers are the same in both tellings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import names_of, plural
from gother_tui.core.plans import Plan, plan_for
from gother_tui.core.preview import Outcome
from gother_tui.core.prompts import fate_of, step_label
from gother_tui.plain.ear import SPOKEN, changes, flags
from gother_tui.plain.words import card_text
from protocol import server_messages as sm
from protocol.moves import DiscardFate, DiscardHand, Distribute, Draw, Move
from protocol.view import LegalDiscardFate, LegalDiscardHand, LegalDistribute, LegalDraw, View

Placement = dict[int, int]  # seat -> card
OFFERED = 4  # placements offered: the hint and three others, when that many differ
BRIEF = {"discard_fate": 2, "distribute": 1, "discard_hand": 3}  # options the ear hears first
BRIEF_TAKES = 1  # cards of the discard pile the ear hears at a turn's first draw


@dataclass(frozen=True, slots=True)
class Option:
    text: str
    move: Move
    every: bool = False  # "draw all": the same move again until the step is done
    short: str = ""  # the same, for the ear: words, no marks, only what matters

    @property
    def spoken(self) -> str:
        return self.short or self.text


@dataclass(frozen=True, slots=True)
class Decision:
    heading: str
    options: tuple[Option, ...]
    footer: str
    short_heading: str = ""  # the heading for the ear
    again_heading: str = ""  # a draw after the turn's first: its draw pile's options, short
    reminder: str = ""  # …and the one line said at each such draw: the cue, what is left
    brief: int = 0  # options the ear hears first (0: all)
    # of a draw, the options that are the draw pile's (the rest are the discard pile's)
    from_deck: int = 0
    inline: bool = False  # the ear hears the options on the heading's line (a draw's)

    def number_of(self, move: Move) -> int | None:
        """The number of the option that plays `move` (a hint's), if one does."""
        wanted = _normal(move)
        return next((i for i, o in enumerate(self.options, 1) if _normal(o.move) == wanted), None)

    def lines(self) -> list[str]:
        listed = [f"  {i}: {option.text}" for i, option in enumerate(self.options, 1)]
        return [self.heading, *listed, self.footer]

    def heard(self, pile_said: bool = False) -> int:
        """How many options the ear hears first; after a turn's first draw, the draw
        pile's alone (the discard pile is said once a turn)."""
        if pile_said and self.from_deck:
            return self.from_deck
        return min(self.brief or len(self.options), len(self.options))

    def short_lines(self, pile_said: bool = False, reminded: bool = False) -> list[str]:
        """The decision for the ear: the heading, the first options, how to hear more. A
        draw after the turn's first says its draw pile's options on the heading's line;
        `reminded`, only its reminder (the step's options were said at its first draw)."""
        count = self.heard(pile_said)
        listed = [f"{i}: {o.spoken}" for i, o in enumerate(self.options[:count], 1)]
        numbers = "1" if count == 1 else f"1-{count}"
        rest = len(self.options) - count
        more = f"; {rest} more" if rest else ""
        if pile_said and count == self.from_deck and self.again_heading:
            if reminded and self.reminder:
                return [self.reminder]
            return [self.again_heading, f"Choose {numbers}."]
        heading = self.short_heading or self.heading
        choose = f"Choose {numbers}{more}."
        if self.inline:
            said = ", ".join(f"{i} {o.spoken}" for i, o in enumerate(self.options[:count], 1))
            return [f"{heading} {said}.", choose]
        return [heading, *(f"  {text}" for text in listed), choose]

    def more_lines(self, said: int) -> list[str]:
        """The options after the first `said`, for `more`."""
        return [f"  {i}: {o.spoken}" for i, o in enumerate(self.options, 1) if i > said]


def same_move(a: Move | None, b: Move) -> bool:
    """Whether `a` and `b` are one move, however their placements are ordered."""
    return a is not None and _normal(a) == _normal(b)


def _normal(move: Move) -> Move:
    """A move with its placement in seat order, so two spellings of one compare equal."""
    return Distribute(tuple(sorted(move.give))) if isinstance(move, Distribute) else move


def decision(
    view: View, catalogue: Catalogue, glyphs: Glyphs, hint: sm.Hint | None = None
) -> Decision | None:
    """The decision `view.legal` asks of this viewer, or None when it asks none."""
    plan = plan_for(view)
    if plan is None:
        return None
    step = step_label(view)
    step = step[:1].upper() + step[1:]
    legal = plan.legal
    if isinstance(legal, LegalDiscardFate):
        return _discard_fate(view, plan, legal, catalogue, glyphs, step)
    if isinstance(legal, LegalDistribute):
        return _distribute(view, legal, catalogue, glyphs, step, hint)
    if isinstance(legal, LegalDraw):
        return _draw(view, plan, legal, catalogue, glyphs, step)
    return _discard_hand(plan, legal, catalogue, glyphs, step)


def _choose(count: int, rest: str) -> str:
    numbers = "1" if count == 1 else f"1-{count}"
    return f"Choose {numbers}{rest}"


def _discard_fate(
    view: View,
    plan: Plan,
    legal: LegalDiscardFate,
    catalogue: Catalogue,
    glyphs: Glyphs,
    step: str,
) -> Decision:
    fate = fate_of(view, view.seat)
    if view.variants.fate_discard == "top":
        heading = f"{step}: discard the top card of your Fate pile (house rule: top only)."
    else:
        heading = f"{step}: discard one card of your Fate pile."
    options = []
    for card in plan.choices:
        top = " (the top card)" if fate and card == fate[-1] else ""
        outcome = Outcome.removing("you", fate, card, catalogue)
        text = f"discard {card_text(catalogue, glyphs, card)}{top} {glyphs.dash} "
        short = _spoken(catalogue.name(card) + (" (top)" if top else ""), outcome)
        options.append(Option(text + outcome.describe(glyphs), DiscardFate(card), short=short))
    short_heading = "Fate discard:"
    if view.variants.fate_discard == "top":
        short_heading = "Fate discard, the top card only:"
    return Decision(
        heading,
        tuple(options),
        _choose(len(options), " (or discard NAME)."),
        short_heading,
        brief=BRIEF[legal.kind],
    )


def _spoken(what: str, outcome: Outcome) -> str:
    """ "Fake Tan Accident (top): Goth -1 to 0, you are out of debt"."""
    effect = changes(outcome) + flags(outcome, "you", True)
    return f"{what}: {', '.join(effect) or 'no change'}"


def _draw(
    view: View, plan: Plan, legal: LegalDraw, catalogue: Catalogue, glyphs: Glyphs, step: str
) -> Decision:
    heading = f"{step}: draw {plural(legal.remaining, 'more card')}."
    if legal.in_debt:
        heading += " You are in debt: from the draw pile only."
    options = []
    if legal.deck:
        deck = Draw("deck")
        if view.deck_count:
            pile = f"the draw pile ({view.deck_count} left)"
        else:
            pile = "the draw pile (empty: the discard pile is shuffled into a new one first)"
        options.append(Option(f"draw from {pile}", deck, short="one"))
        if legal.remaining > 1:
            text = f"draw all {legal.remaining} from the draw pile"
            options.append(Option(text, deck, True, short="all"))
    from_deck = len(options)
    for card in plan.choices:
        text = f"take {card_text(catalogue, glyphs, card)} from the discard pile"
        short = f"take {card_text(catalogue, SPOKEN, card)}"
        options.append(Option(text, Draw("discard", card), short=short))
    rest = " (or draw deck, draw deck all, take NAME)."
    short_heading = f"Draw {legal.remaining}"
    short_heading += ", from the draw pile only (in debt):" if legal.in_debt else ":"
    again = f"Draw {legal.remaining} more: 1 one" + (", 2 all." if from_deck > 1 else ".")
    # the Choose line a script waits for, without the options the step's first draw said
    reminder = _choose(from_deck, f": {legal.remaining} more to draw.")
    return Decision(
        heading,
        tuple(options),
        _choose(len(options), rest),
        short_heading,
        again,
        reminder,
        from_deck + BRIEF_TAKES,
        from_deck,
        inline=True,
    )


def _discard_hand(
    plan: Plan, legal: LegalDiscardHand, catalogue: Catalogue, glyphs: Glyphs, step: str
) -> Decision:
    heading = f"{step}: your hand is over its limit; drop {plural(legal.count, 'card')}."
    options = tuple(
        Option(
            f"drop {card_text(catalogue, glyphs, card)}",
            DiscardHand(card),
            short=f"drop {card_text(catalogue, SPOKEN, card)}",
        )
        for card in plan.choices
    )
    short_heading = f"Over your hand limit: drop {legal.count}."
    choose = _choose(len(options), " (or drop NAME).")
    return Decision(heading, options, choose, short_heading, brief=BRIEF[legal.kind])


# -- distributions -------------------------------------------------------------------------


def _distribute(
    view: View,
    legal: LegalDistribute,
    catalogue: Catalogue,
    glyphs: Glyphs,
    step: str,
    hint: sm.Hint | None,
) -> Decision:
    if legal.each_gets_one:
        heading = f"{step}: give each player one card of your hand, yourself included."
    else:
        heading = (
            f"{step}: place all {plural(legal.count, 'card')} of your hand, at most one per player."
        )
    hinted = hinted_placement(view, hint)
    hint_why = "the hint" + (f": {hint.reason}" if hint is not None and hint.reason else "")
    chosen = offered(view, legal, catalogue, hinted, hint_why)
    options = tuple(
        Option(
            describe_placement(view, placement, catalogue, glyphs, why),
            placement_move(placement),
            short=spoken_placement(view, placement, catalogue, why.startswith("the hint")),
        )
        for placement, why in chosen
    )
    rest = ", or give CARD to NAME, ... (give alone asks seat by seat)."
    if legal.each_gets_one:
        short_heading = "Give each a card:"
    else:
        short_heading = f"Place your {plural(legal.count, 'card')}, one a player:"
    choose = _choose(len(options), rest)
    return Decision(heading, options, choose, short_heading, brief=BRIEF[legal.kind])


def placement_move(placement: Mapping[int, int]) -> Distribute:
    return Distribute(tuple(sorted(placement.items())))


def hinted_placement(view: View, hint: sm.Hint | None) -> Placement | None:
    """The hint's placement, if it is one this decision allows (the plan checks)."""
    plan = plan_for(view)
    if hint is None or plan is None or plan.kind != "distribute" or not plan.prefill(hint.move):
        return None
    return {seat: card for card, seat in plan.assigned.items()}


def placements(legal: LegalDistribute) -> list[Placement]:
    """Every placement `legal` allows: a card for every recipient, or every card placed."""
    seats, hand = legal.recipients, legal.hand
    if legal.each_gets_one:
        return [dict(zip(seats, cards, strict=True)) for cards in permutations(hand, len(seats))]
    return [dict(zip(chosen, hand, strict=True)) for chosen in permutations(seats, len(hand))]


def outcomes(view: View, placement: Mapping[int, int], catalogue: Catalogue) -> dict[int, Outcome]:
    you, names = view.seat, names_of(view.players)
    return {
        seat: Outcome.placing(
            "you" if seat == you else names[seat], fate_of(view, seat), card, catalogue
        )
        for seat, card in placement.items()
    }


def offered(
    view: View,
    legal: LegalDistribute,
    catalogue: Catalogue,
    hinted: Placement | None = None,
    hint_why: str = "the hint",
) -> list[tuple[Placement, str]]:
    """The placements to offer, each with what it aims at: the hint first, then the best
    for each aim (one placement may meet several), then more of the best for you, up to
    OFFERED."""
    ranked = ranking(view, legal, catalogue)
    chosen: list[tuple[Placement, list[str]]] = []

    def offer(placement: Placement, why: str) -> None:
        for seen, whys in chosen:
            if seen == placement:
                whys.append(why)
                return
        chosen.append((placement, [why]))

    if hinted is not None:
        offer(hinted, hint_why)
    for why, order in ranked:
        offer(order[0], why)
    for placement in ranked[0][1] if ranked else ():
        if len(chosen) >= OFFERED:
            break
        if all(placement != seen for seen, _ in chosen):
            chosen.append((placement, ["also good for you"]))
    return [(placement, "; ".join(whys)) for placement, whys in chosen]


def ranking(
    view: View, legal: LegalDistribute, catalogue: Catalogue
) -> list[tuple[str, list[Placement]]]:
    """Every placement `legal` allows, best first, for each aim: the most Goth Points for
    you, the fewest for the leader (when someone leads), the widest lead for you."""
    you = view.seat
    others = [p for p in view.players if p.seat != you]
    if you is None or not others:
        return []
    leader = max(others, key=lambda p: p.goth)
    now = {p.seat: p.goth for p in view.players}
    # What each card would do to each recipient, worked out once: a placement only picks.
    sums = {
        (seat, card): Outcome.placing("", fate_of(view, seat), card, catalogue).after
        for seat in legal.recipients
        for card in legal.hand
    }

    def goth(seat: int, placement: Placement) -> int:
        """A seat's Goth Points after `placement`: none after a swoon."""
        card = placement.get(seat)
        if card is None:
            return now[seat]
        after = sums[seat, card]
        return 0 if after.swoon else after.goth

    scored = []
    for placement in placements(legal):
        mine = goth(you, placement)
        theirs = [goth(p.seat, placement) for p in others]
        debt = int(you in placement and sums[you, placement[you]].in_debt)
        scored.append((placement, mine, theirs, goth(leader.seat, placement), debt))
    aims: list[tuple[str, Callable[[Any], tuple[int, ...]]]] = [
        ("most Goth for you", lambda s: (s[1], -s[4], -max(s[2]), -sum(s[2]))),
        ("widest lead for you", lambda s: (s[1] - max(s[2]), s[1], -s[4])),
    ]
    if leader.goth > 0:  # someone to hold back: the others' best
        name = names_of(view.players)[leader.seat]
        aims.insert(1, (f"fewest for the leader, {name}", lambda s: (-s[3], s[1], -sum(s[2]))))
    return [(why, [s[0] for s in sorted(scored, key=key, reverse=True)]) for why, key in aims]


def describe_placement(
    view: View, placement: Mapping[int, int], catalogue: Catalogue, glyphs: Glyphs, why: str = ""
) -> str:
    """ "Velvet Cape to you, Stomach Bug to Vlad (why) — you: Goth 3 → 6; Vlad: …"."""
    names = names_of(view.players)
    given = ", ".join(
        f"{catalogue.name(card)} to {'you' if seat == view.seat else names[seat]}"
        for seat, card in sorted(placement.items())
    )
    result = outcomes(view, placement, catalogue)
    effects = "; ".join(result[seat].describe(glyphs) for seat in sorted(result))
    aim = f" ({why})" if why else ""
    return f"{given}{aim} {glyphs.dash} {effects}"


def spoken_placement(
    view: View, placement: Mapping[int, int], catalogue: Catalogue, hinted: bool = False
) -> str:
    """ "keep Velvet Cape, Stomach Bug to Vlad (hint): you Goth 3 to 6; Vlad swoons"."""
    names = names_of(view.players)
    given = ", ".join(
        f"keep {catalogue.name(card)}"
        if seat == view.seat
        else f"{catalogue.name(card)} to {names[seat]}"
        for seat, card in sorted(placement.items(), key=lambda given: given[0] != view.seat)
    )
    result = outcomes(view, placement, catalogue)
    mine = result.get(view.seat) if view.seat is not None else None
    said = [f"you {', '.join(changes(mine))}"] if mine is not None and changes(mine) else []
    for seat, outcome in sorted(result.items()):  # others' swoons; only your own debt
        if seat == view.seat or outcome.after.swoon:
            said.extend(
                flags(outcome, "you" if seat == view.seat else names[seat], seat == view.seat)
            )
    hint = " (hint)" if hinted else ""
    return f"{given}{hint}: {'; '.join(said) or 'no change for you'}"
