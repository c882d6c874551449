"""Where the player is, as the commands check it before anything is sent: at a table,
deciding a step of one of some kinds, in the lobby. Each refusal is a `Problem`: one line
said, nothing sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gother_tui.core.narrator import names_of
from gother_tui.core.plans import Plan, plan_for
from gother_tui.core.prompts import step_label
from gother_tui.plain.moves import Problem
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.moves import Move
from protocol.view import View

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient


def at_table(client: PlainClient) -> View:
    if client.view is None:
        raise Problem("You are not at a table: list, join N, watch N or create.")
    return client.view


def deciding(client: PlainClient, *kinds: type[Any]) -> tuple[View, Plan]:
    """The view and a fresh plan of our decision, if it is of one of `kinds`."""
    view = at_table(client)
    if view.you is None:
        raise Problem("You are watching: spectators make no moves.")
    plan = plan_for(view)
    if plan is None:
        raise Problem(_waiting(view))
    if not isinstance(plan.legal, kinds):
        raise Problem(f"Not now: you are at {step_label(view)} (options says what to do).")
    return view, plan


def in_lobby(client: PlainClient) -> None:
    if client.view is not None:
        raise Problem("You are at a table: leave it first.")


async def play(client: PlainClient, move: Move) -> bool:
    reply = await client.ask(rq.Play(move=move))
    return isinstance(reply, sm.State)


def _waiting(view: View) -> str:
    if view.phase == "lobby":
        return "The game has not started: start deals now, with bots in the free seats."
    if view.over:
        return "The game is over: rematch asks for another."
    actor = view.to_act if view.to_act is not None else view.turn
    name = names_of(view.players).get(actor, "someone") if actor is not None else "someone"
    return f"It is not your turn: waiting for {name} ({step_label(view)})."
