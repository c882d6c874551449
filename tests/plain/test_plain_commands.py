"""Every bad command gets one line and sends nothing: the plain client in this process on a
real websocket to a real server, every frame it sends recorded.

Host (a protocol client) sits in seat 0 and plays first; the plain client sits in seat 1;
a bot has seat 2. Before its turn, during each of its steps and after, the plain client is
given unknown words, wrong numbers, the wrong step's moves and impossible placements: each
is answered with a line, no `move` leaves the client for them, and the server never has to
refuse anything the client sends. The client tells the whole story (`verbose`): the
expected lines are its headings and sentences.
"""

from __future__ import annotations

import re

from protocol import requests as rq
from server.tables import hint
from tests.kits.netkit import Client
from tests.kits.playkit import drive
from tests.plain.plainkit import InProcess
from tests.tables.test_hints import COLD

NOT_NOW = r"^Not now: you are at step {}"
HAND_CARD = re.compile(r"^  [1-5]: ")


def sickness(listed: str) -> int:
    """A listed card's Sickness ("  2: Anaemia G+1 S+2" -> 2; none shown -> 0)."""
    found = re.search(r" S([+-]\d+)", listed)
    return int(found.group(1)) if found else 0


async def seated_behind_host(url: str) -> tuple[Client, str]:
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=3, bots=1)))["table"]
    assert (await host.ask(rq.Join(table=table)))["t"] == "joined"  # seat 0: deals first
    return host, table


async def answered(plain: InProcess, line: str, pattern: str) -> None:
    """`line` typed: the answer matches `pattern`, and no move was sent for it."""
    moves = len(plain.moves_sent())
    plain.type(line)
    await plain.transcript.until(pattern)
    assert len(plain.moves_sent()) == moves, f"{line!r} sent a move"


async def test_bad_commands_are_answered_with_a_line_and_send_nothing(url, tmp_path):
    host, table = await seated_behind_host(url)
    async with InProcess(url, tmp_path, table=table, verbose=True) as plain:
        await plain.transcript.until(r"^You sit at Crypt \(table \w+\), seat 2 of 3\.$")
        await plain.transcript.until(r"^Round 1: Host's turn\.$")

        # -- before the plain client's turn
        await answered(plain, "frobnicate", r"^Unknown command 'frobnicate': type help")
        await answered(plain, "han", r"^Unknown command 'han': did you mean hand\?")
        await answered(plain, "3 4", r"^3 4: a number alone plays that option\.$")
        for line in ("1", "give 1 to me", "draw deck", "take Sunburn", "drop 1", "confirm"):
            await answered(plain, line, r"^It is not your turn: waiting for Host \(step 2/4")
        await answered(plain, "log many", r"^log N: N is how many lines")
        await answered(plain, "join 1", r"^You are at a table: leave it first\.$")
        await answered(plain, "rematch", r"^rematch asks for another game once")
        await answered(plain, "say", r"^say TEXT: what to say")
        assert plain.moves_sent() == []

        await drive({0: host}, lambda m, _: m["view"]["to_act"] == 1)

        # -- step 1: the Fate discard (Host gave this seat one card)
        await plain.transcript.until(r"^Step 1/4 Fate discard: discard one card")
        await plain.transcript.until(r"^Choose 1 \(or discard NAME\)\.$")
        for line in ("give 1 to me", "draw deck", "take Sunburn", "drop 1", "confirm"):
            await answered(plain, line, NOT_NOW.format(r"1/4 Fate discard"))
        await answered(plain, "7", r"^There is no option 7: choose 1 to 1\.$")
        await answered(plain, "0", r"^There is no option 0: choose 1 to 1\.$")
        await answered(plain, "discard zzz", r"^No card 'zzz' can be chosen now \(the choices: ")
        plain.type("1")
        await plain.transcript.until(r"^You discarded .* from your Fate pile")
        assert [m["kind"] for m in plain.moves_sent()] == ["discard_fate"]

        # -- step 2: the placement
        await plain.transcript.until(r"^Step 2/4 Distribute: give each player one card")
        await plain.transcript.until(r"^Choose 1-\d, or give CARD to NAME")  # several
        for line in ("discard 1", "draw deck all", "take Sunburn", "drop 1"):
            await answered(plain, line, NOT_NOW.format(r"2/4 Distribute"))
        await answered(plain, "give 1 to nobody", r"^No player 'nobody' can be given a card")
        await answered(plain, "give 1 to me, 1 to host", r" is given twice\.$")
        await answered(plain, "give 1 to me, 2 to me", r"^You are given two cards\.$")
        await answered(plain, "give 9 to me", r"^There is no card 9: the numbers go from 1 to 5")
        await answered(plain, "give 1 to seat 7", r"^Seat 7 cannot be given a card\.$")
        await answered(plain, "give banana", r"^'banana': say CARD to NAME")
        await answered(plain, "give zzz to me", r"^No card 'zzz' can be chosen now")
        await answered(plain, "confirm", r"^Nothing to confirm: give places cards")

        # composed in parts: nothing is sent until the placement is whole and confirmed
        await answered(plain, "give 1 to me", r"^Placed so far: .* to you .*\.$")
        await answered(plain, "confirm", r"^2 more cards to place first\.$")
        await answered(plain, "clear", r"^The placement is cleared\.$")
        mark = len(plain.transcript.lines)
        await answered(plain, "give", r"^Which card for Host, seat 1\?$")  # in seat order
        hand = [line for line in plain.transcript.since(mark) if HAND_CARD.match(line)]
        # keep the least sickly card, so that this seat surely draws at step 3
        keep = min(range(5), key=lambda i: sickness(hand[i]))
        others = [i for i in range(5) if i != keep]
        await answered(plain, "zzz", r"^No card 'zzz' can be chosen now")
        await answered(plain, "hand", r"^  5: ")  # a looking command, then the same question
        await plain.transcript.until(r"^Which card for Host, seat 1\?$")
        await answered(plain, str(others[0] + 1), r"^Which card for you, seat 2\?$")
        await answered(plain, str(others[0] + 1), r" already goes to Host\.$")
        await answered(plain, str(keep + 1), r"^Which card for \w+, seat 3\?$")
        await answered(plain, str(others[1] + 1), r"^Your placement: .*\.$")
        plain.type("confirm")
        await plain.transcript.until(r"^You placed .* on your own Fate pile")
        assert [m["kind"] for m in plain.moves_sent()] == ["discard_fate", "distribute"]

        # -- step 3: the draw
        due = await plain.transcript.until(r"^Step 3/4 Draw: draw (\d+) more cards?\.")
        await plain.transcript.until(r"^Choose 1-\d+ \(or draw deck, draw deck all, take NAME\)")
        for line in ("discard 1", "give 1 to me", "drop 1"):
            await answered(plain, line, NOT_NOW.format(r"3/4 Draw"))
        await answered(plain, "take zzz", r"^(No card 'zzz' can be chosen now|You are in debt)")
        await answered(plain, "draw sideways", r"^draw deck draws one card")
        plain.type("draw deck all")
        await plain.transcript.until(r"^Round 1: \w+'s turn\.$")  # the bot's, after ours
        draws = [m for m in plain.moves_sent() if m["kind"] == "draw"]
        assert draws == [{"kind": "draw", "source": "deck"}] * int(due.group(1))

        assert plain.errors() == []  # the server never had to refuse a thing
        plain.type("quit")
    await host.close()


async def test_a_whole_placement_in_one_line_is_played_at_once(url, tmp_path):
    async with InProcess(url, tmp_path, verbose=True) as plain:
        await plain.transcript.until(r"^No tables on this server yet")
        plain.type("create 3")  # this seat deals: its first decision is a placement
        await plain.transcript.until(r"^Choose 1")
        mark = len(plain.transcript.lines)
        plain.type("hand")
        await plain.transcript.until(r"^  5: ")
        hand = [line for line in plain.transcript.since(mark) if HAND_CARD.match(line)]
        name = re.match(r"^  2: (.+?) [GS$][+-]", hand[1])
        assert name is not None
        plain.type(f"give 1 to me, {name.group(1).lower()} to seat 2 and 3 to seat 3")
        await plain.transcript.until(r"^You placed .* on your own Fate pile")
        (move,) = plain.moves_sent()
        assert move["kind"] == "distribute" and [seat for seat, _ in move["give"]] == [0, 1, 2]
        assert plain.client is not None
        given = [plain.client.catalogue.name(card) for _, card in move["give"]]
        assert all(hand[i].startswith(f"  {i + 1}: {given[i]} ") for i in range(3))  # as typed
        assert plain.errors() == []
        plain.type("quit")


async def test_a_hint_still_being_thought_does_not_hold_up_the_options(url, tmp_path, monkeypatch):
    """Issue 30 §1: past its patience (here at once) the server answers `thinking`; the
    placement's options are said at once, without it, and again with the hint first once
    it has come (the client asks again by itself)."""
    monkeypatch.setattr(hint, "PATIENCE", 0.0)
    async with InProcess(url, tmp_path, verbose=True) as plain:
        await plain.transcript.until(r"^No tables on this server yet")
        plain.type("create 4")
        await plain.transcript.until(r"^Step 2/4 Distribute: give each player one card")
        first = await plain.transcript.until(r"^  1: ")
        assert "(hint)" not in first.string and "the hint" not in first.string
        await plain.transcript.until(r"^The hint has come:$", timeout=COLD)
        await plain.transcript.until(r"^Step 2/4 Distribute: give each player one card")
        again = await plain.transcript.until(r"^  1: ")
        assert "the hint" in again.string
        plain.type("1")
        await plain.transcript.until(r"^You placed .* on your own Fate pile")
        sent = [m["t"] for m in plain.sent if m["t"] == "hint"]
        assert len(sent) >= 2  # asked again by itself
        plain.type("quit")
