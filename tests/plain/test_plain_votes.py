"""The votes of a game from the plain mode, as the full-screen client's P and E: `pause`,
`go on` and `end` (asked first) against a real server, each said as it happens; and the
requests answered by a copy of what they did (`say` by its own chat line, the deciding
`end` by `closed`), matched by rid, so the next command never waits for them."""

from __future__ import annotations

import msgspec

from gother_tui.plain.words import vote_lines
from protocol import server_messages as sm
from protocol.view import View
from tests.plain.plainkit import InProcess
from tests.tui.viewkit import distribute_game, table_view

PAUSED = r"^The game is paused: clocks and bots wait\. Going on needs every player's vote"


async def dealt(plain: InProcess) -> None:
    """A new table of four, three of them bots: one player's vote is every player's."""
    await plain.transcript.until(r"^No tables on this server yet")
    plain.type("create 4")
    await plain.transcript.until(r"^Give each a card:$")


async def test_pause_go_on_and_end_asked_first_against_a_real_server(server, url, tmp_path):
    async with InProcess(url, tmp_path) as plain:
        await dealt(plain)
        plain.type("go on")  # nothing to go on from: a line, nothing sent
        await plain.transcript.until(r"^The game is not paused, and you have not asked to pause\.$")
        plain.type("pause")
        await plain.transcript.until(PAUSED)
        plain.type("pause")
        await plain.transcript.until(r"^The game is paused already: go on votes to go on\.$")
        plain.type("go on")
        await plain.transcript.until(r"^The game goes on\.$")

        plain.type("end", "no")
        await plain.transcript.until(r"^Vote to end this game unfinished\? It ends once every")
        await plain.transcript.until(r"^No vote to end was sent\.$")
        assert [f for f in plain.sent if f["t"] == "end"] == []
        plain.type("end", "yes", "list")
        await plain.transcript.until(r"^The table was closed: the players ended the game")
        await plain.transcript.until(r"^Final standings: .*Raven")
        await plain.transcript.until(r"^You are in the lobby of ")
        await plain.transcript.until(r"^No tables on this server yet")  # the lobby's own list
        await plain.transcript.until(r"^No tables on this server yet")  # the next command's
        assert not server.lobby.tables

        assert [f["on"] for f in plain.sent if f["t"] == "pause"] == [True, False]
        (end,) = [f for f in plain.sent if f["t"] == "end"]
        closed = [m for m in plain.received if isinstance(m, sm.Closed)]
        assert [c.rid for c in closed] == [end["rid"]]  # the deciding vote's answer
        assert not [line for line in plain.transcript.lines if line.startswith("No answer")]
        assert plain.errors() == []
        plain.type("quit")


async def test_say_is_answered_by_its_own_chat_line_before_the_next_command(url, tmp_path):
    async with InProcess(url, tmp_path) as plain:
        await dealt(plain)
        plain.type("say good evening", "who")
        await plain.transcript.until(r"^Raven says: good evening$")
        await plain.transcript.until(r"^Raven's table \(table \w+\): 4 seats")  # after it
        (chat,) = [f for f in plain.sent if f["t"] == "chat"]
        echoes = [m for m in plain.received if isinstance(m, sm.Chat)]
        assert [e.rid for e in echoes] == [chat["rid"]]
        assert not [line for line in plain.transcript.lines if line.startswith("No answer")]
        plain.type("quit")


def with_votes(**fields: object) -> View:
    view = table_view(distribute_game())  # seat 0 (Raven) is the viewer
    return msgspec.structs.replace(view, table=msgspec.structs.replace(view.table, **fields))


def test_each_vote_is_said_with_who_asks():
    calm = with_votes()
    names = {p.seat: p.name for p in calm.players}
    assert vote_lines(calm, calm) == []
    asked = with_votes(pause_votes=(0, 1))
    assert vote_lines(calm, asked) == ["You ask to pause.", f"{names[1]} asks to pause."]
    assert vote_lines(asked, with_votes(pause_votes=(0,))) == [
        f"{names[1]} takes back the vote to pause."
    ]
    paused = with_votes(paused=True, pause_votes=(0, 1, 2))
    assert vote_lines(asked, paused)[0].startswith("The game is paused:")
    going = with_votes(paused=True, pause_votes=(0, 1))
    assert vote_lines(paused, going) == [f"{names[2]} asks to go on."]
    assert vote_lines(going, calm) == ["The game goes on."]
    ending = with_votes(end_votes=(2,))
    assert vote_lines(calm, ending) == [f"{names[2]} asks to end the game unfinished."]
