"""The plain client's parts, on views made by the real engine: what a new view adds to the
story, the numbered options (each one a move the engine takes), the command words, typed
cards and seats, and the lines it writes."""

from __future__ import annotations

import copy
import io
import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import ASCII
from gother_tui.core.narrator import Narrator
from gother_tui.core.plans import plan_for
from gother_tui.plain.choices import decision, placements
from gother_tui.plain.commands import SECTIONS, Command, Unknown, help_lines, parse
from gother_tui.plain.moves import Problem, find_card, find_seat, placing
from gother_tui.plain.story import MISSED, new_events, told
from gother_tui.plain.terminal import Output, printable
from gother_tui.plain.words import piles_lines, who_lines
from protocol import moves, requests, validate_request
from protocol import server_messages as sm
from protocol.view import Card, Drew, LegalDistribute, SeatInfo, Variants, View
from server.game import Game, default_deck
from server.game.view import LOG_SIZE
from tests.game.enginekit import random_move
from tests.tui import viewkit as vk

CAT = Catalogue(Card(**c) for c in vk.CATALOGUE)


def seen(game: Game, viewer: int | str = 0) -> View:
    return vk.table_view(game, viewer)


def played(seed: int, moves: int, players: int = 3) -> Game:
    game = Game.new(default_deck(), players, seed, Variants(), 0)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(*random_move(game, rng))
    return game


ORIGINAL = Catalogue(default_deck().catalogue())


# -- the story: what a new view adds ---------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 80), st.integers(1, 12))
def test_a_new_view_adds_exactly_the_events_made_since_the_one_before(seed, start, more):
    game = played(seed, start)
    before, count = seen(game), len(game.events)
    rng = random.Random(seed + 1)
    for _ in range(more):
        if game.over:
            break
        game.apply(*random_move(game, rng))
    after = seen(game)
    events, missed = new_events(before, after)
    made = len(game.events) - count
    assert not missed
    assert len(events) == made
    assert events == after.log[len(after.log) - made :] if made else events == ()


def test_more_events_than_a_view_holds_are_said_to_be_missed():
    game = played(7, 10)
    before = seen(game)
    rng = random.Random(8)
    start = len(game.events)
    while len(game.events) - start <= LOG_SIZE + 5 and not game.over:
        game.apply(*random_move(game, rng))
    after = seen(game)
    events, missed = new_events(before, after)
    assert missed and events == after.log
    assert told(before, after, ORIGINAL, ASCII)[0] == MISSED


def test_blind_draws_shown_at_the_end_are_not_told_twice():
    """A card drawn blind is revealed in the log once the game is over: the same event."""
    game = played(3, 0)
    rng = random.Random(3)
    while not game.over:
        before = seen(game, 1)
        game.apply(*random_move(game, rng))
    after = seen(game, 1)
    assert any(isinstance(e, Drew) and e.card is None and e.seat != 1 for e in before.log)
    events, missed = new_events(before, after)
    assert not missed
    assert events[-1].kind == "over"
    assert len(events) < len(after.log)  # only the last move's events, not the whole log again


def test_a_new_game_at_the_table_is_told_from_its_start():
    game = played(5, 30)
    first = seen(game)
    rematch = Game.new(default_deck(), 3, 6, Variants(), 1)
    table = msgspec.structs.replace(vk.table_info(rematch), game=2)
    second = vk.view(rematch, 0, table=table, seats=vk.seats_meta())
    assert second.table.game == 2
    assert new_events(first, second) == (second.log, False)


def test_the_story_is_the_narrators_sentences_with_who_came_and_went():
    def seats(morticia_here: bool) -> tuple[SeatInfo, ...]:
        here = (True, morticia_here, True)
        return tuple(
            SeatInfo(seat, name, bot=seat == 2, connected=here[seat], covered=False, rematch=False)
            for seat, name in enumerate(vk.NAMES)
        )

    game = vk.distribute_game()
    table = vk.table_info(game)
    before = vk.view(game, 0, table=table, seats=seats(True))
    game.apply(0, moves.Distribute(((0, 22), (1, 0), (2, 4))))
    after = vk.view(game, 0, table=table, seats=seats(False))
    lines = [line.text for line in told(before, after, CAT, ASCII)]
    made = after.log[len(before.log) :]  # the placement, and the swoon it causes
    narrator = Narrator.for_view(after, CAT, ASCII, made)
    assert lines == ["Morticia is away.", *(narrator.tell(e).text for e in made)]
    assert lines[1].startswith("You placed Consumption Chic") and len(made) == 4


# -- the numbered options ------------------------------------------------------------------


def accepted(game: Game, seat: int, move: moves.Move) -> bool:
    """The protocol takes the request and the engine takes the move."""
    validate_request(requests.Play(move=move).to_wire())
    copy.deepcopy(game).apply(seat, move)
    return True


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 150), st.sampled_from([3, 4, 5]))
def test_every_option_offered_is_a_move_the_server_takes(seed, moves, players):
    game = played(seed, moves, players)
    if game.over:
        return
    seat = game.to_act()
    assert seat is not None
    view = vk.view(game, seat)
    found = decision(view, ORIGINAL, ASCII)
    assert found is not None and found.options
    assert all(accepted(game, seat, option.move) for option in found.options)
    assert found.footer.startswith("Choose 1")
    if isinstance(view.legal, LegalDistribute):
        moves_offered = [str(o.move) for o in found.options]
        assert len(set(moves_offered)) == len(moves_offered) <= 4  # no option twice


def test_a_fate_discard_lists_every_card_it_may_discard_with_what_it_does():
    game = vk.fate_discard_game()
    found = decision(seen(game), CAT, ASCII)
    assert found is not None
    assert found.heading == "Step 1/4 Fate discard: discard one card of your Fate pile."
    texts = [o.text for o in found.options]
    assert texts[0].startswith("discard Chamomile Tea S-1 (the top card) - you: ")
    assert texts[0].endswith("SWOON")  # the tea held Sickness at 4
    assert [o.move for o in found.options] == [moves.DiscardFate(c) for c in (7, 5, 6)]  # top first


def test_the_top_only_house_rule_offers_the_top_card_alone():
    game = vk.fate_discard_game(Variants(fate_discard="top"))
    found = decision(seen(game), CAT, ASCII)
    assert found is not None and len(found.options) == 1
    assert "(house rule: top only)" in found.heading


def test_a_placement_offers_the_hint_first_then_others():
    game = vk.distribute_game()
    view = seen(game)
    hint = sm.Hint(move=moves.Distribute(((2, 4), (0, 11), (1, 10))), reason="why")
    found = decision(view, CAT, ASCII, hint)
    assert found is not None
    first = found.options[0]
    assert first.text.startswith(
        "Student Loan to you, Khaki Shorts to Morticia, Stomach Bug to Vlad"
    )
    assert "(the hint: why" in first.text
    assert 2 <= len(found.options) <= 4
    assert found.number_of(moves.Distribute(((1, 10), (2, 4), (0, 11)))) == 1
    assert "most Goth for you" in " ".join(o.text for o in found.options)


def test_a_hint_that_fits_no_placement_is_left_out():
    view = seen(vk.distribute_game())
    wrong = sm.Hint(move=moves.Distribute(((0, 3),)))  # not Raven's card
    found = decision(view, CAT, ASCII, wrong)
    assert found is not None and all("the hint" not in o.text for o in found.options)


def test_a_short_hand_is_placed_whole_at_most_one_card_a_player():
    view = seen(vk.short_hand_game())
    legal = view.legal
    assert isinstance(legal, LegalDistribute) and not legal.each_gets_one
    every = placements(legal)
    assert len(every) == 6  # 2 cards to 2 of 3 seats, in order
    assert all(sorted(p.values()) == [11, 22] and len(p) == 2 for p in every)
    found = decision(view, CAT, ASCII)
    assert found is not None and found.heading.endswith(
        "place all 2 cards of your hand, at most one per player."
    )


def test_a_draw_offers_the_draw_pile_once_or_all_and_each_card_of_the_discard_pile():
    found = decision(seen(vk.draw_game()), CAT, ASCII)
    assert found is not None
    texts = [o.text for o in found.options]
    assert texts[0].startswith("draw from the draw pile (")
    assert texts[1] == "draw all 3 from the draw pile" and found.options[1].every
    assert texts[2].startswith("take Sunburn") and texts[2].endswith("from the discard pile")
    assert len(texts) == 5


def test_in_debt_a_draw_offers_the_draw_pile_only():
    found = decision(seen(vk.debt_game()), CAT, ASCII)
    assert found is not None
    assert "You are in debt: from the draw pile only." in found.heading
    assert all(o.move == moves.Draw("deck") for o in found.options)


def test_discarding_down_offers_every_card_of_the_hand():
    found = decision(seen(vk.discard_down_game()), CAT, ASCII)
    assert found is not None
    assert "drop 2 cards" in found.heading
    assert [o.move.kind for o in found.options] == ["discard_hand"] * 5


def test_no_decision_for_a_spectator_or_out_of_turn():
    game = vk.distribute_game()
    assert decision(seen(game, "spectator"), CAT, ASCII) is None
    assert decision(seen(game, 1), CAT, ASCII) is None


# -- command words ---------------------------------------------------------------------------


def test_commands_have_their_aliases_and_help():
    assert parse("h") == Command("hand")
    assert parse("  piles  ") == Command("piles")
    assert parse("'hello there") == Command("say", "hello there")
    assert parse("say  hello   there") == Command("say", "hello there")
    assert parse("3") == Command("option", "3")
    assert parse("x") == Command("discard")
    assert parse("discard fishnet") == Command("discard", "fishnet")
    assert parse("") is None and parse("   ") is None
    assert parse("SCORES") == Command("scores")
    unknown = parse("frob")
    assert isinstance(unknown, Unknown) and "help" in unknown.problem
    near = parse("pil")
    assert isinstance(near, Unknown) and "did you mean piles?" in near.problem
    listed = "\n".join(help_lines())
    for _, specs in SECTIONS:
        for spec in specs:
            assert spec.usage in listed
    assert help_lines("t") == ["hint (or t): the server's suggestion, and why."]
    assert "  piles (or p, fates): every Fate pile, top first, with the scores." in listed
    assert help_lines("nothing")[0].startswith("No command 'nothing'")


def test_cards_are_named_by_number_or_the_start_of_a_name():
    hand = (22, 0, 4, 11, 10)
    assert find_card("2", hand, CAT, hand) == 0
    assert find_card("pet", hand, CAT) == 0
    assert find_card("KHAKI shorts", hand, CAT) == 10
    with pytest.raises(Problem, match="There is no card 6: the numbers go from 1 to 5"):
        find_card("6", hand, CAT, hand)
    with pytest.raises(Problem, match="could be Stomach Bug or Student Loan"):
        find_card("st", hand, CAT)
    with pytest.raises(Problem, match="No card 'tea' can be chosen now"):
        find_card("tea", hand, CAT)


def test_seats_are_named_by_a_name_me_or_a_seat_number():
    view = seen(vk.distribute_game())
    seats = (0, 1, 2)
    assert find_seat("me", view, seats) == 0
    assert find_seat("mort", view, seats) == 1
    assert find_seat("seat 3", view, seats) == 2
    assert find_seat("3", view, seats) == 2
    with pytest.raises(Problem, match="No player 'eve'"):
        find_seat("eve", view, seats)
    with pytest.raises(Problem, match="Seat 5 cannot be given a card"):
        find_seat("5", view, seats)


def test_a_placement_in_words_changes_nothing_when_a_part_is_wrong():
    view = seen(vk.distribute_game())
    plan = plan_for(view)
    assert plan is not None
    half = placing(plan, view, "pet to morticia", CAT)
    assert half.assigned == {0: 1} and plan.assigned == {}
    with pytest.raises(Problem, match="Pet Raven is given twice"):
        placing(half, view, "1 to me, pet to vlad, pet to me", CAT)
    assert half.assigned == {0: 1}
    whole = placing(half, view, "consumption to me and 3 to vlad", CAT)
    assert whole.move() == moves.Distribute(((0, 22), (1, 0), (2, 4)))


# -- lines ---------------------------------------------------------------------------------


def test_lines_out_are_printable_and_ascii_when_asked():
    assert (
        printable("Zo\u00eb \x1b[31mred\x1b[0m\ttab\u200b", ascii_only=False) == "Zoë [31mred[0mtab"
    )
    assert printable("Zoë ☠+3 — Goth 2 → 5", ascii_only=True) == "Zoe ?+3 ? Goth 2 ? 5"
    stream = io.StringIO()
    Output(stream, ascii_only=True).lines(["one\x07", "Vlad\x1b]0;title\x07"])
    assert stream.getvalue() == "one\nVlad]0;title\n"


def test_the_piles_show_a_banked_cure_and_who_is_who():
    game = vk.position(hands=[[0], [3], [14]], fates=[[8], [], []], phase="discard_fate")
    view = vk.table_view(game, 0, away=(2,))
    piles = piles_lines(view, CAT, ASCII)
    assert (
        piles[1]
        == "  1 Raven (you): Goth 0, Sickness 0 (-2 banked), Money 0; 1 card: A Long Nap S-2."
    )
    assert piles[2].startswith("  2 Morticia (a bot): ") and piles[2].endswith("no cards.")
    assert who_lines(view)[1:] == ["  1 Raven (you)", "  2 Morticia (a bot)", "  3 Vlad (a bot)"]
