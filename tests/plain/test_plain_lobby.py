"""The plain client's lobby and seat: list, create, start, join N and watch N by the
list's numbers, a spectator's view, chat, leave, and a seat resumed by the next run.
Plain clients in this process, on real websockets to a real server."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from protocol import Request
from protocol import requests as rq
from protocol.constants import SHORT_ROUND_CAP
from protocol.requests import Hello
from tests.kits.netkit import Client
from tests.plain.plainkit import InProcess, Recording


async def test_create_start_list_watch_and_join_by_number(url, tmp_path):
    async with InProcess(url, tmp_path / "a") as raven:
        await raven.transcript.until(
            r"^Connected to ws://127\.0\.0\.1:\d+ \(gother .*\) as Raven\.$"
        )
        await raven.transcript.until(r"^No tables on this server yet: type create to make one\.$")
        raven.type("join 1")
        await raven.transcript.until(r"^There is no table 1: list shows 0 tables\.$")
        raven.type("create 3 0 The Crypt")
        await raven.transcript.until(
            r"^Table The Crypt is made \(table \w+\)\. Length: usually \d+ to \d+ rounds; .*\.$"
        )
        await raven.transcript.until(r"^You sit at The Crypt \(table \w+\), seat 1 of 3\.$")
        await raven.transcript.until(r"^Waiting for players: 1 of 3 seats taken\. Type start")

        async with InProcess(url, tmp_path / "b", name="Lenore") as lenore:
            await lenore.transcript.until(r"^1 table \(join N, watch N, or create\):$")
            await lenore.transcript.until(
                r"^  1: The Crypt \(table \w+\), 1 of 3 seats taken, waiting\."
                r" Length: usually \d+ to \d+ rounds; about one game in \d+ runs past \d+\.$"
            )
            lenore.type("join 1")
            await lenore.transcript.until(r"^You sit at The Crypt \(table \w+\), seat 2 of 3\.$")
            await raven.transcript.until(r"^Lenore joined\.$")
            lenore.type("say hello, crypt")
            await raven.transcript.until(r"^Lenore says: hello, crypt$")
            lenore.type("start")
            await raven.transcript.until(r"^The cards are dealt: game 1 begins\.$")
            await lenore.transcript.until(r"^The cards are dealt: game 1 begins\.$")
            lenore.type("leave")
            await lenore.transcript.until(r"^You left the table\.$")
            await lenore.transcript.until(r"^You are in the lobby of ")
            await lenore.transcript.until(
                r"^  1: The Crypt \(table \w+\), 3 of 3 seats taken, 2 normal bots \(vengeful\),"
                r" playing\. Length: usually"
            )
            lenore.type("join 1")
            await lenore.transcript.until(r"^The Crypt has no free seat: watch 1 watches it\.$")
            lenore.type("watch 1")
            await lenore.transcript.until(r"^You are watching The Crypt \(table \w+\)\.$")
            await lenore.transcript.until(r"^What happened lately:$")
            for line in ("1", "give 1 to me", "draw deck", "hint"):
                lenore.type(line)
                await lenore.transcript.until(r"^You are watching: spectators make no moves\.$")
            lenore.type("hand")
            await lenore.transcript.until(r"^You are watching: you hold no hand\.$")
            lenore.type("who")
            await lenore.transcript.until(r"^  1 Raven$")
            await lenore.transcript.until(r"^  2 Lenore \(a vengeful bot\)$")  # took the seat left
            lenore.type("say it is still me")  # the bot has her name now: she speaks marked
            await raven.transcript.until(r"^Lenore \(watching\) says: it is still me$")
            lenore.type("quit")
        assert [f for f in lenore.sent if f["t"] == "move"] == []
        assert lenore.errors() == [] and raven.errors() == []
        raven.type("quit")


async def test_the_next_run_resumes_the_seat(url, tmp_path):
    async with InProcess(url, tmp_path) as first:
        await first.transcript.until(r"^No tables on this server yet")
        first.type("create 3")  # two bots: the table is full, the cards are dealt
        await first.transcript.until(r"^The cards are dealt: game 1 begins\.$")
        first.type("quit")
    async with InProcess(url, tmp_path) as again:  # the same seat file, no --table
        await again.transcript.until(r"^You sit at Raven's table \(table \w+\), seat 1 of 3\.$")
        await again.transcript.until(r"^Game 1 is under way\. Round 1 of 100: you to play")
        await again.transcript.until(r"^What happened lately:$")
        await again.transcript.until(r"^Round 1: your turn\.$")
        await again.transcript.until(r"^Choose 1")
        again.type("quit")
    assert not [f for f in again.sent if f["t"] in ("join", "list")]  # resumed, not joined
    assert [f["t"] for f in again.sent][:3] == ["hello", "prove", "resume"]


async def test_looking_between_the_questions_of_give_and_quitting_from_them(url, tmp_path):
    async with InProcess(url, tmp_path) as plain:
        await plain.transcript.until(r"^No tables on this server yet")
        plain.type("create 3")  # this seat deals: its first decision is a placement
        await plain.transcript.until(r"^Choose 1")
        plain.type("give")
        await plain.transcript.until(r"^Which card for you, seat 1\?$")
        plain.type("who")
        await plain.transcript.until(r"^  3 \w+ \(a vengeful bot\)$")
        await plain.transcript.until(r"^Which card for you, seat 1\?$")  # asked again
        plain.type("1")
        await plain.transcript.until(r"^Which card for \w+, seat 2\?$")
        plain.type("quit")  # a command by its name ends the questions, and is done
        await plain.transcript.until(r"^Goodbye\.$")
        assert await plain.task == 0
        assert [f for f in plain.sent if f["t"] == "move"] == []


class FromTheFuture(Recording):
    """A client of a protocol version this server does not speak."""

    async def send(self, request: Request) -> None:
        await super().send(replace(request, v=99) if isinstance(request, Hello) else request)


class FutureClient(InProcess):
    def _transport(self, url: str) -> Recording:
        transport = FromTheFuture(url)
        self.transports.append(transport)
        return transport


async def test_a_server_that_will_not_have_the_client_ends_it_with_status_1(url, tmp_path):
    async with FutureClient(url, tmp_path) as plain:
        await plain.transcript.until(r"^The server refused us: .*client sent 99$")
        assert await plain.task == 1


@pytest.mark.parametrize("config", [{"password": "sesame"}], indirect=True)
async def test_a_password_given_on_the_command_line_is_not_asked(url, tmp_path):
    async with InProcess(url, tmp_path, password="sesame") as plain:
        await plain.transcript.until(r"^Connected to ws://127\.0\.0\.1:\d+ .* as Raven\.$")
        plain.type("quit")
    assert await plain.task == 0
    assert not any("password" in line for line in plain.transcript.lines)


async def test_a_scripts_list_then_quit_lists_before_it_quits(url, tmp_path):
    """Issue 29: `printf 'list\\nquit\\n' | gother join URL --plain` printed nothing (the
    quit, read before the connection was ready, ended the run before the list)."""
    async with InProcess(url, tmp_path) as raven:
        raven.type("list", "quit")  # both before the server has said welcome
    lines = raven.transcript.lines
    listed = [i for i, line in enumerate(lines) if line.startswith("No tables on this server")]
    assert len(listed) == 2, lines  # arriving in the lobby, then `list`
    assert lines[-1] == "Goodbye."
    assert any(frame["t"] == "list" for frame in raven.sent)


async def test_a_quit_before_the_server_answers_still_ends_at_once(tmp_path):
    async with InProcess("ws://127.0.0.1:9", tmp_path, first_retry=5.0) as raven:
        raven.type("quit")  # nothing listens there: no waiting for a server
    assert raven.sent == []


async def test_a_new_ssh_token_is_said_once_and_join_of_a_started_game_says_how_to_come_back(
    url, tmp_path
):
    """The SSH door hands the plain client the token it has just given (issue 29): said once
    after the welcome, and `join N` of a game started without them says what to do."""
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=3, bots=2)))["table"]
    assert (await host.ask(rq.Join(table=table)))["t"] == "joined"  # the last seat: dealt
    token = "Xq3_kept-by-the-door_Z9w"
    async with InProcess(url, tmp_path, door_token=token) as plain:
        await plain.transcript.until(r"^Connected to ws://")
        said = await plain.transcript.until(r"^Your ssh client offered no key, so this door ")
        assert f"knows you by a token: {token}. " in said.string
        assert f" ssh -o SetEnv=GOTHER_SSH_TOKEN={token} and the rest" in said.string
        await plain.transcript.until(r"^  1: Crypt \(table \w+\), .*")
        plain.type("join 1")
        refused = await plain.transcript.until(r"^Crypt has no free seat: watch 1 watches it\.")
        assert " If it was yours: your seat and your name are kept for the key or token you " in (
            refused.string
        )
        plain.type("quit")
    assert sum("knows you by a token" in line for line in plain.transcript.lines) == 1
    await host.close()


async def test_h2_create_takes_the_house_rules_as_words_and_a_bad_one_sends_nothing(url, tmp_path):
    """Issue 33 §4: the house rules' `WORD=VALUE` words (protocol/house_rules.py) anywhere
    after the command; a word the rules refuse is said, and nothing is sent."""
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^No tables on this server yet")
        raven.type("create 4 fate=bottom The Crypt")
        await raven.transcript.until(r"^create: fate: must be one of any, top, got 'bottom'\.$")
        raven.type("create 4 tempo=fast The Crypt")
        await raven.transcript.until(r"^create: no option 'tempo' \(the options: fate=, ")
        assert not [f for f in raven.sent if f["t"] == "create"]
        raven.type("create 4 3 fate=top The Crypt overflow=immediate cap=off")
        await raven.transcript.until(r"^Table The Crypt is made \(table \w+\)\.")
        (create,) = [f for f in raven.sent if f["t"] == "create"]
        assert (create["name"], create["seats"], create["bots"]) == ("The Crypt", 4, 3)
        assert create["variants"] == {
            "fate_discard": "top",
            "overflow": "immediate",
            "round_cap": None,
            "two_or_six": False,
        }
        async with InProcess(url, tmp_path / "b", name="Lenore") as lenore:  # every rule said
            await lenore.transcript.until(
                r"^  1: The Crypt \(table \w+\), .*, playing, fate discard: the top card only,"
                r" over the limit: immediately, any turn, no round cap\."
            )
            lenore.type("quit")
        raven.type("quit")


async def test_h1_create_takes_the_bots_their_trait_and_the_short_game_in_words(url, tmp_path):
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^No tables on this server yet")
        raven.type("create 5 4 hard steady short The Short Crypt")
        said = r"^Table The Short Crypt is made \(table \w+\)\.( Length: usually .*\.)?$"
        await raven.transcript.until(said)
        (create,) = [f for f in raven.sent if f["t"] == "create"]
        assert (create["seats"], create["bots"], create["bot"], create["trait"]) == (
            5,
            4,
            "hard",
            "steady",
        )
        assert create["variants"]["round_cap"] == SHORT_ROUND_CAP
        await raven.transcript.until(
            r"^The cards are dealt: game 1 begins\. A short game: after round 20 the highest"
            r" Goth wins\.$"
        )
        raven.type("scores")
        await raven.transcript.until(r"^Round 1 of 20: ")  # the cap, as the table shows it
        raven.type("who")
        await raven.transcript.until(r"^  2 \w+ \(a steady bot\)$")
        async with InProcess(url, tmp_path / "b", name="Lenore") as lenore:
            await lenore.transcript.until(
                r"^  1: The Short Crypt \(table \w+\), 5 of 5 seats taken, 4 hard bots"
                r" \(steady\), playing, round cap: 20\."
            )
            lenore.type("quit")
        raven.type("quit")
