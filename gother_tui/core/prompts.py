"""The words around a decision: what the game is waiting for, and the preview of the move
being composed (built from a Plan, the view and the catalogue)."""

from __future__ import annotations

from gother_tui.core.catalogue import Catalogue, values
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import names_of, plural
from gother_tui.core.plans import Plan
from gother_tui.core.preview import Outcome
from protocol.view import LegalDistribute, LegalDraw, Player, View

STEPS = {
    "discard_fate": (1, "Fate discard"),
    "distribute": (2, "Distribute"),
    "draw": (3, "Draw"),
    "discard_hand": (4, "Discard down"),
}


def standings(view: View, glyphs: Glyphs) -> str:
    """Everyone by Goth Points, the most first: "Vlad 14 · Raven (you) 11 · …"."""
    names = names_of(view.players)
    ranked = sorted(view.players, key=lambda p: (-p.goth, p.seat))
    you = view.seat
    return f" {glyphs.sep} ".join(
        f"{names[p.seat]}{' (you)' * (p.seat == you)} {p.goth}" for p in ranked
    )


def player(view: View, seat: int | None) -> Player | None:
    return next((p for p in view.players if p.seat == seat), None)


def fate_of(view: View, seat: int | None) -> tuple[int, ...]:
    found = player(view, seat)
    return () if found is None else found.fate


def step_label(view: View) -> str:
    """ "step 2/4 Distribute" for the decision the game waits for."""
    key: str = view.phase if view.legal is None else view.legal.kind
    if view.to_act is not None and view.to_act != view.turn:
        key = "discard_hand"  # overflow "immediate": someone else discards down first
    number, label = STEPS.get(key, (0, view.phase))
    return f"step {number}/4 {label}" if number else label


def waiting_for(view: View) -> str:
    """One line: whose decision the game waits for, and which step."""
    names = names_of(view.players)
    if view.phase == "lobby":
        return "waiting for players"
    if view.phase == "over":
        won = " and ".join(names.get(s, "?") for s in view.winner or ()) or "nobody"
        return f"game over: {won} won"
    actor = view.to_act if view.to_act is not None else view.turn
    who = names.get(actor, "?") if actor is not None else "?"
    if actor is not None and actor == view.seat:
        who = "You"
    return f"{who}: {step_label(view)}"


def prompt(view: View, plan: Plan | None) -> str:
    """The task in one or two sentences, for the player who must decide."""
    if plan is None:
        return _idle_prompt(view)
    legal = plan.legal
    if plan.kind == "discard_fate":
        if view.variants.fate_discard == "top":
            return "Discard the top card of your Fate pile (house rule: top only)."
        return "Discard one card of your Fate pile."
    if isinstance(legal, LegalDistribute):
        given = f"{len(plan.assigned)} of {plan.count} given"
        if legal.each_gets_one:
            return f"Give each player one card: {given}."
        return f"Place your whole hand, one card per player: {given}."
    if isinstance(legal, LegalDraw):
        head = f"Draw {plural(legal.remaining, 'more card')}: d from the draw pile, D all"
        if not legal.deck:
            return "The draw and discard piles are both empty: your hand stays short."
        if view.deck_count == 0:  # R14: the discard pile is shuffled in first
            head += " (it is empty: the discard pile is shuffled into a new one first)"
        if legal.in_debt:
            return f"{head}; you are in debt, so not the discard pile."
        return f"{head}; p from the discard pile." if plan.choices else f"{head}."
    return f"Discard down: {plural(plan.count, 'more card')} to discard."


def _idle_prompt(view: View) -> str:
    if view.you is None:
        return "You are watching this table."
    if view.phase == "lobby":
        seated = sum(1 for p in view.players if p.name)
        return (
            f"Waiting for players ({seated} of {view.table.seats} seats taken). "
            "s: start now with bots."
        )
    if view.phase == "over":
        return rematch_line(view)
    return f"Waiting for {waiting_for(view)}."


def rematch_line(view: View) -> str:
    """Where the rematch stands, from the view: nothing to go stale."""
    if view.you is None:
        return "The game is over."
    mine = player(view, view.seat)
    if mine is None or not mine.rematch:
        return "The game is over. r: ask for a rematch, L: leave the table."
    waiting = [p.name or "?" for p in view.players if not p.bot and not p.rematch]
    if not waiting:
        return "Rematch: everyone asked, dealing."
    return f"You asked for a rematch: waiting for {' and '.join(waiting)}. L: leave the table."


def preview(view: View, plan: Plan | None, catalogue: Catalogue, glyphs: Glyphs) -> list[str]:
    """What the move being composed would do, before it is sent."""
    if plan is None:
        return []
    you = view.seat
    names = names_of(view.players)
    if plan.kind == "distribute":
        lines = []
        for seat in plan.recipients:
            card = plan.holder_of(seat)
            name = names.get(seat, "?")
            if card is None:
                lines.append(f"{seat + 1} {name}: no card yet")
                continue
            outcome = Outcome.placing(name, fate_of(view, seat), card, catalogue)
            lines.append(f"{seat + 1} {outcome.describe(glyphs)}")
        return lines
    card = plan.current
    if plan.kind == "discard_fate" and card is not None:
        name = names.get(you, "You") if you is not None else "You"
        outcome = Outcome.removing(name, fate_of(view, you), card, catalogue)
        return [f"Discard {_card(catalogue, card, glyphs)}", outcome.describe(glyphs)]
    if isinstance(plan.legal, LegalDraw):
        after = plan.legal.remaining - 1
        more = f"{after} more to draw after this." if after else "Your last draw this turn."
        if plan.source == "deck":
            if view.deck_count == 0:
                return ["Shuffle the discard pile into a new draw pile, and draw.", more]
            return [
                f"Draw the top card of the draw pile ({plural(view.deck_count, 'card')} left).",
                more,
            ]
        if card is not None:
            return [f"Take {_card(catalogue, card, glyphs)} into your hand.", more]
        return []  # nothing chosen yet: the prompt says which keys
    if plan.kind == "discard_hand" and card is not None:
        hand = len(view.hand or ())
        mine = player(view, you)
        limit = "?" if mine is None else mine.hand_limit
        return [
            f"Discard {_card(catalogue, card, glyphs)} from your hand.",
            f"Hand {hand} {glyphs.arrow} {hand - 1} (limit {limit}).",
        ]
    return []


def _card(catalogue: Catalogue, card: int, glyphs: Glyphs) -> str:
    c = catalogue[card]
    return f"{c.name} ({values(c, glyphs, all_three=False) or 'no effect'})"
