"""What the plain client's looking commands print: the hand, the Fate piles, the scores, the
discard pile, who sits where, the lobby's tables, and the lines that greet a table.

Plain functions of a view (or a table listing) to lines: words instead of marks ("a bot",
"away", "in debt"), so a line reads the same spoken, on a braille display, or to a script.
"""

from __future__ import annotations

from collections.abc import Iterable

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.narrator import Narrator, names_of, plural
from gother_tui.core.preview import fate_sums, sickness_text
from gother_tui.core.prompts import step_label
from gother_tui.plain.ear import sickness_words
from protocol import server_messages as sm
from protocol.constants import DEFAULT_ROUND_CAP, SHORT_ROUND_CAP
from protocol.house_rules import differing
from protocol.view import Player, View


def card_text(catalogue: Catalogue, glyphs: Glyphs, card: int) -> str:
    """A card as the story names it: "Fishnet Pneumonia ☠+1 ✚+3"."""
    return Narrator(catalogue, glyphs, {}).card(card)


def who_is(view: View, player: Player) -> str:
    """ "Raven (you)", "Vlad (a steady bot)", "Eve (away)", "Seat 4 (free)"."""
    name = names_of(view.players)[player.seat]
    if player.seat == view.seat:
        return f"{name} (you)"
    if player.name is None:
        return f"{name} (free)"
    if player.bot:
        return f"{name} (a {player.trait} bot)" if player.trait else f"{name} (a bot)"
    if player.covered:
        return f"{name} (away: a bot plays for them)"
    return name if player.connected else f"{name} (away)"


def scores_of(player: Player, catalogue: Catalogue, spoken: bool = False) -> str:
    """ "Goth 7, Sickness 0 (-3 banked), Money -2 (in debt)"; `spoken`, for the ear:
    "Sickness 3 banked"."""
    sums = fate_sums(player.fate, catalogue)
    debt = " (in debt)" if player.in_debt else ""
    sickness = sickness_words(sums) if spoken else sickness_text(sums)
    return f"Goth {player.goth}, Sickness {sickness}, Money {player.money}{debt}"


def hand_lines(view: View, catalogue: Catalogue, glyphs: Glyphs) -> list[str]:
    hand = view.hand
    if hand is None:
        return ["You are watching: you hold no hand."]
    me = next(p for p in view.players if p.seat == view.seat)
    head = f"Your hand, {plural(len(hand), 'card')} (your limit is {me.hand_limit}):"
    if not hand:
        return [f"Your hand is empty (your limit is {me.hand_limit})."]
    return [head, *(f"  {i}: {card_text(catalogue, glyphs, c)}" for i, c in enumerate(hand, 1))]


def piles_lines(
    view: View, catalogue: Catalogue, glyphs: Glyphs, spoken: bool = False
) -> list[str]:
    lines = ["The Fate piles, top card first:"]
    for p in view.players:
        cards = "; ".join(card_text(catalogue, glyphs, c) for c in reversed(p.fate))
        pile = f"{plural(len(p.fate), 'card')}: {cards}" if cards else "no cards"
        scores = scores_of(p, catalogue, spoken)
        lines.append(f"  {p.seat + 1} {who_is(view, p)}: {scores}; {pile}.")
    return lines


def scores_lines(view: View, catalogue: Catalogue, spoken: bool = False) -> list[str]:
    lines = [round_line(view)]
    for p in view.players:
        hand = f"hand {p.hand_count} of {p.hand_limit}"
        scores = scores_of(p, catalogue, spoken)
        lines.append(f"  {p.seat + 1} {who_is(view, p)}: {scores}; {hand}.")
    return lines


def cap_note(view: View) -> str:
    """ " A short game: after round 20 the highest Goth wins." for a round cap other than the
    published game's (H1), said as the cards are dealt; "" for the published cap or none."""
    cap = view.round_cap
    if cap is None or cap == DEFAULT_ROUND_CAP:
        return ""
    kind = "A short game" if cap <= SHORT_ROUND_CAP else "A capped game"
    return f" {kind}: after round {cap} the highest Goth wins."


def round_line(view: View) -> str:
    """ "Round 3 of 100: Vlad to play, step 2/4 Distribute. The draw pile has 18 cards."."""
    if view.phase == "lobby":
        return "No game yet: waiting for players."
    if view.over:
        return f"The game is over: {winners(view)}."
    cap = f" of {view.round_cap}" if view.round_cap is not None else ""
    actor = view.to_act if view.to_act is not None else view.turn
    who = "you" if actor == view.seat else names_of(view.players).get(actor or 0, "someone")
    deck = plural(view.deck_count, "card")
    return f"Round {view.round}{cap}: {who} to play, {step_label(view)}. The draw pile has {deck}."


def discard_lines(view: View, catalogue: Catalogue, glyphs: Glyphs) -> list[str]:
    pile = list(reversed(view.discard))
    if not pile:
        return ["The discard pile is empty."]
    head = f"The discard pile, {plural(len(pile), 'card')}, top first:"
    return [head, *(f"  {i}: {card_text(catalogue, glyphs, c)}" for i, c in enumerate(pile, 1))]


def vote_lines(before: View, after: View) -> list[str]:
    """What the pause and end votes did between two views of one game: "Vlad asks to
    pause.", "The game is paused: …", "You ask to go on.", "The game goes on."."""
    was, now = before.table, after.table
    names = names_of(after.players)

    def votes(seats: Iterable[int], what: str) -> list[str]:
        """ "You ask to …", "Vlad asks to …": `what` as said of you."""
        verb, _, rest = what.partition(" ")
        return [
            f"You {what}."
            if s == after.seat
            else f"{names.get(s, f'Seat {s + 1}')} {verb}s {rest}."
            for s in seats
        ]

    lines = []
    if now.paused and not was.paused:
        lines.append(
            "The game is paused: clocks and bots wait. Going on needs every player's vote (go on)."
        )
    elif was.paused and not now.paused:
        lines.append("The game goes on.")
    elif now.paused:
        lines += votes([s for s in was.pause_votes if s not in now.pause_votes], "ask to go on")
    else:
        lines += votes([s for s in now.pause_votes if s not in was.pause_votes], "ask to pause")
        gone = [s for s in was.pause_votes if s not in now.pause_votes]
        lines += votes(gone, "take back the vote to pause")
    ended = [s for s in now.end_votes if s not in was.end_votes]
    return lines + votes(ended, "ask to end the game unfinished")


def who_lines(view: View) -> list[str]:
    info = view.table
    watching = f", {info.spectators} watching" if info.spectators else ""
    lines = [f"{info.name} (table {info.id}): {plural(info.seats, 'seat')}{watching}."]
    for p in view.players:
        clock = f", {p.clock:.0f} s on the clock" if p.clock is not None else ""
        asked = ", asks for a rematch" if p.rematch and view.over else ""
        lines.append(f"  {p.seat + 1} {who_is(view, p)}{clock}{asked}")
    return lines


def arrival_lines(view: View) -> list[str]:
    """What greets a table the first time its view arrives."""
    info = view.table
    if view.seat is None:
        where = f"You are watching {info.name} (table {info.id})."
    else:
        where = f"You sit at {info.name} (table {info.id}), seat {view.seat + 1} of {info.seats}."
    return [where, phase_line(view)]


def phase_line(view: View) -> str:
    if view.phase == "lobby":
        seated = sum(1 for p in view.players if p.name)
        start = ""
        if view.seat is not None and seated < view.table.seats:
            start = " Type start to begin now, bots taking the free seats."
        return f"Waiting for players: {seated} of {view.table.seats} seats taken.{start}"
    if view.over:
        return f"The game is over: {winners(view)}."
    return f"Game {view.table.game} is under way. {round_line(view)}"


def winners(view: View) -> str:
    """ "Vlad won", "you won", "Vlad and Eve won", "nobody won"."""
    names = names_of(view.players)
    won = [("you" if s == view.seat else names[s]) for s in view.winner or ()]
    if not won:
        return "nobody won"
    return (" and ".join(won) if len(won) < 3 else ", ".join(won[:-1]) + " and " + won[-1]) + " won"


def table_lines(tables: tuple[sm.TableRow, ...]) -> list[str]:
    if not tables:
        return ["No tables on this server yet: type create to make one."]
    lines = [f"{plural(len(tables), 'table')} (join N, watch N, or create):"]
    for i, t in enumerate(tables, 1):
        state = "waiting" if t.phase == "lobby" else "over" if t.phase == "over" else "playing"
        bots = f", {plural(t.bots, f'{t.bot} bot' if t.bot else 'bot')}" if t.bots else ""
        if t.bots and t.trait:
            bots += f" ({t.trait})"
        watching = f", {t.spectators} watching" if t.spectators else ""
        password = ", password" if t.password else ""
        rules = "".join(f", {rule[:1].lower()}{rule[1:]}" for rule in differing(t.variants))
        lasts = f" Length: {t.lasts}." if t.lasts else ""
        lines.append(
            f"  {i}: {t.name} (table {t.id}), {t.seated} of {t.seats} seats taken{bots}, "
            f"{state}{watching}{password}{rules}.{lasts}"
        )
    return lines
