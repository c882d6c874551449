"""Hints: the judge's move with a reason in the judge's own numbers, which says nothing the
numbers or the table do not support (issue 30 §2)."""

from __future__ import annotations

import copy
import random
import re

from protocol import decode, encode, moves, server_messages
from protocol.constants import NEAR_SWOON, SWOON_AT
from protocol.view import LegalDiscardFate
from server.bots.advise import CLAIM, LIKELY, Words, advice_of, advise, alternative, percent
from server.bots.heuristic import HeuristicBot
from server.bots.ismcts import IsmctsBot, only_move
from server.bots.verdict import Verdict, gap
from server.game import DiscardFate, Distribute, Game, View, default_deck, view
from tests.bots.botkit import (
    ANKH,
    BOOTS,
    CHILL,
    DYE,
    FANGS,
    GLOVES,
    LIPSTICK,
    MIXTAPE,
    NAP,
    NOVEL,
    PASTEL,
    PICNIC,
    POETRY,
    RAVEN,
    SCENARIO_DECK,
    SMILING,
    SOUP,
    STOMACH_BUG,
    STUDENT_LOAN,
    placements,
    position,
    stomach_bug_in_plain_sight,
)

DECK = default_deck()
SMALL = IsmctsBot(DECK, iterations=40, worlds=12)  # the real search, a smaller budget


def test_the_hint_for_the_visible_stomach_bug_is_the_cure_and_says_why():
    advice = advise(view(stomach_bug_in_plain_sight(), 0), SCENARIO_DECK)
    assert placements(advice.move)[0] == NAP
    nap = SCENARIO_DECK.card_name(NAP)
    assert advice.reason.startswith(f"{nap} raises your hand limit to 5;")  # Sickness 2 to 0
    assert "win chance" in advice.reason
    assert advice.win is not None and advice.versus_win is not None
    assert advice.versus is not None and advice.versus != advice.move


def test_every_decision_of_a_game_gets_a_legal_hint_and_a_one_line_reason():
    game = Game.new(DECK, 4, 2)
    bots = [HeuristicBot(DECK, random.Random(s)) for s in range(4)]
    kinds = set()
    step = 0
    while not game.over and game.round <= 5:
        seat = game.to_act()
        assert seat is not None
        seen = view(game, seat)
        if step % 3 == 0 or seen.legal.kind not in kinds:  # type: ignore[union-attr]
            advice = advise(seen, DECK, SMALL)
            assert game.can(seat, advice.move)
            assert advice.reason and "\n" not in advice.reason and len(advice.reason) <= 260
            if advice.win is not None:
                assert 0 <= advice.win <= 1 and advice.versus_win is not None
            kinds.add(advice.move.kind)
        game.apply(seat, bots[seat].choose(seen))
        step += 1
    assert kinds == {"discard_fate", "distribute", "draw"}


def test_the_same_position_gets_the_same_hint_however_the_hidden_cards_lie():
    from server.game import Variants
    from tests.bots.test_ismcts import positions, redealt

    game, seat = next(p for i, p in enumerate(positions(4, Variants(round_cap=2), 6, 1)) if i == 9)
    first = view(redealt(game, seat, random.Random(1)), seat)
    second = view(redealt(game, seat, random.Random(2)), seat)
    assert first == second
    assert advise(first, DECK, SMALL) == advise(second, DECK, SMALL) == advise(first, DECK, SMALL)


def test_the_hint_message_carries_its_numbers_and_an_older_one_parses_without():
    hint = server_messages.Hint(
        move=moves.Draw("deck"),
        reason="you stay out of debt",
        win=0.31,
        goth=7.5,
        versus=moves.Draw("discard", 3),
        versus_win=0.27,
        versus_goth=7.0,
    )
    assert server_messages.parse(decode(encode(hint))) == hint
    older = server_messages.parse({"t": "hint", "move": {"kind": "draw", "source": "deck"}})
    assert isinstance(older, server_messages.Hint) and older.reason is None
    assert older.move == moves.Draw("deck") and older.win is None and older.versus is None


# -- every claim of a reason checked against the numbers and the table ---------------------

NAME = r"(?:you|seat \d)(?:, the leader,?)?"


def real_decisions(seeds: range, rounds: int):
    """Every decision of seeded 4-seat games of heuristic bots, up to `rounds` rounds: the
    game, the seat to act and the move its bot makes."""
    for seed in seeds:
        game = Game.new(DECK, 4, seed)
        bots = [HeuristicBot(DECK, random.Random(seed * 10 + s)) for s in range(4)]
        while not game.over and game.round <= rounds:
            seat = game.to_act()
            assert seat is not None
            move = bots[seat].choose(view(game, seat))
            yield game, seat, move
            game.apply(seat, move)


def seat_of(name: str, seen: View) -> int:
    """The seat a reason's name stands for: "you", or "seat 3" (counted from 1)."""
    if name.startswith("you"):
        assert seen.seat is not None
        return seen.seat
    found = re.match(r"seat (\d)", name)
    assert found is not None, name
    return int(found[1]) - 1


def checked(game: Game, seat: int, seen: View, verdict: Verdict, reason: str) -> int:
    """Check every clause of `reason` against the verdict's numbers and against the game
    once the advice is made; the number of clauses checked (an unknown clause fails)."""
    best = verdict.weighed[0]
    other = alternative(verdict)
    words = Words(seen, DECK)
    after = copy.deepcopy(game)
    after.apply(seat, verdict.move)
    clauses = reason.split("; ")
    for clause in clauses:
        if found := re.fullmatch(rf"(.+) swoons ({NAME})", clause):
            swooned = seat_of(found[2], seen)
            assert not after.fates[swooned] and game.fates[swooned], clause
        elif found := re.fullmatch(rf"(.+) puts ({NAME}) into debt", clause):
            who = seat_of(found[2], seen)
            assert game.money[who] >= 0 > after.money[who], clause
        elif found := re.fullmatch(rf"(.+) takes ({NAME}) out of debt", clause):
            who = seat_of(found[2], seen)
            assert game.money[who] < 0 <= after.money[who], clause
        elif found := re.fullmatch(rf"(.+) puts ({NAME}) in swoon reach \(Sickness (\d)\)", clause):
            who = seat_of(found[2], seen)
            assert game.sickness(who) < NEAR_SWOON <= after.sickness(who) == int(found[3])
        elif found := re.fullmatch(rf"(.+) takes ({NAME}) out of swoon reach", clause):
            who = seat_of(found[2], seen)
            assert after.sickness(who) < NEAR_SWOON <= game.sickness(who), clause
        elif found := re.fullmatch(r"(.+) (lowers|raises) your hand limit to (\d)", clause):
            assert after.hand_limit(seat) == int(found[3]) != game.hand_limit(seat), clause
            assert (found[2] == "lowers") == (after.hand_limit(seat) < game.hand_limit(seat))
        elif found := re.fullmatch(rf"({NAME}) likely swoons before your turn \((\d+)%\)", clause):
            leader = seat_of(found[1], seen)
            share = best.share(lambda o, s=leader: s in o.swooned)
            assert share >= LIKELY and percent(share) == f"{found[2]}%", clause
        elif found := re.fullmatch(
            r"your (swoon chance|chance of debt) before your turn (\d+)%, against (\d+)%", clause
        ):
            if found[1] == "swoon chance":
                happens = lambda o: float(seat in o.swooned)  # noqa: E731
            else:
                happens = lambda o: float(o.money[seat] < 0)  # noqa: E731
            assert percent(best.mean(happens)) == f"{found[2]}%", clause
            assert percent(other.mean(happens)) == f"{found[3]}%", clause
            assert gap(other, best, happens).clear(CLAIM), clause
        elif found := re.fullmatch(
            r"you stay (in|out of) debt and (in|out of) swoon reach", clause
        ):
            for then in (game, after):  # before the move and after it
                assert (found[1] == "in") == (then.money[seat] < 0), clause
                assert (found[2] == "in") == (then.sickness(seat) >= NEAR_SWOON), clause
        elif found := re.fullmatch(r"(keeps|puts) you (\d+) Goth clear of the pack", clause):
            lead = best.mean(
                lambda o: o.goth[seat] - max(g for s, g in enumerate(o.goth) if s != seat)
            )
            assert round(lead) == int(found[2]) >= 1, clause
        elif found := re.fullmatch(r"leaves you (\d+) Goth behind the leader", clause):
            lead = best.mean(
                lambda o: o.goth[seat] - max(g for s, g in enumerate(o.goth) if s != seat)
            )
            assert -round(lead) == int(found[1]) >= 1, clause
        elif clause == "keeps you level with the leader":
            lead = best.mean(
                lambda o: o.goth[seat] - max(g for s, g in enumerate(o.goth) if s != seat)
            )
            assert round(lead) == 0, clause
        elif found := re.fullmatch(r"win chance (\d+)% against (\d+)% for (.+)", clause):
            assert gap(best, other).clear(CLAIM), clause  # a claim the numbers support
            assert (percent(best.mean()), percent(other.mean())) == (f"{found[1]}%", f"{found[2]}%")
            assert found[3] == words.move_words(other.move, best.move), clause
        elif found := re.fullmatch(
            r"(.+) does about as well \(win chance (\d+)% against (\d+)%\)", clause
        ):
            assert not gap(best, other).clear(CLAIM), clause
            assert (percent(best.mean()), percent(other.mean())) == (f"{found[2]}%", f"{found[3]}%")
            assert found[1] == words.move_words(other.move, best.move), clause
        else:
            raise AssertionError(f"a clause no check knows: {clause!r} in {reason!r}")
    return len(clauses)


def test_every_claim_of_a_reason_is_what_the_numbers_and_the_table_say():
    """Issue 30 §2, on positions of real games: each clause is checked against the search's
    numbers (percentages, Goth, which move is compared, whether a gap clears its noise) or
    against the game once the advice is made (a swoon, debt, swoon reach, the hand limit);
    every reason names a standing and compares the advice with another move."""
    searched = 0
    step = 0
    for game, seat, _ in real_decisions(range(3), rounds=8):
        step += 1
        seen = view(game, seat)
        if step % 4 or only_move(seen) is not None:
            continue
        verdict = SMALL.judge(seen)
        if verdict.advice is None:
            continue
        advice = advice_of(seen, DECK, verdict)
        clauses = checked(game, seat, seen, verdict, advice.reason)
        assert clauses >= 3  # a standing, the Goth, the comparison
        assert re.search(r"win chance \d+%", advice.reason)
        searched += 1
    assert searched >= 20


def test_r6_a_banked_cure_keeps_a_pile_out_of_swoon_reach_in_the_words():
    """Vlad (seat 1), the leader, has banked a cure of 4 (Nap, Soup): a Stomach Bug (+3)
    leaves his Sickness at 0, so no reason says it puts him in swoon reach; on seat 2,
    healthy and unbanked, it does (R6: the floor counts for every effect)."""
    game = position(
        hands=[[STOMACH_BUG, MIXTAPE, PASTEL, GLOVES], [ANKH], [CHILL], [FANGS]],
        fates=[[LIPSTICK], [NAP, SOUP, NOVEL, POETRY, PICNIC], [BOOTS], [DYE]],
    )
    words = Words(view(game, 0), SCENARIO_DECK)
    assert words.leader == 1
    on_vlad = Distribute(((0, MIXTAPE), (1, STOMACH_BUG), (2, PASTEL), (3, GLOVES)))
    assert not any("reach" in said for said in words.at_once(on_vlad))
    game.apply(0, on_vlad)
    assert view(game, 1).players[1].scores.sickness == 0  # the table agrees


def test_r9_a_reason_says_when_a_move_takes_the_leader_out_of_debt():
    """Issue 30: a gift that takes the leader out of debt was left unsaid."""
    game = position(
        hands=[[STUDENT_LOAN, MIXTAPE, PASTEL, GLOVES], [ANKH], [CHILL], [FANGS]],
        fates=[[LIPSTICK], [RAVEN, NOVEL, POETRY], [BOOTS], [DYE]],
    )
    words = Words(view(game, 0), SCENARIO_DECK)
    assert words.leader == 1 and game.money[1] < 0  # Leather Trenchcoat's -3
    gift = Distribute(((0, MIXTAPE), (1, STUDENT_LOAN), (2, PASTEL), (3, GLOVES)))
    said = words.at_once(gift)
    assert f"{SCENARIO_DECK.card_name(STUDENT_LOAN)} takes seat 2, the leader, out of debt" in said
    game.apply(0, gift)
    assert game.money[1] >= 0  # the table agrees


def worse_in_every_score(card: int, other: int) -> bool:
    """`other` has no more Goth, no less Sickness, no more Money than `card`, and differs."""
    mine = (DECK.goth[card], -DECK.sickness[card], DECK.money[card])
    theirs = (DECK.goth[other], -DECK.sickness[other], DECK.money[other])
    return mine != theirs and all(t <= m for t, m in zip(theirs, mine, strict=True))


def test_r10_a_fate_discard_hint_never_drops_a_card_while_a_worse_one_sits_in_the_pile():
    asked = 0
    for game, seat, _ in real_decisions(range(5), rounds=8):
        seen = view(game, seat)
        if not isinstance(seen.legal, LegalDiscardFate) or len(set(seen.legal.cards)) < 2:
            continue
        asked += 1
        card = advise(seen, DECK, IsmctsBot(DECK, iterations=8, worlds=4)).move
        assert isinstance(card, DiscardFate)
        if game.sickness_sum[seat] - DECK.sickness[card.card] >= SWOON_AT:
            continue  # R7: a drop that swoons us is a choice of its own
        worse = [DECK.card_name(c) for c in seen.legal.cards if worse_in_every_score(card.card, c)]
        assert not worse, f"drops {DECK.card_name(card.card)} while {worse} sit in the pile"
    assert asked >= 40


def test_r10_the_hint_keeps_a_darkwave_mixtape_over_caught_smiling():
    # Seat 0's pile: Mixtape (+3 Goth) and Caught Smiling (-1 Goth); nothing else differs.
    game = position(
        hands=[[GLOVES, PASTEL, CHILL, LIPSTICK], [ANKH], [POETRY], [FANGS]],
        fates=[[MIXTAPE, SMILING, NOVEL], [BOOTS], [DYE], [PICNIC]],
        phase="discard_fate",
    )
    advice = advise(view(game, 0), SCENARIO_DECK)
    assert advice.move == DiscardFate(SMILING)
    assert advice.reason
