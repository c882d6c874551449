"""The words around a decision: what the game is waiting for, and the preview of the move
being composed (built from a Plan, the view and the catalogue)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gother_tui.catalogue import Catalogue
from gother_tui.glyphs import Glyphs
from gother_tui.plans import Plan
from gother_tui.preview import Outcome

STEPS = {
    "discard_fate": (1, "Fate discard"),
    "distribute": (2, "Distribute"),
    "draw": (3, "Draw"),
    "discard_hand": (4, "Discard down"),
}


def player_names(view: Mapping[str, Any]) -> dict[int, str]:
    return {p["seat"]: p.get("name") or f"Seat {p['seat'] + 1}" for p in view.get("players", ())}


def player(view: Mapping[str, Any], seat: int | None) -> Mapping[str, Any]:
    return next((p for p in view.get("players", ()) if p.get("seat") == seat), {})


def step_label(view: Mapping[str, Any]) -> str:
    """ "step 2/4 Distribute" for the decision the game waits for."""
    phase = view.get("phase")
    legal = view.get("legal") or {}
    key = legal.get("kind") or phase
    if view.get("to_act") is not None and view.get("to_act") != view.get("turn"):
        key = "discard_hand"  # overflow "immediate": someone else discards down first
    number, label = STEPS.get(str(key), (0, str(phase)))
    return f"step {number}/4 {label}" if number else label


def waiting_for(view: Mapping[str, Any]) -> str:
    """One line: whose decision the game waits for, and which step."""
    phase = view.get("phase")
    names = player_names(view)
    if phase == "lobby":
        return "waiting for players"
    if phase == "over":
        winners = view.get("winner") or []
        won = " and ".join(names.get(s, "?") for s in winners) or "nobody"
        return f"game over: {won} won"
    actor = view.get("to_act", view.get("turn"))
    you = (view.get("you") or {}).get("seat")
    who = "You" if actor is not None and actor == you else names.get(actor, "?")
    return f"{who}: {step_label(view)}"


def prompt(view: Mapping[str, Any], plan: Plan | None) -> str:
    """The task in one or two sentences, for the player who must decide."""
    if plan is None:
        return _idle_prompt(view)
    legal = plan.legal
    if plan.kind == "discard_fate":
        if view.get("table", {}).get("variants", {}).get("fate_discard") == "top":
            return "Discard the top card of your Fate pile (house rule: top only)."
        return "Discard one card of your Fate pile."
    if plan.kind == "distribute":
        given = f"{len(plan.assigned)} of {plan.count} given"
        if legal.get("each_gets_one", True):
            return f"Give each player one card: {given}."
        return f"Place your whole hand, one card per player: {given}."
    if plan.kind == "draw":
        remaining = legal.get("remaining", 1)
        head = f"Draw {remaining} more card{'s' * (remaining != 1)}: d from the draw pile"
        if legal.get("in_debt"):
            return f"{head} (you are in debt: not the discard pile)."
        return f"{head}, p from the discard pile." if plan.choices else f"{head}."
    if plan.kind == "discard_hand":
        count = legal.get("count", 1)
        return f"Discard down: {count} more card{'s' * (count != 1)} to discard."
    return f"Decide: {plan.kind}."


def _idle_prompt(view: Mapping[str, Any]) -> str:
    phase = view.get("phase")
    you = view.get("you")
    if you is None:
        return "You are watching this table."
    if phase == "lobby":
        players = view.get("players", ())
        seated = sum(1 for p in players if p.get("name"))
        total = view.get("table", {}).get("seats", len(players))
        return f"Waiting for players ({seated} of {total} seats taken). s: start now with bots."
    if phase == "over":
        return "The game is over. r: ask for a rematch, L: leave the table."
    return f"Waiting for {waiting_for(view)}."


def preview(
    view: Mapping[str, Any], plan: Plan | None, catalogue: Catalogue, glyphs: Glyphs
) -> list[str]:
    """What the move being composed would do, before it is sent."""
    if plan is None:
        return []
    you = (view.get("you") or {}).get("seat")
    names = player_names(view)
    if plan.kind == "distribute":
        lines = []
        for seat in plan.recipients:
            card = plan.holder_of(seat)
            name = names.get(seat, "?")
            if card is None:
                lines.append(f"{seat + 1} {name}: no card yet")
                continue
            fate = list(player(view, seat).get("fate", ()))
            outcome = Outcome.placing(name, fate, card, catalogue)
            lines.append(f"{seat + 1} {outcome.describe(glyphs)}")
        return lines
    card = plan.current
    if plan.kind == "discard_fate" and card is not None:
        fate = list(player(view, you).get("fate", ()))
        outcome = Outcome.removing(names.get(you, "You"), fate, card, catalogue)
        return [f"Discard {_card(catalogue, card, glyphs)}", outcome.describe(glyphs)]
    if plan.kind == "draw":
        after = int(plan.legal.get("remaining", 1)) - 1
        more = f"{after} more to draw after this." if after else "Your last draw this turn."
        if plan.source == "deck":
            return [
                f"Draw the top card of the draw pile ({view.get('deck_count', '?')} left).",
                more,
            ]
        if card is not None:
            return [f"Take {_card(catalogue, card, glyphs)} into your hand.", more]
        return []  # nothing chosen yet: the prompt says which keys
    if plan.kind == "discard_hand" and card is not None:
        hand = len((view.get("you") or {}).get("hand", ()))
        limit = player(view, you).get("hand_limit", "?")
        return [
            f"Discard {_card(catalogue, card, glyphs)} from your hand.",
            f"Hand {hand} {glyphs.arrow} {hand - 1} (limit {limit}).",
        ]
    return []


def _card(catalogue: Catalogue, card: int, glyphs: Glyphs) -> str:
    c = catalogue[card]
    return f"{c.name} ({c.values(glyphs, all_three=False) or 'no effect'})"
