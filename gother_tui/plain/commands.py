"""The plain client's commands: each one's name, short aliases, usage and help line, and
`parse`, which reads one line of input as a command (a bare number is an option's).

Parsing knows words, not the game: whether a command makes sense now is the client's
question, answered against the view.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.constants import SHORT_ROUND_CAP
from protocol.house_rules import plain_options


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    aliases: tuple[str, ...]
    usage: str
    help: str


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # a Spec's name, or "option" for a bare number
    args: str = ""  # the rest of the line, spaces tidied


@dataclass(frozen=True, slots=True)
class Unknown:
    problem: str  # one line: what was not understood, and what to do


OPTION = "option"

# (heading, specs) in the order `help` lists them.
SECTIONS: tuple[tuple[str, tuple[Spec, ...]], ...] = (
    (
        "Looking",
        (
            Spec("hand", ("h",), "hand", "your hand, numbered as give and drop count"),
            Spec("piles", ("p", "fates"), "piles", "every Fate pile, top first, with the scores"),
            Spec("scores", ("s",), "scores", "everyone's scores, hands and the round"),
            Spec(
                "discard",
                ("x",),
                "discard [N or NAME]",
                "alone: the discard pile; with a card: discard it from your Fate pile "
                "(by option number or name)",
            ),
            Spec("log", ("l",), "log [N]", "the last N lines of the game's story (10)"),
            Spec("who", ("w",), "who", "the seats: who is a bot, who is away"),
            Spec("options", ("o",), "options", "your decision again, with its numbered options"),
            Spec("more", ("m",), "more", "the options of your decision not said yet"),
            Spec(
                "again",
                ("a",),
                "again",
                "the last decision again, as it was said (a draw: its options)",
            ),
            Spec("what", (), "what", "what changed since your last turn"),
        ),
    ),
    (
        "Playing",
        (
            Spec("option", (), "N", "play option N of your decision"),
            Spec(
                "give",
                ("g",),
                "give CARD to NAME, ...",
                "place cards (a hand number or a name; NAME may be me); give alone asks "
                "seat by seat",
            ),
            Spec("confirm", ("c", "ok"), "confirm", "send the placement you composed in parts"),
            Spec("clear", ("cancel",), "clear", "forget the placement you composed"),
            Spec("draw", ("d",), "draw deck [all]", "draw from the draw pile: once, or all"),
            Spec("take", ("k",), "take NAME", "take that card from the discard pile"),
            Spec("drop", (), "drop NAME", "discard down: drop that card of your hand"),
            Spec("hint", ("t",), "hint", "the server's suggestion, and why"),
            Spec("say", ("'", "chat"), "say TEXT", "say something to the table"),
        ),
    ),
    (
        "Tables",
        (
            Spec("list", ("ls", "tables"), "list", "the server's tables"),
            Spec(
                "standings",
                ("rank", "ratings"),
                "standings [N]",
                "every player's record and rating, the best first (from rank N)",
            ),
            Spec(
                "create",
                ("new",),
                "create [SEATS [BOTS]] [easy|normal|hard] [vengeful|steady] [short] [NAME] "
                "[OPTION=VALUE ...]",
                f"make a table (4 seats, the rest bots; short: a {SHORT_ROUND_CAP}-round cap) and"
                f" sit at it (the house rules: {', '.join(plain_options())})",
            ),
            Spec("join", ("j",), "join N [PASSWORD]", "sit at table N of the list"),
            Spec("watch", (), "watch N", "watch table N of the list"),
            Spec("start", (), "start", "before the deal: start now, bots in the free seats"),
            Spec("rematch", (), "rematch", "after the game: ask for another"),
            Spec(
                "pause",
                (),
                "pause",
                "vote to pause the game; it pauses once every player votes so",
            ),
            Spec(
                "go",
                (),
                "go on",
                "once paused, vote to go on (before, take back your vote to pause); it goes "
                "on once every player votes so",
            ),
            Spec(
                "end",
                (),
                "end",
                "vote to end the game unfinished (asked first); it ends once every player votes so",
            ),
            Spec(
                "review",
                ("rv",),
                "review [SEAT]",
                "after the game: your decisions (or seat SEAT's) against the search's, the "
                "moments told",
            ),
            Spec(
                "replay",
                (),
                "replay [TABLE [GAME]] [seat N] [turn T] | replay next",
                "a finished game one turn at a time, as a seat saw it (yours, at your table); "
                "a pasted reference ws://HOST/TABLE/GAME#seat2-turn31 too; next: the next turn",
            ),
            Spec(
                "play",
                ("play-on",),
                "play on [TURN]",
                "after replay: a new game against bots from the start of turn TURN (the "
                "turn last told), as the replay's seat knew it; the cards it did not see "
                "are dealt afresh",
            ),
            Spec("leave", (), "leave", "leave the table (a bot takes your seat in a game)"),
            Spec(
                "tournament",
                ("tour",),
                "tournament [ID | watch ID | start | drop | new ROUNDS SEATS PASSWORD NAME "
                "[OPTION=VALUE ...]]",
                "alone: the tournament you follow (its tables and standings), or the open "
                "ones with their ids; ID: register in it; watch ID: follow it; start: deal its "
                "first round (its creator); drop: leave the rounds to come; new: make one, "
                "with the host's password for it, and play in it (options: play=yes|no, "
                f"bots=easy|normal|hard, deals=own|duplicate, {', '.join(plain_options())})",
            ),
            Spec(
                "verbose",
                ("v",),
                "verbose [on or off]",
                "every event and option in full, or (off) a round told short",
            ),
            Spec("help", ("?",), "help [COMMAND]", "this list, or one command's help"),
            Spec("quit", ("q", "exit"), "quit", "leave the client (your seat is kept)"),
        ),
    ),
)

SPECS = {spec.name: spec for _, specs in SECTIONS for spec in specs}
_WORDS = {word: spec.name for spec in SPECS.values() for word in (spec.name, *spec.aliases)}


def lookup(word: str) -> Spec | None:
    name = _WORDS.get(word.lower())
    return None if name is None else SPECS[name]


def parse(line: str) -> Command | Unknown | None:
    """One line of input as a command; None for an empty line."""
    text = " ".join(line.split())
    if not text:
        return None
    if text.startswith("'"):  # 'hello: say hello
        return Command("say", text[1:].strip())
    word, _, args = text.partition(" ")
    if word.isdigit():
        return (
            Command(OPTION, word)
            if not args
            else Unknown(f"{word} {args}: a number alone plays that option.")
        )
    spec = lookup(word)
    if spec is not None and spec.name != OPTION:
        return Command(spec.name, args)
    near = sorted({name for w, name in _WORDS.items() if w.startswith(word.lower())} - {OPTION})
    if len(near) == 1:
        return Unknown(f"Unknown command {word!r}: did you mean {near[0]}? (help lists them)")
    return Unknown(f"Unknown command {word!r}: type help for the list of commands.")


def help_lines(topic: str = "") -> list[str]:
    if topic:
        spec = lookup(topic) or (SPECS[OPTION] if topic.isdigit() else None)
        if spec is None:
            return [f"No command {topic!r}: type help for the list of commands."]
        return [f"{spec.usage}{_also(spec)}: {spec.help}."]
    lines = ["Commands, one a line:"]
    for heading, specs in SECTIONS:
        lines.append(f"{heading}:")
        lines.extend(f"  {spec.usage}{_also(spec)}: {spec.help}." for spec in specs)
    return lines


def _also(spec: Spec) -> str:
    return f" (or {', '.join(spec.aliases)})" if spec.aliases else ""
