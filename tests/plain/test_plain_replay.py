"""The plain client's `replay`: a finished game one turn at a time, as a seat saw it (its
hand, the public story), from a table id or a pasted reference; `replay next` goes on."""

from __future__ import annotations

import re
import shutil

import pytest

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.record import Reference, parse_record
from gother_tui.plain import replay, words
from gother_tui.plain.ear import SPOKEN
from gother_tui.plain.terminal import Output
from gother_tui.plain.words import card_text
from server.tables.export import game_record
from tests.kits.netkit import close_all
from tests.plain.earkit import MINUS, phonemes
from tests.plain.plainkit import InProcess
from tests.tables.test_seat_replay import UNBOUNDED, played

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_replay_tells_a_turn_as_the_seat_saw_it_and_goes_on(server, url, tmp_path):
    table, player = await played(url, 3, 0, {})
    record = parse_record(game_record(server.store.tables, table, seat=1).to_wire())
    assert record.seen is not None
    turns = len(record.turn_starts())
    catalogue = Catalogue(record.cards)

    def hand_at(turn: int) -> list[str]:
        hand = record.seen[record.turn_starts()[turn - 1]].hand  # type: ignore[index]
        return [f"  {i}: {card_text(catalogue, glyphs, c)}" for i, c in enumerate(hand or (), 1)]

    async with InProcess(url, tmp_path) as raven:
        assert raven.client is not None
        glyphs = raven.client.glyphs  # the words the client writes cards in
        await raven.transcript.until(r"^  1: Kept")
        raven.type("replay")  # at no table: which game?
        await raven.transcript.until(r"^Which game\? At no table: replay \[TABLE")
        raven.type(f"replay {table} seat 2 turn 2")
        head = f"^Replay of Kept, game 1, as seat 2 saw it: turn 2 of {turns}, Round 1"
        await raven.transcript.until(head)
        mark = raven.transcript.read  # the line after the head
        await raven.transcript.until(r"^Next: replay next \(turn 3\)\.$")
        told = raven.transcript.since(mark)
        hand = hand_at(2)
        assert told[1 : 1 + len(hand)] == hand, told  # the seat's own hand at the turn's start
        others = [c for v in record.views for p in v.players if p.seat != 1 for c in p.hand or ()]
        hidden = set(others) - set(record.seen[record.turn_starts()[1]].hand or ())
        assert not any(  # no other hand is listed
            re.fullmatch(rf"  \d+: {re.escape(card_text(catalogue, glyphs, c))}", line)
            for line in told[1 + len(hand) :]
            for c in hidden
        )
        raven.type("replay next")
        await raven.transcript.until(
            f"^Replay of Kept, game 1, as seat 2 saw it: turn 3 of {turns}"
        )
        pasted = str(Reference(url, table, 1, 1, turns))
        raven.type(f"replay {pasted}")
        await raven.transcript.until(f"as seat 2 saw it: turn {turns} of {turns}, Round")
        await raven.transcript.until(
            r"^The end of the game: .+ won\.$|^The end of the game: nobody"
        )
        raven.type("replay next")
        await raven.transcript.until(r"^That was the last turn of the game\.$")
        raven.type(f"replay {table} turn {turns + 1}")
        await raven.transcript.until(rf"^The game has turns 1-{turns}, not {turns + 1}\.$")
        raven.type(f"replay {table} seat x")
        await raven.transcript.until(r"^seat N: N is a number from 1\. Usage: replay")
        raven.type(f"replay {table} seat 4")
        await raven.transcript.until(r"has only 3 seats")
    await close_all(player)


# a connection's budget for dear requests smaller than a seat's record costs, refilled
# slower than a client asks for parts even on a busy machine (at the default 20 a second
# a slow client's refill kept up and it was never refused)
# (30: the lobby's list 5, the build 20, then parts at 2 each)
SHORT_BUDGET = {**UNBOUNDED, "costly_burst": 30.0, "costly_rate": 5.0}


@pytest.mark.parametrize("config", [SHORT_BUDGET], indirect=True)
async def test_replay_asks_again_when_the_record_outruns_the_budget(server, url, tmp_path):
    table, player = await played(url, 3, 0, {})
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^  1: Kept")
        raven.type(f"replay {table} seat 1")
        await raven.transcript.until(r"^Replay of Kept, game 1, as seat 1 saw it: turn 1 of ")
        assert raven.client is not None
        refused = [e for e in raven.errors() if e.code == "rate_limited"]
        assert refused and not any("refused" in line for line in raven.transcript.lines)
    await close_all(player)


@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_play_on_after_a_replay_sits_you_in_a_new_game_from_that_turn(server, url, tmp_path):
    table, player = await played(url, 3, 0, {})
    record = parse_record(game_record(server.store.tables, table, seat=1).to_wire())
    assert record.seen is not None
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^  1: Kept")
        raven.type("play on")  # nothing replayed yet
        await raven.transcript.until(r"^play on follows a replay: replay a game")
        raven.type(f"replay {table} seat 2 turn 2")  # seat 2's own turn: the game waits on it
        await raven.transcript.until(r"^Next: replay next \(turn 3\)\.$")
        raven.type("play on x")
        await raven.transcript.until(r"^play on \[TURN\]: TURN is a number from 1\.$")
        raven.type("play-on 9999")
        await raven.transcript.until(r"^The server refused: the game has turns 1-")
        mark = len(raven.transcript.lines)
        raven.type("play on")  # the turn last told
        await raven.transcript.until(
            r"^Playing on from turn 2 of Kept, as seat 2 knew it, against bots"
        )
        raven.transcript.read = mark  # the arrival may be said before or after that line
        await raven.transcript.until(r"^Game 1 is under way\.")
        # issue 29: it said "Waiting for players … type start", then dealt by itself
        assert not any("Waiting for players" in line for line in raven.transcript.since(mark))
        asked = [m for m in raven.sent if m.get("t") == "play_on"]
        assert asked[-1] | {"rid": None} == {
            "t": "play_on",
            "rid": None,
            "table": table,
            "game": 1,
            "seat": 1,
            "turn": 2,
        }
        new = next(t for t in server.lobby.tables if t != table)
        then = record.seen[record.turn_position(2)]
        game = server.lobby.tables[new].game
        assert game is not None and game.fates == [list(p.fate) for p in then.players]
        assert tuple(game.hands[1]) == then.hand  # the hand it held; the others dealt afresh
    await close_all(player)


HEARD_NEGATIVE = re.compile(r"(?<![\w\d])[-\u2212]\d")  # a number below 0


@needs_espeak
@pytest.mark.parametrize("config", [UNBOUNDED], indirect=True)
async def test_every_negative_number_of_a_replay_and_the_scores_is_heard_as_negative(
    server, url, tmp_path
):
    """Issue 29 §7: "(-2 banked)" was heard "two banked" in replay and play-on text. Every
    line the plain mode writes for the ear goes through its Output, which says the minus a
    listener would lose; each turn of a recorded game (its seat's and every hand's), and
    the scores and piles at each turn, as written, keep every minus in espeak-ng's
    phonemes."""
    table, player = await played(url, 4, 1, {"round_cap": 4})
    await close_all(player)
    raw: list[str] = []
    for seat in (None, 1):
        record = parse_record(game_record(server.store.tables, table, seat=seat).to_wire())
        catalogue = Catalogue(record.cards)
        for turn in range(1, len(record.turn_starts()) + 1):
            raw += replay.turn_lines(record, turn, SPOKEN)
        for view in record.views:
            raw += words.scores_lines(view, catalogue) + words.piles_lines(view, catalogue, SPOKEN)
    negative = sorted({line for line in raw if HEARD_NEGATIVE.search(line)})
    assert any("banked)" in line for line in negative) or len(negative) >= 10, negative[:5]
    written: list[str] = []
    out = Output(_Lines(written), ascii_only=True, for_the_ear=True)
    out.lines(negative)
    lost = [
        (line, said)
        for line, said in zip(negative, written, strict=True)
        if phonemes(said).count(MINUS) < len(HEARD_NEGATIVE.findall(line))
    ]
    assert lost == [], f"{len(lost)} of {len(negative)} lines lose a minus, e.g. {lost[:3]}"


class _Lines:
    """A stream that keeps each line written."""

    def __init__(self, into: list[str]) -> None:
        self.into = into

    def write(self, text: str) -> int:
        self.into.append(text.rstrip("\n"))
        return len(text)

    def flush(self) -> None:
        pass
