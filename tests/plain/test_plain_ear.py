"""The plain mode for the ear: a seeded 4-seat game from a pipe against a real server, as a
listener hears it (its words per round, and espeak-ng's phonemes for every line), the
commands that say again what was missed (`more`, `again`, `what`, `verbose`), and on views
of random games made by the real engine, what the ear's telling holds to always."""

from __future__ import annotations

import random
import re
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.narrator import Line, names_of
from gother_tui.plain.choices import decision
from gother_tui.plain.ear import SPOKEN, Teller
from gother_tui.plain.story import told
from protocol.view import Variants, View
from server.game import Game, default_deck, view
from tests.game.enginekit import random_move
from tests.plain.earkit import (
    MINUS,
    NEGATIVE,
    phonemes,
    play_seeded,
    rounds,
    seeded_deals,
    words,
)
from tests.plain.plainkit import InProcess

WORDS_A_ROUND = 175  # a minute at espeak-ng's 175 words a minute
CATALOGUE = Catalogue(default_deck().catalogue())
MARKS = re.compile("[\u2190-\u21ff\u2600-\u27bf\u2014]")  # arrows, symbols, a dash

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="needs Debian's espeak-ng (.ci/run installs it)"
)


async def test_a_round_at_four_seats_is_heard_in_a_minute(server, url, tmp_path):
    with seeded_deals():
        lines = await play_seeded(url, tmp_path / "home")
    heard = rounds(lines)
    assert len(heard) >= 3, "the game should last a few rounds"
    # every round, the heaviest too (a mean would let a long round through)
    too_long = [(words(round_), round_) for round_ in heard if words(round_) > WORDS_A_ROUND]
    assert too_long == [], too_long
    others = re.compile(r"^(Morticia|Vlad|Lenore) \(Goth -?\d+\) gave you ")
    for round_ in heard:
        # another player's turn is one line, and the discard pile is said once a turn
        assert sum(1 for line in round_ if others.match(line)) <= 3, round_
        assert sum(len(re.findall(r"\d:? take ", line)) for line in round_) <= 1, round_
    assert not [line for line in lines if line.startswith(("The server refused", "Not sent"))]


LOOKS = ("hand", "piles", "scores", "discard", "more", "what", "again", "hint", "log 5")


@needs_espeak
async def test_every_negative_number_is_heard_as_negative(server, url, tmp_path):
    with seeded_deals():
        lines = await play_seeded(url, tmp_path / "home", looks=LOOKS * 2)
    assert any(line.startswith("The Fate piles, top card first:") for line in lines)
    negative = [line for line in set(lines) if NEGATIVE.search(line)]
    assert len(negative) >= 5, "the game should have scores below zero to say"
    lost = [
        (line, said)
        for line in negative
        if (said := phonemes(line)).count(MINUS) < len(NEGATIVE.findall(line))
    ]
    assert lost == [], f"{len(lost)} of {len(negative)} lines lose a minus, e.g. {lost[:3]}"


async def test_more_again_what_and_verbose(url, tmp_path):
    async with InProcess(url, tmp_path, ascii=False) as plain:
        await plain.transcript.until(r"^No tables on this server yet")
        plain.type("create 4")  # this seat deals: its first decision is a placement
        await plain.transcript.until(r"^Give each a card:$")
        first = await plain.transcript.until(r"^  1: keep .* \(hint\): ")
        await plain.transcript.until(r"^Choose 1; \d more\.$")

        plain.type("2")  # not said yet: nothing is sent
        await plain.transcript.until(r"^Option 2 was not said: more says the rest of them\.$")
        plain.type("more")
        await plain.transcript.until(r"^  2: keep ")
        plain.type("more")
        await plain.transcript.until(r"^That is every option\.$")

        plain.type("again")  # the decision as it was said, and only that
        await plain.transcript.until(r"^Give each a card:$")
        again = await plain.transcript.until(r"^  1: keep ")
        assert again.string == first.string
        await plain.transcript.until(r"^Choose 1; \d more\.$")
        assert plain.moves_sent() == []

        plain.type("1")  # your own placement goes unsaid: the draw follows
        await plain.transcript.until(r"^Draw \d+")
        plain.type("draw deck all")
        await plain.transcript.until(r"^You drew .*\.$")
        turn = await plain.transcript.until(r"^(Morticia|Vlad|Lenore) \(Goth -?\d+\) ")
        await plain.transcript.until(r"^Round 2: your turn\.$")

        plain.type("what")  # what changed since your last turn, as it was said
        repeated = await plain.transcript.until(r"^(Morticia|Vlad|Lenore) \(Goth -?\d+\) ")
        assert repeated.string == turn.string

        plain.type("verbose on")
        await plain.transcript.until(r"^Verbose: every event and every option, in full\.$")
        plain.type("options")
        # round 2 opens with a Fate discard, or with the placement when a swoon emptied the
        # pile (R10): the game's bots and hints vary from run to run
        step = await plain.transcript.until(r"^Step ([12])/4 (Fate discard|Distribute): ")
        option = r"discard .* \(the top card\)" if step[1] == "1" else r".* to you, .*"
        await plain.transcript.until(rf"^  1: {option} \u2014 you: ")
        await plain.transcript.until(r"^Choose 1")
        plain.type("verbose off")
        await plain.transcript.until(r"^Short: a line a turn, the first options")
        plain.type("scores")
        await plain.transcript.until(r"^  1 Raven \(you\): Goth -?\d+, Sickness ")
        assert plain.errors() == []
        plain.type("quit")


async def test_a_draw_step_says_its_options_once_and_each_draw_after_it_one_line(
    server, url, tmp_path
):
    """Issue 29 §7: each prompt said once per decision. A draw step's options are said at its
    first draw; each draw after it is one line, the "Choose" a script waits for with what is
    left; `again` and `options` say the options when the listener asks."""
    with seeded_deals():  # a first hand of little Sickness: three or four cards to draw
        async with InProcess(url, tmp_path, ascii=False) as plain:
            await plain.transcript.until(r"^No tables on this server yet")
            plain.type("create 4")
            await plain.transcript.until(r"^Choose 1; \d more\.$")
            plain.type("1")
            # option 1 is the hint's when it came in time, another placement else (a loaded
            # machine: `thinking`), which may put the player in debt
            draw = (
                r"^Draw (\d)(, from the draw pile only \(in debt\))?: 1 one, 2 all(, 3 take .*)?\.$"
            )
            first = await plain.transcript.until(draw)
            await plain.transcript.until(r"^Choose 1-\d+(; \d+ more)?\.$")
            due = int(first[1])
            assert due >= 3, first.string
            for left in range(due - 1, 0, -1):
                mark = len(plain.transcript.lines)
                plain.type("1")
                numbers = "1-2" if left > 1 else "1"
                await plain.transcript.until(rf"^Choose {numbers}: {left} more to draw\.$")
                said = plain.transcript.since(mark)
                assert len(said) == 2 and re.match(r"^You drew [^;]+\.$", said[0]), said
                if left == 1:  # the options, when asked for
                    plain.type("again")
                    await plain.transcript.until(r"^Draw 1 more: 1 one\.$")
                    await plain.transcript.until(r"^Choose 1\.$")
                    plain.type("options")
                    await plain.transcript.until(r"^Draw 1 more: 1 one\.$")
                    await plain.transcript.until(r"^Choose 1\.$")
            plain.type("1")
            await plain.transcript.until(r"^You drew [^;]+\.$")
            assert [m["kind"] for m in plain.moves_sent()] == ["distribute"] + ["draw"] * due
            assert plain.errors() == []
            plain.type("quit")


async def test_verbose_tells_every_event_and_option(url, tmp_path):
    async with InProcess(url, tmp_path, verbose=True) as plain:
        await plain.transcript.until(r"^No tables on this server yet")
        plain.type("create 4")
        await plain.transcript.until(r"^Step 2/4 Distribute: give each player one card")
        await plain.transcript.until(r"^Choose 1(-\d)?, or give CARD to NAME")
        plain.type("1")
        # your own moves are told too
        await plain.transcript.until(r"^You placed .* on your own Fate pile")
        await plain.transcript.until(r"^Step 3/4 Draw: draw \d+ more cards?\.")
        plain.type("more")
        await plain.transcript.until(r"^That is every option\.$")
        plain.type("quit")


def sign_lost(text: str) -> list[str]:
    """Each minus in `text` that a speech synthesizer may drop: one not after a word and a
    space ("Goth -1" is heard "minus one"; "(-2", "→ -1", "☥-1" are not)."""
    return [
        text[max(0, m.start() - 8) : m.end()]
        for m in NEGATIVE.finditer(text)
        if not (
            text[m.start() - 1 : m.start()] == " " and text[m.start() - 2 : m.start() - 1].isalnum()
        )
    ]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4, 5]))
def test_the_ear_says_another_turn_in_one_line_and_every_sign_in_words(seed, players):
    game = Game.new(default_deck(), players, seed, Variants(), 0)
    rng = random.Random(seed)
    teller, before, said = Teller(0), None, []
    turn_of: int | None = None
    for _ in range(300):
        now: View = view(game, 0)
        names = names_of(now.players)
        for line in told(before, now, CATALOGUE, SPOKEN):
            out = teller.tell(line, CATALOGUE, names)
            if line.kind in ("turn", "over") and turn_of not in (None, 0):
                # the turn that has just ended, told in one line
                assert sum(1 for text in out if text.startswith(names[turn_of])) == 1, out
            elif turn_of not in (None, 0) and line.kind not in ("turn", "over"):
                assert out == [], (line, out)  # nothing is said before their turn ends
            if line.kind == "turn":
                turn_of = line.actor
            said.extend(out)
        found = decision(now, CATALOGUE, SPOKEN)
        if found is not None:
            said.extend([*found.short_lines(), *found.more_lines(0)])
        if game.over:
            break
        before = now
        game.apply(*random_move(game, rng))
    assert said
    assert [text for text in said if MARKS.search(text)] == []
    assert [lost for text in said for lost in sign_lost(text)] == []


def test_a_spectator_hears_each_turn_as_who_was_given_what():
    game = Game.new(default_deck(), 4, 3, Variants(), 0)
    rng = random.Random(3)
    teller, before, said = Teller(None), None, []
    while game.round < 3 and not game.over:
        now = view(game, "spectator")
        for line in told(before, now, CATALOGUE, SPOKEN):
            said.extend(teller.tell(line, CATALOGUE, names_of(now.players)))
        before = now
        game.apply(*random_move(game, rng))
    turns = [text for text in said if re.match(r"^Seat \d", text)]
    assert len(turns) >= 4  # the turns of round 1, one line each
    assert all(re.search(r" gave Seat \d ", text) for text in turns), turns
    assert not any("you" in text.split() for text in said)


def test_a_run_of_reshuffles_is_said_once():
    """Issue 29: "discard pile reshuffled" was said three times in a row (each card drawn
    from a pile of one emptied it again)."""
    teller = Teller(0)
    names = {0: "Raven", 1: "Vlad"}
    reshuffle = Line("The discard pile is reshuffled into the draw pile.", "reshuffle")
    drew = Line("You drew a card.", "draw", actor=0, card=1)
    said: list[str] = []
    for line in (reshuffle, drew, reshuffle, drew, reshuffle):
        said += teller.tell(line, CATALOGUE, names)
    assert said.count("Discard pile reshuffled into the draw pile.") == 1, said
    said += teller.tell(Line("Your turn.", "turn", actor=0), CATALOGUE, names)
    said += teller.tell(reshuffle, CATALOGUE, names)  # a new run: said again
    assert said.count("Discard pile reshuffled into the draw pile.") == 2, said
