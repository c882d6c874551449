"""Names that cannot be faked (issue 18, item 3), on a real server: a look-alike of a seated
player's name or of a bot's is refused a seat with `name_taken`; a seat resumed under a
look-alike keeps its name; a spectator's chat is marked as watching, a seated player's
speaks under the seat's name; hidden text in variation selectors never reaches anyone."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from protocol.text import looks_like
from tests.kits.netkit import Client, close_all
from tests.kits.tablekit import FakeClock, Keeper, make_table

VICTIM = "Lydia"
BOT = "Vlad"  # the second bot seated at a table takes this name

# The red-team set (issue 18): each would pass for Lydia, or for the bot Vlad ⚙.
RED_TEAM = [
    "Lydia",  # an exact duplicate
    "lydia",  # case
    "LYDIA",
    "L\u0443dia",  # Cyrillic small u
    "Lydi\u0430",  # Cyrillic small a
    "Lyd\u0456a",  # Cyrillic small i
    "\u041corticia",  # Cyrillic capital em, for the bot Morticia
    "Ly\u034fdia",  # the combining grapheme joiner, invisible
    "Lydia\u034f",
    "Lydia\ufe0f",  # variation selectors
    "L\ufe00ydia",
    "Lydia\U000e0101",
    "Ly dia",  # spacing
    "L y d i a",
    "\uff2c\uff59\uff44\uff49\uff41",  # fullwidth
    "Vlad \u26ed",  # a gear without hub beside the bot "Vlad ⚙"
    "vlad",  # the bot's name
    "Vlad \u2699",  # the bot mark itself: refused by the protocol's rules at hello
]
HONEST = ["Lidia", "Lydian", "Vladimir", "Zo\u00eb"]


def refused(reply: dict[str, Any]) -> bool:
    return reply["t"] == "error" and reply["code"] in {"name_taken", "bad_message"}


async def table_with_lydia_and_bots(url: str) -> tuple[str, Client]:
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=5, bots=2)))["table"]
    await host.close()
    lydia = await Client.connect(url, VICTIM)
    assert (await lydia.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
    return table, lydia


async def try_to_sit(url: str, table: str, name: str) -> dict[str, Any]:
    """The answer to `hello` as `name` if it is refused there, else to `join`."""
    client = await Client.connect(url)
    try:
        hello = await client.request("hello", v=PROTOCOL_VERSION, name=name)
        if hello["t"] != "welcome":
            return hello
        return await client.ask(rq.Join(table=table))
    finally:
        await client.close()


async def test_the_red_team_look_alikes_are_all_refused_and_take_no_seat(server, url):
    table, lydia = await table_with_lydia_and_bots(url)
    view = await lydia.state(lambda v: True)
    assert [p["name"] for p in view["players"]][3:] == ["Morticia", BOT]
    answers = {name: await try_to_sit(url, table, name) for name in RED_TEAM}
    let_in = [name for name, reply in answers.items() if not refused(reply)]
    assert let_in == [], answers
    assert len(RED_TEAM) == 18
    taken = [a for a in answers.values() if a["code"] == "name_taken"]
    assert all("looks like" in a["message"] for a in taken), taken
    assert server.lobby.tables[table].summary().seated == 3  # Lydia and the two bots
    for name in HONEST:  # names that only resemble: a seat each (given up again)
        client = await Client.connect(url, name)
        assert (await client.ask(rq.Join(table=table)))["t"] == "joined", name
        assert (await client.ask(rq.Leave()))["t"] == "left"
        await client.close()
    await close_all(lydia)


async def test_a_name_is_refused_only_where_its_look_alike_sits(server, url):
    table, lydia = await table_with_lydia_and_bots(url)
    host = await Client.connect(url, "Host")
    other = (await host.ask(rq.Create(name="Elsewhere", seats=3, bots=0)))["table"]
    await host.close()
    namesake = await Client.connect(url, "L\u0443dia")
    refusal = await namesake.ask(rq.Join(table=table))
    assert refusal["code"] == "name_taken" and "'Lydia'" in refusal["message"], refusal
    assert (await namesake.ask(rq.Join(table=other)))["t"] == "joined"
    await close_all(lydia, namesake)


async def test_an_away_players_name_stays_theirs(server, url):
    table, lydia = await table_with_lydia_and_bots(url)
    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
    await lydia.close()  # away: the seat is still hers
    await watcher.state(lambda v: not v["players"][0]["connected"])
    reply = await try_to_sit(url, table, "lydia")
    assert reply["code"] == "name_taken", reply
    await close_all(watcher)


@pytest.mark.parametrize("config", [{"chat_burst": 10}], indirect=True)
async def test_a_spectator_chats_marked_as_watching_and_a_player_under_the_seats_name(server, url):
    table, lydia = await table_with_lydia_and_bots(url)
    impostor = await Client.connect(url, "Lydia")  # may watch, but never speaks unmarked
    assert (await impostor.ask(rq.Watch(table=table)))["t"] == "watching"
    await impostor.tell(rq.Chat(text="I am Lydia"))
    said = await lydia.next(lambda m: m["t"] == "chat")
    assert said == {
        "t": "chat",
        "from": "Lydia",
        "text": "I am Lydia",
        "table": table,
        "watching": True,
    }
    await lydia.tell(rq.Chat(text="no, I am"))
    said = await impostor.next(lambda m: m["t"] == "chat" and m["text"] != "I am Lydia")
    assert said == {"t": "chat", "from": "Lydia", "text": "no, I am", "table": table}  # seated

    # a chat line that shows "hi" and hides a sentence in variation selectors: only "hi"
    hidden = "hi" + "".join(chr(0xE0100 + b) for b in b"meet me at table 2")
    await impostor.send("chat", text=hidden + "\ufe0f")
    said = await lydia.next(lambda m: m["t"] == "chat" and m["text"] != "no, I am")
    assert said["text"] == "hi"
    await close_all(lydia, impostor)


async def test_a_seat_resumed_under_a_look_alike_keeps_its_name(server, url):
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=3, bots=1)))["table"]
    await host.close()
    lydia = await Client.connect(url, VICTIM)
    token = (await lydia.ask(rq.Join(table=table)))["token"]
    mallory = await Client.connect(url, "Mallory")
    mallory_token = (await mallory.ask(rq.Join(table=table)))["token"]
    await lydia.state(lambda v: v["phase"] != "lobby")
    await mallory.close()
    back = await Client.connect(url, "L\u0443dia")  # Mallory's token, Lydia's look
    assert (await back.ask(rq.Resume(token=mallory_token)))["t"] == "joined"
    view = await lydia.state(lambda v: v["players"][1]["connected"])
    assert [p["name"] for p in view["players"]][:2] == ["Lydia", "Mallory"]
    await back.tell(rq.Chat(text="trust me"))
    said = await lydia.next(lambda m: m["t"] == "chat")
    assert said["from"] == "Mallory" and "watching" not in said
    renamed = await Client.connect(url, "Lydia B")  # a name unlike anyone's: the seat takes it
    await lydia.close()
    assert (await renamed.ask(rq.Resume(token=token)))["t"] == "joined"
    view = await back.state(lambda v: v["players"][0]["name"] == "Lydia B")
    assert view["players"][0]["connected"]
    await close_all(back, renamed)


def test_bots_dealt_in_later_take_names_unlike_everyones():
    table = make_table(FakeClock(), seats=4)
    table.join(Keeper("M\u043ert\u0456c\u0456a"), 0)  # Cyrillic o and i: Morticia to the eye
    table.join(Keeper("VLAD"), 1)
    table.start()
    names = [s.name for s in table.seats if s is not None]
    assert names[2:] == ["Lenore", "Siouxsie"]
    assert not any(looks_like(a, b) for i, a in enumerate(names) for b in names[i + 1 :])
