"""Losing the connection: the last state stays, dimmed, marked "reconnecting…"; the client
comes back by itself and resumes its seat with the saved token (or watches again)."""

from __future__ import annotations

import os
import stat
from typing import Any

from textual.worker import WorkerState

from gother_tui.core.connection import Received, Unreadable
from gother_tui.tui import messages as msg
from protocol import requests as rq
from protocol.view import View
from tests.tui.clientkit import URL, at_table, notices, reply, screen_text, until, widget_text
from tests.tui.viewkit import (
    TABLE,
    TOKEN,
    distribute_game,
    draw_game,
    join_with,
    joined,
    spectator_view,
    state,
    wire_view,
)


def resume_with(wire, seq=1):
    def handler(m):
        if m["token"] != TOKEN:
            return [reply(m, "error", code="bad_token", message="unknown seat token")]
        return [joined(m["rid"]), state(seq, wire)]

    return handler


async def test_a_lost_connection_dims_the_table_then_resumes_the_seat(make_app, fake):
    before, after = wire_view(distribute_game()), wire_view(draw_game())
    fake.handlers["join"] = join_with(before)
    fake.handlers["resume"] = resume_with(after, seq=9)
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.refusals = 10**6  # the server stays away until the test lets it back
        fake.conn.drop()
        await until(pilot, lambda: app.link == "offline", "the loss to be noticed")
        await until(pilot, lambda: fake.refusals < 10**6 - 1, "a retry or two")
        screen = app.screen
        assert screen.has_class("-offline")
        assert "reconnecting…" in widget_text(pilot, "#status")
        assert "Connection lost: reconnecting…" in widget_text(pilot, "#prompt")
        assert "Morticia" in widget_text(pilot, "#players")  # the last state is still shown
        assert app.view == View.from_wire(before)
        await pilot.press("1", "2", "3", "enter")  # no moves while offline
        fake.refusals = 0
        await until(pilot, lambda: app.view == View.from_wire(after), "the resumed state")
        second = fake.connections[-1]
        assert [m["t"] for m in second.sent] == ["hello", "resume"]
        assert second.last("resume")["token"] == TOKEN
        assert not any(c.requests("move") for c in fake.connections)
        assert app.link == "online" and not screen.has_class("-offline")


async def test_a_saved_token_resumes_the_seat_at_start(make_app, fake, store):
    store.save(URL, TABLE, TOKEN)
    fake.handlers["resume"] = resume_with(wire_view(distribute_game()))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert [m["t"] for m in fake.conn.sent] == ["hello", "resume"]
        assert app.seat == 0 and app.table_id == TABLE


async def test_a_bad_saved_token_is_forgotten_and_the_lobby_shown(make_app, fake, store):
    store.save(URL, TABLE, "a-stale-token-from-before-the-restart")
    fake.handlers["resume"] = resume_with(wire_view(distribute_game()))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await until(pilot, lambda: fake.conn.requests("list"), "a table list request")
        assert store.find(URL) is None
        await until(pilot, lambda: any("no longer valid" in n for n in notices(pilot)), "notice")


async def test_a_bad_token_with_a_table_given_joins_that_table(make_app, fake, store):
    store.save(URL, TABLE, "a-stale-token-from-before-the-restart")
    fake.handlers["resume"] = resume_with(wire_view(distribute_game()))
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert [m["t"] for m in fake.conn.sent] == ["hello", "resume", "join"]
        assert store.find(URL, TABLE) == (TABLE, TOKEN)  # the new seat's token replaced it


async def test_the_seat_token_is_saved_privately_per_server_and_table(make_app, fake, store):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert store.find(URL, TABLE) == (TABLE, TOKEN)
        assert store.find("ws://another.invalid:1") is None
        assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
        assert TOKEN not in screen_text(pilot)  # a secret: never shown


async def test_a_spectator_watches_again_after_a_loss(make_app, fake, store):
    wire = spectator_view(distribute_game())
    fake.handlers["watch"] = lambda m: [
        reply(m, "watching", table=m["table"], cards=joined()["cards"]),
        state(3, wire),
    ]
    app = make_app(watch=True, table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.conn.drop(1012, "server restarting")
        await until(pilot, lambda: len(fake.connections) == 2, "a new connection")
        await until(pilot, lambda: fake.conn.requests("watch"), "watch again")
        assert fake.conn.last("watch")["table"] == TABLE
        assert not fake.conn.requests("resume") and store.find(URL) is None
        again = View.from_wire(wire)
        await until(pilot, lambda: app.link == "online" and app.view == again, "the state again")


async def test_a_seat_taken_over_elsewhere_does_not_reconnect(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        fake.conn.drop(4000, "seat resumed from another connection")
        await until(pilot, lambda: app.link == "closed", "the closed link")
        network = [w for w in app.workers if w.group == "network"]
        await until(pilot, lambda: all(w.state == WorkerState.SUCCESS for w in network), "stop")
        assert len(fake.connections) == 1
        assert "taken over from another terminal" in widget_text(pilot, "#prompt")


async def test_leaving_forgets_the_token_and_returns_to_the_lobby(make_app, fake, store):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    fake.handlers["leave"] = lambda m: [reply(m, "left", table=TABLE)]
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("L")
        assert "A bot takes your seat for good" in screen_text(pilot)
        await pilot.press("y")
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        assert store.find(URL) is None
        assert app.view is None and app.seat is None


async def test_another_name_on_the_same_account_does_not_take_the_seat(make_app, fake, store):
    store.save(URL, TABLE, TOKEN, "Raven")
    app = make_app(name="Lydia")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        await until(pilot, lambda: fake.conn.requests("list"), "the table list")
        assert not fake.conn.requests("resume")
        assert store.find(URL, TABLE, "Raven") == (TABLE, TOKEN)  # still Raven's


async def test_every_server_frame_becomes_a_typed_message(make_app, fake):
    """Parsed once, on arrival: the app handles the protocol's typed messages; a frame of
    a type it does not know is dropped, one that is malformed is a notice, never a view
    with a default filled in."""
    seen: list[Any] = []
    wire = wire_view(distribute_game())
    fake.handlers["join"] = join_with(wire)
    fake.handlers["hint"] = lambda m: [reply(m, "error", code="not_your_turn", message="no")]
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await at_table(pilot)
        broken = {**wire, "players": [{**wire["players"][0], "fate": ["x"]}]}
        fake.conn.feed(
            {"t": "chat", "from": "Vlad", "text": "hi"},
            {"t": "comet", "x": 1},
            state(7, broken),
        )
        await pilot.press("h")
        await until(pilot, lambda: any(isinstance(m, msg.Refused) for m in seen), "the refusal")
        await until(pilot, lambda: any("cannot read" in n for n in notices(pilot)), "notice")
        assert app.view == View.from_wire(wire)  # the malformed state changed nothing
    heard = [m.event for m in seen if isinstance(m, msg.Heard)]
    received = [type(e.message).__name__ for e in heard if isinstance(e, Received)]
    assert received[:3] == ["Welcome", "Joined", "State"]
    assert "Chat" in received and "Error" in received and len(received) == 5
    (unreadable,) = [e for e in heard if isinstance(e, Unreadable)]
    assert unreadable.problem == "state.view.players[0].fate[0]: Expected `int`, got `str`"
    (refused,) = [m for m in seen if isinstance(m, msg.Refused)]
    assert (type(refused.asked), refused.error.code) == (rq.Hint, "not_your_turn")
