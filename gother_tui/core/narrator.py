"""The story of the game: what happened, as sentences for one viewer.

Every door tells the game with this module (the table's log panel, the full log window, the
summary since your last turn, the alerts, the game-over screen, `gother replay`, and the
plain line mode): none of them words an event itself. It imports nothing of Textual.

API
- `Line`: one sentence (`text`) and what it is about, for filtering and alerts: `kind` (the
  event's kind, or a presence kind: "joined", "left", "away", "back", "covered", "gap",
  "welcome"), `actor` (the seat that acted, or that it is about), `target` (the seat it
  was done to, when another), `mine` (it is about the viewer: they acted or it happened to them),
  `loud` (a swoon or the end: worth a bold line, an alert), `marks` (what it did to a
  player: "swoon", "debt", "out_of_debt", "banked"), `round`, `card` (the card it moved, if
  named), `effect` (what it did to the target's scores, e.g. "Sickness 2 → 5, you swoon")
  and `outcome` (those scores before and after, for a door that words them its own way).
- `Narrator(catalogue, glyphs, names, you, piles)`: tells a run of events in order with
  `tell(event) -> Line`, keeping each Fate pile as it goes so a card's effect reads "Sickness
  2 → 5: you swoon". `names` maps seat to name, `you` is the viewer's seat (None: a
  spectator), `piles` the Fate piles before the first event told.
- `Narrator.for_view(view, catalogue, glyphs, events)`: a narrator set up to tell `events`,
  the newest events of `view` (its whole `log` when None): the piles before them are found
  by undoing them from the view's piles (scores are sums, R5, so order does not matter).
- `presence(before, after, you) -> list[Line]`: who joined, left, went away, came back, or
  is now played for by a bot, between two views of a table.
- `since_last_turn(lines, you) -> list[Line]`: of a game's lines so far, those since the
  viewer's previous turn that were done to them, or were loud, by others.
- `summary(lines, view, catalogue, glyphs) -> list[str]`: that, short, one line per thing
  done to the viewer, then the standings: the "since your last turn" panel.
- `gap(count) -> Line`: the line that says events were not seen (a late join, a lost link).
- `covered_for_you(rounds, view) -> Line`: to a player coming back, that a bot played for
  them in so many rounds (and won the game for them, if it did).
- `speaker(chat, glyphs) -> str`: who said a chat line, a spectator marked as watching.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gother_tui.core.catalogue import Catalogue, values
from gother_tui.core.glyphs import Glyphs
from gother_tui.core.preview import Outcome
from protocol import server_messages as sm
from protocol.constants import WIN_GOTH
from protocol.view import (
    Drew,
    Event,
    FateDiscarded,
    GameOver,
    HandDiscarded,
    Placed,
    Reshuffled,
    SeatInfo,
    Swooned,
    TurnBegan,
    View,
)


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    kind: str
    actor: int | None = None
    target: int | None = None
    mine: bool = False
    loud: bool = False
    marks: frozenset[str] = frozenset()
    round: int = 0
    card: int | None = None  # the card the event moved, when one is named
    effect: str = ""  # what it did to the target's scores: "Sickness 2 → 5, you swoon"
    outcome: Outcome | None = None  # the target's scores before and after the card moved


def plural(count: int, noun: str) -> str:
    """ "1 card", "2 cards"."""
    return f"{count} {noun}{'s' * (count != 1)}"


def names_of(players: Iterable[SeatInfo]) -> dict[int, str]:
    return {p.seat: p.name or f"Seat {p.seat + 1}" for p in players}


class Narrator:
    def __init__(
        self,
        catalogue: Catalogue,
        glyphs: Glyphs,
        names: Mapping[int, str],
        you: int | None = None,
        piles: Mapping[int, Sequence[int]] | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.glyphs = glyphs
        self.names = names
        self.you = you
        self.piles: dict[int, list[int]] = {s: list(p) for s, p in (piles or {}).items()}
        self.round = 0

    @classmethod
    def for_view(
        cls,
        view: View,
        catalogue: Catalogue,
        glyphs: Glyphs,
        events: Sequence[Event] | None = None,
    ) -> Narrator:
        events = view.log if events is None else events
        piles = {p.seat: list(p.fate) for p in view.players}
        for event in reversed(events):
            _undo(piles, event)
        narrator = cls(catalogue, glyphs, names_of(view.players), view.seat, piles)
        narrator.round = next((e.round for e in events if isinstance(e, TurnBegan)), view.round)
        return narrator

    # -- words ----------------------------------------------------------------------------

    def who(self, seat: int | None) -> str:
        if seat is not None and seat == self.you:
            return "You"
        if seat is None:
            return "Someone"
        return self.names.get(seat, f"Seat {seat + 1}")

    def whom(self, seat: int) -> str:
        return "you" if seat == self.you else self.who(seat)

    def whose(self, seat: int) -> str:
        return "your" if seat == self.you else "their"

    def card(self, card: int | None) -> str:
        """ "Fishnet Pneumonia ☥+1 ☠+3": the name and what the card changes."""
        if card is None:
            return "a card"
        c = self.catalogue[card]
        effect = values(c, self.glyphs, all_three=False)
        return f"{c.name} {effect}" if effect else c.name

    # -- telling --------------------------------------------------------------------------

    def tell(self, event: Event) -> Line:
        """The sentence for `event`, the next one of the game; the piles follow it."""
        if isinstance(event, TurnBegan):
            self.round = event.round
        line = self._line(event)
        _do(self.piles, event)
        return line

    def _line(self, event: Event) -> Line:
        you = self.you
        match event:
            case TurnBegan(seat=seat, round=round_no):
                turn = "your turn" if seat == you else f"{self.who(seat)}'s turn"
                return self._make(f"Round {round_no}: {turn}.", event, seat)
            case FateDiscarded(seat=seat, card=card):
                outcome = Outcome.removing("", self.piles.get(seat, []), card, self.catalogue)
                pile = f"{self.whose(seat)} Fate pile"
                text = f"{self.who(seat)} discarded {self.card(card)} from {pile}"
                return self._effect(text, event, seat, seat, outcome)
            case Placed(seat=seat, to=to, card=card):
                outcome = Outcome.placing("", self.piles.get(to, []), card, self.catalogue)
                if to == seat:  # not "kept": that reads as kept in hand
                    own = f"{self.whose(seat)} own Fate pile"
                    text = f"{self.who(seat)} placed {self.card(card)} on {own}"
                else:
                    text = f"{self.who(seat)} gave {self.whom(to)} {self.card(card)}"
                return self._effect(text, event, seat, to, outcome)
            case Swooned(seat=seat, cards=cards):
                verb = "SWOON" if seat == you else "SWOONS"
                text = f"{self.who(seat)} {verb}: {plural(len(cards), 'card')} to the discard pile."
                return self._make(text, event, seat, loud=True, marks={"swoon"})
            case Drew(seat=seat, source="discard", card=card):
                text = f"{self.who(seat)} took {self.card(card)} from the discard pile."
                return self._make(text, event, seat)
            case Drew(seat=seat, card=card):
                text = f"{self.who(seat)} drew {self.card(card)} from the draw pile."
                return self._make(text, event, seat)
            case HandDiscarded(seat=seat, card=card):
                text = f"{self.who(seat)} discarded {self.card(card)} from {self.whose(seat)} hand."
                return self._make(text, event, seat)
            case Reshuffled(count=count):
                text = (
                    f"The discard pile ({plural(count, 'card')}) was shuffled into a new draw pile."
                )
                return self._make(text, event, None)
            case GameOver(winners=winners, reason=reason):
                return self._make(self._over(winners, reason), event, None, loud=True)
        raise AssertionError(f"no sentence for {event!r}")  # every Event kind is above

    def _make(
        self,
        text: str,
        event: Event,
        actor: int | None,
        target: int | None = None,
        *,
        loud: bool = False,
        marks: Iterable[str] = (),
        effect: str = "",
        outcome: Outcome | None = None,
    ) -> Line:
        you = self.you
        mine = you is not None and you in (actor, target)
        if isinstance(event, GameOver):
            mine = you is not None and you in event.winners
        return Line(
            text,
            event.kind,
            actor,
            target if target != actor else None,
            mine,
            loud,
            frozenset(marks),
            self.round,
            getattr(event, "card", None),
            effect,
            outcome,
        )

    def _effect(self, text: str, event: Event, actor: int, target: int, outcome: Outcome) -> Line:
        """`text` and what it did to `target`'s scores: "…: Sickness 2 → 5, you swoon."."""
        before, after = outcome.before, outcome.after
        parts = outcome.changes(self.glyphs)
        marks = set()
        who = "you" if target == self.you else self.who(target)
        verb = "" if target == self.you else "s"
        if after.swoon:
            parts.append(f"{who} swoon{verb}")
            marks.add("swoon")
        elif after.in_debt and not before.in_debt:
            parts.append(f"{who} {'are' if target == self.you else 'is'} in debt")
            marks.add("debt")
        elif before.in_debt and not after.in_debt:
            parts.append(f"{who} {'are' if target == self.you else 'is'} out of debt")
            marks.add("out_of_debt")
        rise = after.sickness_sum - before.sickness_sum
        if (rise > 0 and before.banked) or (rise < 0 and after.banked):
            marks.add("banked")
        dash = self.glyphs.dash
        effect = ", ".join(parts)
        sentence = f"{text} {dash} {effect}." if parts else f"{text}."
        return self._make(
            sentence, event, actor, target, marks=marks, effect=effect, outcome=outcome
        )

    def _over(self, winners: Sequence[int], reason: str) -> str:
        names = [self.who(s) for s in winners]
        if not names:
            return "Game over."
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "win" if len(names) > 1 or names[0] == "You" else "wins"
        if reason == "round_cap":
            return f"Game over at the round cap: {joined} {verb} on Goth Points."
        return f"Game over: {joined} {verb} with {WIN_GOTH}+ Goth Points."


def _do(piles: dict[int, list[int]], event: Event) -> None:
    if isinstance(event, Placed):
        piles.setdefault(event.to, []).append(event.card)
    elif isinstance(event, FateDiscarded):
        pile = piles.setdefault(event.seat, [])
        if event.card in pile:
            pile.remove(event.card)
    elif isinstance(event, Swooned):
        piles[event.seat] = []


def _undo(piles: dict[int, list[int]], event: Event) -> None:
    if isinstance(event, Placed):
        pile = piles.setdefault(event.to, [])
        if event.card in pile:
            pile.remove(event.card)
    elif isinstance(event, FateDiscarded):
        piles.setdefault(event.seat, []).append(event.card)
    elif isinstance(event, Swooned):
        piles[event.seat] = list(event.cards)


# -- beside the events ---------------------------------------------------------------------


def presence(before: View | None, after: View, you: int | None) -> list[Line]:
    """Who came, went, or is now played for by a bot, between two views of one table."""
    if before is None or before.table.id != after.table.id:
        return []
    lines = []
    old = {p.seat: p for p in before.players}
    for p in after.players:
        was = old.get(p.seat)
        if was is None or p.seat == you:
            continue
        name = p.name or was.name or f"Seat {p.seat + 1}"
        if was.name is None and p.name is not None:
            lines.append(Line(f"{name} joined.", "joined", p.seat))
        elif was.name is not None and p.name is None:
            lines.append(Line(f"{name} left.", "left", p.seat))
        elif p.bot and not was.bot:
            lines.append(Line(f"{name} left: a bot plays for them now.", "left", p.seat))
        elif p.bot:
            continue
        elif p.covered and not was.covered:
            lines.append(Line(f"A bot plays for {name} until they are back.", "covered", p.seat))
        elif was.connected and not p.connected:
            lines.append(Line(f"{name} is away.", "away", p.seat))
        elif p.connected and not was.connected:
            lines.append(Line(f"{name} is back.", "back", p.seat))
    return lines


def summary(lines: Sequence[Line], view: View, catalogue: Catalogue, glyphs: Glyphs) -> list[str]:
    """Since the viewer's previous turn, short: what each other player did to them, who
    swooned, and the standings now. Empty when nothing was done to the viewer."""
    narrator = Narrator(catalogue, glyphs, names_of(view.players), view.seat)
    told: list[str] = []
    yours: list[str] = []  # your own swoon first: a narrow column shows only the first few
    for line in since_last_turn(lines, view.seat):
        if line.target == view.seat and line.card is not None:
            effect = f" {glyphs.dash} {line.effect}" if line.effect else ""
            said = f"{narrator.who(line.actor)}: {narrator.card(line.card)}{effect}"
            swooned = line.outcome is not None and line.outcome.after.swoon
            (yours if swooned else told).append(said)
        else:
            (yours if line.kind == "swoon" and line.actor == view.seat else told).append(line.text)
    told = yours + told
    if not told:
        return []
    ranked = sorted(view.players, key=lambda p: (-p.goth, p.seat))
    standing = f" {glyphs.sep} ".join(f"{narrator.who(p.seat)} {p.goth}" for p in ranked)
    return [*told, f"Goth now: {standing}"]


def gap(count: int) -> Line:
    """Events this client did not see (it joined late, or its link was down)."""
    return Line(
        f"({plural(count, 'event')} not seen here: this client was not connected then.)", "gap"
    )


def covered_for_you(rounds: int, view: View | None = None) -> Line:
    """Told to a player coming back: a bot played for them (and, if it won, that too)."""
    text = f"While you were away a bot played for you in {plural(rounds, 'round')}."
    if view is not None and view.over and view.seat in (view.winner or ()):
        text += " It won the game for you."
    return Line(text, "welcome", view.seat if view else None, mine=True)


def since_last_turn(lines: Sequence[Line], you: int | None) -> list[Line]:
    """What others did to the viewer, and every loud line of theirs, between the viewer's
    previous turn and their newest one (of the game's lines so far)."""
    turns = [i for i, ln in enumerate(lines) if ln.kind == "turn" and ln.actor == you]
    if you is None or not turns:
        return []
    start = turns[-2] if len(turns) > 1 else -1
    return [
        ln
        for ln in lines[start + 1 : turns[-1]]
        if ln.actor != you and ln.kind != "turn" and (ln.target == you or ln.loud)
    ]


def speaker(chat: sm.Chat, glyphs: Glyphs) -> str:
    """Who said a chat line: a spectator is marked, so "Lydia (watching)" cannot pass for
    the Lydia who sits at the table."""
    return f"{chat.sender} {glyphs.watching}" if chat.watching else chat.sender
