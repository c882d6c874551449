"""Reviews through a real server (`review`): a finished game's decisions of one seat, judged
in the worker processes, kept once thought, and refused clearly when there is nothing to
review or no room to think it."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import requests as rq
from protocol import server_messages
from protocol.view import Variants
from tests.bots.test_searches import frozen, running, the_worker
from tests.kits.netkit import Client, close_all, first_legal_move, play_to_end
from tests.kits.poll import until
from tests.tables.test_hints import hinted, seated_at_bots
from tests.tables.test_stored_tables import serving

SHORT = Variants(round_cap=1)  # a round: a review of it is some seconds of search
THOUGHT = 300.0  # seconds a review may take on a slow, loaded machine


async def finished_table(url: str) -> tuple[str, Client]:
    """A game of one network player (seat 0, its first legal moves) and two bots, over."""
    host = await Client.connect(url, "Host")
    created = await host.ask(rq.Create(name="Done", seats=3, bots=2, variants=SHORT))
    table = created["table"]
    await host.close()
    player = await Client.connect(url, "Player")
    assert (await player.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
    await play_to_end(player)
    return table, player


async def reviewed(client: Client, **fields: Any) -> dict:
    """The reply to a `review`, waited for as long as a slow machine may think it."""
    rid = await client.tell(rq.Review(**fields))
    return await client.next(lambda m: m.get("rid") == rid, wait=THOUGHT)


async def test_a_review_judges_every_decision_of_the_seat_and_tells_the_dearest(server, url):
    table, player = await finished_table(url)
    review = await reviewed(player, table=table, seat=0)
    assert review["t"] == "review", review
    parsed = server_messages.parse(review)
    assert isinstance(parsed, server_messages.Review)
    _, moves = server.store.tables.game(table, 1)
    ours = [step for step, (seat, _) in enumerate(moves) if seat == 0]
    assert [m["step"] for m in review["moments"]] == ours  # every decision, in order
    for moment in review["moments"]:
        assert moment["played"] == moves[moment["step"]].move.to_wire()
        assert moment["why"] and "\n" not in moment["why"]
        if moment["advised"] == moment["played"]:
            assert moment["cost"] == moment["given_up"] == 0
        assert not moment.get("followed_hint") and "hint" not in moment  # no hint asked
    measured = {
        m["step"]: m["given_up"] for m in review["moments"] if m["given_up"] > 2 * m["noise"]
    }
    told = review["costliest"]
    assert len(told) <= 3
    for said in told:  # measured by the search, confirmed by the longer look
        assert measured[said["step"]] > 0 and said["given_up"] > 2 * said["noise"]
        assert said["play_outs"] >= 100 and said["sentence"].startswith("Round 1: you ")
    assert [c["given_up"] for c in told] == sorted((c["given_up"] for c in told), reverse=True)
    assert review["summary"].startswith("You gave up ")
    await player.close()


async def test_the_hints_a_seat_was_given_survive_a_restart_and_the_review_tells_none(tmp_path):
    """Issue 29 §3: every hint given is kept with its game; after a restart the review
    still says which moves were the hint's own advice, never tells one as a mistake, and
    knows the hint the player did not follow."""
    db = tmp_path / "games.db"
    server = await serving(db)
    url = f"ws://127.0.0.1:{server.port}"
    host = await Client.connect(url, "Host")
    created = await host.ask(rq.Create(name="Hinted", seats=3, bots=2, variants=SHORT))
    table = created["table"]
    await host.close()
    player = await Client.connect(url, "Player")
    assert (await player.request("join", table=table, seat=0))["t"] == "joined"
    view = await player.state(lambda v: v["legal"] is not None)
    given: dict[int, dict] = {}  # step: the hint
    followed = []
    while view["phase"] != "over":
        step = len(server.lobby.tables[table].game.moves)
        hint = await hinted(player)
        assert hint["t"] == "hint", hint
        given[step] = hint["move"]
        # every decision as the hint says, but the second: the first legal move there
        move = hint["move"] if len(given) != 2 else first_legal_move(view["legal"]).to_wire()
        if move == hint["move"]:
            followed.append(step)
        reply = await player.request("move", move=move)
        assert reply["t"] == "state", reply
        view = reply["view"]
        if view["legal"] is None and view["phase"] != "over":
            view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
    await player.close()
    await server.close()
    server = await serving(db)  # a restart: the hints are read back from the database
    try:
        watcher = await Client.connect(f"ws://127.0.0.1:{server.port}", "Watcher")
        review = await reviewed(watcher, table=table, seat=0)
        assert review["t"] == "review", review
        moments = {m["step"]: m for m in review["moments"]}
        assert set(moments) == set(given)
        for step, hint in given.items():
            assert moments[step]["hint"] == hint
            assert moments[step].get("followed_hint", False) == (step in followed)
            assert moments[step]["advised"] == hint  # one judge: the review's advice is the hint
        told = {c["step"] for c in review["costliest"]}
        assert not told & set(followed)  # a hint followed is never a mistake
        assert f"{len(followed)} of your moves" in review["summary"]
        await watcher.close()
    finally:
        await server.close()


async def test_a_review_once_thought_is_kept_and_answered_to_anyone_at_once(server, url):
    table, player = await finished_table(url)
    first = await reviewed(player, table=table, seat=1)  # a bot's seat may be reviewed too
    assert first["t"] == "review", first
    watcher = await Client.connect(url, "Watcher")
    searched = server.searches.submit

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("a kept review was thought again")

    server.searches.submit = no_search  # type: ignore[assignment]
    try:
        again = await watcher.ask(rq.Review(table=table, game=1, seat=1))
    finally:
        server.searches.submit = searched  # type: ignore[method-assign]
    assert again["t"] == "review"
    assert {k: v for k, v in again.items() if k != "rid"} == {
        k: v for k, v in first.items() if k != "rid"
    }
    await close_all(player, watcher)


async def test_no_review_of_a_game_in_progress_nor_of_a_seat_the_table_lacks(server, url):
    host = await Client.connect(url, "Host")
    running = (await host.ask(rq.Create(name="Live", seats=3, bots=3)))["table"]
    await host.ask(rq.Watch(table=running))
    await host.state(lambda v: v["phase"] != "lobby")
    refused = await host.ask(rq.Review(table=running, seat=0))
    assert refused["t"] == "error" and refused["code"] == "no_record", refused
    assert "not over" in refused["message"]
    no_seat = await host.ask(rq.Review(table=running, seat=4))
    assert no_seat["t"] == "error" and no_seat["code"] == "no_such_seat", no_seat
    nowhere = await host.ask(rq.Review(table="nosuch", seat=0))
    assert nowhere["t"] == "error" and nowhere["code"] == "no_such_table", nowhere
    shapeless = await host.request("review", table=running, seat="first")
    assert shapeless["t"] == "error" and shapeless["code"] == "bad_message", shapeless
    assert "seat" in shapeless["message"]
    await host.close()


@pytest.mark.parametrize("config", [{"search_workers": 1, "search_queue": 0}], indirect=True)
async def test_a_review_the_searches_have_no_room_for_is_busy_at_once(server, url):
    """One worker, frozen while it holds the first review's part, and no room to wait:
    the next review is refused at once; the first is answered once the worker goes on."""
    table, player = await finished_table(url)
    server.searches.spawn_all()
    other = await Client.connect(url, "Other")
    with frozen(the_worker(server.searches)):
        first = await player.tell(rq.Review(table=table, seat=0))
        await until("one search running", lambda: running(server.searches) == 1)
        busy = await other.ask(rq.Review(table=table, seat=1))
        assert busy["t"] == "error" and busy["code"] == "busy", busy
        assert "ask again" in busy["message"]
        again = await player.ask(rq.Review(table=table, seat=2))
        assert again["t"] == "error" and again["code"] == "rate_limited", again  # one at a time
    answer = await player.next(lambda m: m.get("rid") == first, wait=THOUGHT)
    assert answer["t"] == "review" and answer["seat"] == 0, answer
    await close_all(player, other)


@pytest.mark.parametrize("config", [{"search_workers": 1}], indirect=True)
async def test_past_two_reviews_thought_at_once_the_next_is_busy(server, url):
    """Room in the queue, but two reviews already thought: a third would crowd out the
    hints of the tables being played, so it is refused at once."""
    table, player = await finished_table(url)
    server.searches.spawn_all()
    askers = [player] + [await Client.connect(url, f"Asker {n}") for n in (1, 2)]
    with frozen(the_worker(server.searches)):
        rids = [await askers[seat].tell(rq.Review(table=table, seat=seat)) for seat in (0, 1)]
        await until("two reviews thought", lambda: len(server.reviews.thinking) == 2)
        busy = await askers[2].ask(rq.Review(table=table, seat=2))
        assert busy["t"] == "error" and busy["code"] == "busy", busy
        assert "other reviews" in busy["message"]
    for asker, rid in zip(askers, rids, strict=False):
        answer = await asker.next(lambda m, rid=rid: m.get("rid") == rid, wait=THOUGHT)
        assert answer["t"] == "review", answer
    await close_all(*askers)


async def test_a_review_too_long_for_a_frame_is_refused_in_words(server, url, monkeypatch):
    """Frames are at most 64 KiB; a game some 300 decisions long per seat would pass it. The
    limit is lowered here so that a short game's review stands for that rare one."""
    table, player = await finished_table(url)
    monkeypatch.setattr("server.tables.review.MAX_FRAME", 200)
    refused = await reviewed(player, table=table, seat=0)
    assert refused["t"] == "error" and refused["code"] == "no_record", refused
    assert "too long" in refused["message"]
    assert (table, 1, 0) not in server.reviews.kept
    await player.close()


@pytest.mark.parametrize("config", [{"grace": 0.05}], indirect=True)
async def test_a_review_leaves_out_the_moves_a_bot_made_in_the_players_place(server, url):
    """The player makes one decision and goes; a bot covers the rest of the game. Two
    rounds: in one, a deal may leave the seat no decision but its first."""
    host = await Client.connect(url, "Host")
    created = await host.ask(
        rq.Create(name="Left", seats=3, bots=2, variants=Variants(round_cap=2))
    )
    await host.close()
    player = await Client.connect(url, "Player")
    table = created["table"]
    assert (await player.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
    view = await player.state(lambda v: v["legal"] is not None)
    assert (await player.ask(rq.Play(move=first_legal_move(view["legal"]))))["t"] == "state"
    await player.close()  # away: past the grace, a bot plays the seat to the end
    friend = await Client.connect(url, "Friend")
    await friend.ask(rq.Watch(table=table))
    await friend.state(lambda v: v["phase"] == "over")
    movers = server.store.tables.movers(table, 1)
    mine = [step for step, (seat, cover) in enumerate(movers) if seat == 0 and not cover]
    assert mine and any(seat == 0 and cover for seat, cover in movers)  # both kinds made
    review = await reviewed(friend, table=table, seat=0)
    assert [m["step"] for m in review["moments"]] == mine, review
    await friend.close()


@pytest.mark.parametrize("config", [{"search_workers": 1}], indirect=True)
async def test_a_review_under_way_waits_behind_hints_rather_than_failing(server, url, monkeypatch):
    """Its first part taken, a review goes on to the end: the hints asked meanwhile queue
    ahead of its next parts (more than the pool's half second even once one of them is
    thought), which wait their turn."""
    monkeypatch.setattr("server.searches.OVERRUN", 60.0)  # frozen is not stuck
    table, player = await finished_table(url)
    askers = [await seated_at_bots(url, "normal", searched=True) for _ in range(5)]
    assert (await hinted(askers[0]))["t"] == "hint"  # the worker is up
    await askers[0].close()
    with frozen(the_worker(server.searches)):
        rid = await player.send("review", table=table, seat=0)
        await until("its first part, frozen", lambda: running(server.searches) == 1)
        asked = [await asker.send("hint") for asker in askers[1:]]
        await until("the hints waiting", lambda: len(server.searches.waiting) == len(asked))
    review = await player.next(lambda m: m.get("rid") == rid, wait=THOUGHT)
    assert review["t"] == "review", review
    for asker, hint_rid in zip(askers[1:], asked, strict=True):
        said = await asker.next(lambda m, r=hint_rid: m.get("rid") == r)
        assert said["t"] == "hint" or said["code"] == "thinking", said
    await close_all(player, *askers[1:])
