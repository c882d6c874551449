"""Every move flow at the table, by keyboard: what the preview says before sending, and the
exact `move` that goes to the server."""

from __future__ import annotations

import msgspec

from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.table import TableScreen
from protocol.moves import Move
from protocol.view import View
from server.game import Game, Variants, parse_deck
from tests.tables.test_hints import COLD
from tests.tui.clientkit import (
    at_table,
    notices,
    reply,
    screen_text,
    sent_moves,
    shown,
    until,
    widget_text,
)
from tests.tui.viewkit import (
    CARDS,
    ID,
    debt_game,
    discard_down_game,
    distribute_game,
    draw_game,
    fate_discard_game,
    join_with,
    position,
    short_hand_game,
    state,
    wire_view,
)


def table(pilot) -> TableScreen:
    screen = pilot.app.get_screen_stack("table")[0]
    assert isinstance(screen, TableScreen)
    return screen


async def test_distribute_previews_every_player_and_sends_the_assignment(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        # The hand is listed in order: Consumption Chic, Pet Raven, Stomach Bug, ...
        await pilot.press("1")  # Consumption Chic to seat 1 (Raven herself)
        text = screen_text(pilot)
        assert "Raven: Goth 14 → 17, Sickness 4 → 5: SWOON" in text
        assert "2 Morticia: no card yet" in text
        await pilot.press("2", "3")  # Pet Raven to Morticia, Stomach Bug to Vlad
        text = screen_text(pilot)
        assert "Morticia: Goth 0 → 4, Money 0 → -3: DEBT" in text
        assert "Vlad: Sickness 0 → 3: 2 from swoon" in text
        assert "3 of 3 given" in widget_text(pilot, "#prompt")
        await pilot.press("enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [
            {"kind": "distribute", "give": [[0, ID["Consumption Chic"]], [1, 0], [2, 4]]}
        ]


async def test_distribute_lets_the_player_change_their_mind(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("2")  # Consumption Chic to Morticia; the cursor moves on
        await pilot.press("2")  # Pet Raven to Morticia instead: Chic comes back
        plan = table(pilot).plan
        assert plan is not None and plan.assigned == {ID["Pet Raven"]: 1}
        # The cursor moved on to Stomach Bug; back up to Chic, which no one holds now.
        await pilot.press("up", "up", "0")
        assert plan.assigned == {ID["Pet Raven"]: 1}
        await pilot.press("down", "0")  # Pet Raven taken back
        assert plan.assigned == {}
        await pilot.press("enter")  # incomplete: nothing is sent, the reason is shown
        await until(
            pilot,
            lambda: any("Give 3 more cards first: 1-3 gives" in n for n in notices(pilot)),
            "why",
        )
        assert sent_moves(fake) == []


async def test_short_hand_places_every_card_on_different_players(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(short_hand_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert "Place your whole hand" in widget_text(pilot, "#prompt")
        await pilot.press("3", "2", "enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "distribute", "give": [[1, 11], [2, 22]]}]


async def test_fate_discard_previews_a_swoon_and_sends_the_card(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(fate_discard_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        text = screen_text(pilot)
        assert "Your Fate pile, top first" in text
        assert "Discard Chamomile Tea (☠-1)" in text
        assert "Raven: Sickness 4 → 5: SWOON" in text
        await pilot.press("down")  # Fishnet Pneumonia: Sickness 4 -> 1
        assert "Raven: Goth 2 → 1, Sickness 4 → 1" in screen_text(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "discard_fate", "card": ID["Fishnet Pneumonia"]}]


async def test_d_draws_one_card_from_the_draw_pile_at_once(make_app, fake):
    """One key, one card: a plain d sends the draw, with no preview to confirm."""
    fake.handlers["join"] = join_with(wire_view(draw_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert "Draw 3 more cards: d from the draw pile, D all" in widget_text(pilot, "#prompt")
        await pilot.press("d")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "draw", "source": "deck"}]


async def test_shift_d_fills_the_hand_from_the_draw_pile(make_app, fake):
    """D draws, and draws again after each state that still asks this player to draw."""
    game = draw_game()
    seq = iter(range(2, 100))

    def move(m):
        game.apply(0, msgspec.convert(m["move"], Move))
        return [state(next(seq), wire_view(game), rid=m["rid"])]

    fake.handlers["join"] = join_with(wire_view(game))
    fake.handlers["move"] = move
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("D")
        await until(pilot, lambda: app.view.phase != "draw", "the hand filled")
        assert sent_moves(fake) == [{"kind": "draw", "source": "deck"}] * 3
        assert len(app.view.hand) == 5
        assert not table(pilot).drawing_all


async def test_draw_a_chosen_card_from_the_discard_pile(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(draw_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("p")
        text = screen_text(pilot)
        assert "Discard pile (Esc: back)" in text
        assert "Take Sunburn (☥-2 ☠+1) into your hand." in text
        await pilot.press("down", "down")  # Sunburn, Club Night, Consumption Chic
        assert "Take Consumption Chic" in screen_text(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "draw", "source": "discard", "card": 22}]


async def test_in_debt_the_discard_pile_is_greyed_out_and_the_prompt_says_why(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(debt_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        prompt = widget_text(pilot, "#prompt")
        assert "you are in debt, so not the discard pile" in prompt
        pick = next(b for b in app.screen.active_bindings.values() if b.binding.key == "p")
        assert not pick.enabled  # the footer greys it out instead of offering it
        await pilot.press("p")
        await pilot.pause()
        assert "Discard pile (Esc: back)" not in screen_text(pilot)
        await pilot.press("d")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "draw", "source": "deck"}]


HELD = {0, 4, 3, 7, 8, 10, 12, 14, 15, 16, 17, 18, 11, 2}  # every other card is discarded


async def test_an_empty_draw_pile_says_the_discard_pile_is_shuffled_in_first(make_app, fake):
    """R14: drawing from an empty draw pile shuffles the discard pile into a new one."""
    game = position(
        hands=[[0, 4], [3, 7, 8, 10, 12], [14, 15, 16, 17, 18]],
        fates=[[11, 2], [], []],
        discard=[c for c in range(len(CARDS)) if c not in HELD],
        phase="draw",
    )
    assert not game.draw_pile
    fake.handlers["join"] = join_with(wire_view(game))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        prompt = widget_text(pilot, "#prompt")
        assert "(it is empty: the discard pile is shuffled into a new one first)" in prompt
        assert "(0 left)" not in screen_text(pilot)


async def test_discard_down_previews_the_hand_size(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(discard_down_game()))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        text = screen_text(pilot)
        assert "Discard down: 2 more cards to discard." in text
        assert "Hand 5 → 4 (limit 3)." in text
        await pilot.press("down", "enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [{"kind": "discard_hand", "card": ID["Stomach Bug"]}]


async def test_hint_prefills_the_move_and_enter_sends_it(make_app, fake):
    hinted = {"kind": "distribute", "give": [[0, 11], [1, 10], [2, 0]]}
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    fake.handlers["hint"] = lambda m: [reply(m, "hint", move=hinted)]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("h")
        await until(
            pilot, lambda: table(pilot).plan and table(pilot).plan.assigned, "the hint", COLD
        )
        cards = widget_text(pilot, "#cards")
        assert "Student Loan +0 +0 +3 → 1 Raven" in cards
        assert "Pet Raven +4 +0 -3 → 3 Vlad" in cards
        assert "3 Vlad: Goth -1 → 3, Money 0 → -3: DEBT" in widget_text(pilot, "#preview")
        assert "The hint; Enter plays it:" in widget_text(pilot, "#preview-title")
        assert sent_moves(fake) == []  # the player still confirms
        await pilot.press("enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [hinted]


async def test_a_hint_gives_its_reason_and_asks_before_replacing_your_choices(make_app, fake):
    hinted = {"kind": "distribute", "give": [[0, 11], [1, 10], [2, 0]]}
    why = "keeps you out of debt; gives the leader Khaki Shorts"
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    fake.handlers["hint"] = lambda m: [reply(m, "hint", move=hinted, reason=why)]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("2")  # a choice of the player's own: Consumption Chic to Morticia
        plan = table(pilot).plan
        assert plan.assigned == {ID["Consumption Chic"]: 1}
        await pilot.press("h")
        await shown(pilot, ConfirmScreen, "Replace your choices with the hint?", "keeps you out")
        await pilot.press("n")  # kept
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "no")
        assert plan.assigned == {ID["Consumption Chic"]: 1}
        await pilot.press("h")
        await shown(pilot, ConfirmScreen, "Replace your choices")
        await pilot.press("y")
        await until(pilot, lambda: len(plan.assigned) == 3, "the hint filled in")
        assert f"Why: {why}" in widget_text(pilot, "#preview")
        await pilot.press("enter")
        await until(pilot, lambda: sent_moves(fake), "a move")
        assert sent_moves(fake) == [hinted]


async def test_an_illegal_move_error_is_shown_and_the_state_stays(make_app, fake):
    wire = wire_view(fate_discard_game())
    fake.handlers["join"] = join_with(wire)
    fake.handlers["move"] = lambda m: [
        reply(m, "error", code="illegal_move", message="You may only discard the top card.")
    ]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("down", "enter")
        await until(pilot, lambda: any("top card" in n for n in notices(pilot)), "the error")
        assert app.view == View.from_wire(wire)
        screen = table(pilot)
        assert screen.awaiting is None and screen.plan is not None
        assert screen.plan.current == ID["Fishnet Pneumonia"]  # the choice is kept
        await pilot.press("up", "enter")  # and the player can try again
        await until(pilot, lambda: len(sent_moves(fake)) == 2, "a second move")


async def test_a_new_state_for_the_same_decision_keeps_the_choices(make_app, fake):
    game = distribute_game()
    fake.handlers["join"] = join_with(wire_view(game))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("2")
        fake.conn.feed(state(2, wire_view(game, away=[2])))  # Vlad's connection went
        await until(pilot, lambda: not app.view.players[2].connected, "the new state")
        assert table(pilot).plan.assigned == {ID["Consumption Chic"]: 1}
        assert "Vlad ⚙" in screen_text(pilot)


async def test_stale_states_are_ignored(make_app, fake):
    first, older = wire_view(distribute_game()), wire_view(draw_game())
    fake.handlers["join"] = join_with(first, seq=5)
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.conn.feed(state(4, older), state(5, older), {"t": "chat", "from": "V", "text": "x"})
        await until(pilot, lambda: app.chat, "the chat line after the stale states")
        assert app.view == View.from_wire(first)


async def test_the_sixth_seat_of_a_house_rule_table_has_its_key(make_app, fake):
    """R2's 6-seat house rule: key 6 gives the highlighted card to the sixth seat."""
    names = ("Raven", "Morticia", "Vlad", "Lenore", "Edgar", "Lilith")
    cards = "".join(  # the test deck twice, enough to deal six (the catalogue is the first)
        f'[[card]]\nid = {i}\nname = "{name} {i}"\nflavour = ""\n'
        f"goth = {goth}\nsickness = {sickness}\nmoney = {money}\n"
        for i, (name, goth, sickness, money) in enumerate(CARDS * 2)
    )
    deck = parse_deck(cards, "six.toml")
    game = Game.from_position(
        deck,
        hands=[[0, 1, 2, 3, 4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15]],
        fates=[[]] * 6,
        draw_pile=list(range(16, len(deck))),
        phase="distribute",
        variants=Variants(two_or_six=True),
    )
    fake.handlers["join"] = join_with(wire_view(game, names=names))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("6")
        assert table(pilot).plan.assigned == {0: 5}
        assert "Pet Raven +4 +0 -3 → 6 Lilith" in widget_text(pilot, "#cards")
