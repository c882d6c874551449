"""The plain client's `tournament` command: hear which tournaments are open, make one with
the host's leave (its creator registered), start it, be seated by the director, drop out
(the table is left to a bot), hear the news of the night, and read how it stands and the
standings. A plain client in this process and players on real websockets."""

from __future__ import annotations

import re

import pytest

from gother_tui.plain.tournament_new import tournament_new
from protocol.constants import DEFAULT_ROUND_CAP
from protocol.requests import TournamentCreate
from protocol.view import Variants
from tests.kits.netkit import Client, close_all
from tests.kits.tournamentkit import LEAVE, NIGHT, Player
from tests.plain.plainkit import InProcess


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_a_tournament_from_the_plain_client(url, tmp_path):
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^No tables on this server yet")
        raven.type("tournament")
        await raven.transcript.until(r"^You follow no tournament, and none is open on this")
        host = await Client.connect(url, "Host")  # another's, open: listed (issue 29 §5)
        other = await host.request(
            "tournament_create", name="Crypt Cup", rounds=2, seats=4, password=LEAVE
        )
        raven.type("list")
        await raven.transcript.until(
            r"^Tournament open: Crypt Cup \(registering, 0 players\): tournament shows it\.$"
        )
        raven.type("tournament")
        await raven.transcript.until(r"^You follow no tournament\. Open on this server:$")
        await raven.transcript.until(
            rf"^  Crypt Cup \({other['id']}\): registering, 0 players, tables of 4$"
        )
        await raven.transcript.until(r"^tournament ID registers in one, tournament watch ID")
        raven.type("tournament new 3 4 x")
        await raven.transcript.until(r"^tournament new ROUNDS SEATS PASSWORD NAME \[play=")
        raven.type("tournament new three 4 x Night")
        await raven.transcript.until(r"^tournament new: rounds: three is not a whole number\.$")
        raven.type("tournament new 1 3 wrong Night")
        await raven.transcript.until(r"^The server refused: creating a tournament needs the host")
        raven.type(f"tournament new 1 3 {LEAVE} Night")  # its creator plays in it
        made = await raven.transcript.until(
            r"^Night \((\w+)\): registering, 1 player, tables of 3$"
        )
        tournament = made[1]
        raven.type("tournament nope")
        await raven.transcript.until(r"^The server refused: there is no tournament 'nope'")
        raven.type(f"tournament {tournament}")  # registered already: coming back changes nothing
        await raven.transcript.until(r"^Night \(\w+\): registering, 1 player, tables of 3$")
        players = []
        for name in ("Lenore", "Vlad"):
            client = await Client.connect(url, name)
            players.append(Player(client))
            reply = await client.request("tournament_join", tournament=tournament)
            assert reply["t"] == "tournament", reply
        raven.type("tournament start")
        sat = await raven.transcript.until(r"^You sit at Night r1 t1 \(table (\w+)\), seat \d of 3")
        await raven.transcript.until(r"^Night \(\w+\): round 1 of 1, tables of 3$")
        table = await raven.transcript.until(r"^  Table 1 \((\w+)\): (.+), playing$")
        assert table[1] == sat[1]
        seated = table[2].split(", ")  # each with their place, matched by the standings' key
        assert sorted(n.split()[0] for n in seated) == ["Lenore", "Raven", "Vlad"]
        assert all(re.fullmatch(r"\w+ \([123](st|nd|rd)\)", n) for n in seated), seated
        raven.type("tournament drop")  # the seat goes to a bot, and the client is told
        await raven.transcript.until(r"^You left the table\.$")
        await raven.transcript.until(r"^  \d\. Raven: 0 points, 0 Goth, 0 games, dropped out$")
        leader = await raven.transcript.until(r"^Night is over: (\w+) is first\. \(tournament")
        raven.type("tournament")
        await raven.transcript.until(r"^Night \(\w+\): over after 1 round, tables of 3$")
        await raven.transcript.until(rf"^Over after 1 round: {leader[1]} is first\.$")
        await raven.transcript.until(r"^Standings:$")
        first = await raven.transcript.until(r"^  1\. (\w+): ([\d.]+) points?, -?\d+ Goth, 1 game$")
        assert first[1] == leader[1] and float(first[2]) >= 1.0  # first of three: 2, or shared
        await raven.transcript.until(
            r"^Points by place: 1st 2, 2nd 1, 3rd 0 \(ties share them\); then Goth Points"
        )
        raven.type("quit")
    for player in players:
        player.task.cancel()
    await close_all(host, *(p.client for p in players))


@pytest.mark.parametrize("config", [NIGHT], indirect=True)
async def test_the_plain_client_makes_a_tournament_with_the_form_s_options(server, url, tmp_path):
    """Duplicate deals, hard bots, the house rules and no round cap, as the full-screen
    form offers them: the server's tournament has them, and a bad option sends nothing."""
    async with InProcess(url, tmp_path) as raven:
        await raven.transcript.until(r"^No tables on this server yet")
        raven.type(f"tournament new 2 5 {LEAVE} Night bots=wizard")
        await raven.transcript.until(r"^tournament new: bots: must be one of easy, normal, hard")
        raven.type(f"tournament new 2 5 {LEAVE} Night seats=4")
        await raven.transcript.until(r"^tournament new: no option 'seats' \(the options: play=")
        assert server.director.tournaments == {}  # nothing was made of either
        raven.type(
            f"tournament new 2 5 {LEAVE} Black Mass deals=duplicate bots=hard fate=top "
            "overflow=immediate cap=off play=no"
        )
        await raven.transcript.until(
            r"^Black Mass \(\w+\): registering, 0 players, tables of 5, duplicate deals$"
        )
        raven.type("quit")
    [made] = server.director.tournaments.values()
    assert (made.name, made.rounds, made.seats, made.duplicate, made.bot_kind) == (
        "Black Mass",
        2,
        5,
        True,
        "ismcts",  # bots=hard, as the kind it stands for
    )
    assert made.entries == {}  # play=no: its creator only runs it
    assert made.variants.to_wire() == {
        "fate_discard": "top",
        "overflow": "immediate",
        "round_cap": None,
        "two_or_six": False,
    }


@pytest.mark.parametrize(
    ("words", "said"),
    [
        ("3 4 leave", "tournament new ROUNDS SEATS PASSWORD NAME"),
        ("3 4 leave deals=duplicate", "tournament new ROUNDS SEATS PASSWORD NAME"),
        ("3 4 leave Night deals=twice", "tournament new: deals: twice is not one of own"),
        ("3 4 leave Night cap=0", "tournament new: cap: must be between 1 and"),
        ("3 4 leave Night cap=soon", "tournament new: round cap: soon is not a whole number"),
        ("3 4 leave Night fate=bottom", "tournament new: fate: must be one of any, top"),
        ("3 4 leave Night overflow=late", "tournament new: overflow: must be one of"),
        ("3 4 leave Night bots=hard bots=easy", "tournament new: bots= is given twice"),
        ("3 4 leave Night play=maybe", "tournament new: play: maybe is not one of yes, no"),
        ("21 4 leave Night", "tournament new: rounds: must be between 1 and 20"),
    ],
)
def test_bad_tournament_new_words_say_what_to_fix(words, said):
    with pytest.raises(ValueError) as refused:
        tournament_new(words)
    assert str(refused.value).startswith(said), refused.value


def test_tournament_new_asks_what_the_form_would_by_default():
    assert tournament_new("3 4 leave Big Night") == TournamentCreate(
        name="Big Night",
        rounds=3,
        seats=4,
        bot="normal",
        duplicate=False,
        variants=Variants(fate_discard="any", overflow="draw_step", round_cap=DEFAULT_ROUND_CAP),
        password="leave",
        play=True,  # its creator plays in it unless `play=no` says otherwise
    )
    assert not tournament_new("3 4 leave Big Night play=no").play
