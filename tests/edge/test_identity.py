"""Lasting identities (issue 18, item 2, and the names of item 3) on a real server: a client
names an Ed25519 key in `hello`, signs the challenge of `welcome` in `prove`, and from then on
its seats and its name hang on that identity. A player who quits and comes back on a new
connection is back in their seat without a token; a forged or replayed signature is refused
and the connection stays anonymous; a name belongs to the first identity that sat under it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given
from hypothesis import strategies as st

from gother_tui.cli import build_parser
from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from protocol.constants import NAME_KEPT_DAYS, PROVE_CONTEXT
from protocol.errors import ProtocolError
from protocol.view import Variants
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.identity import NameRules, Names, identity_of, proves
from server.store.sqlite import SqliteStore
from tests.kits.netkit import Client, close_all, play_to_end

SHORT = Variants(round_cap=2)  # a game of two rounds: played to its end in a moment


def public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


async def hello(url: str, name: str, key: Ed25519PrivateKey) -> tuple[Client, dict[str, Any]]:
    """A connection that said hello naming `key`, and the welcome (with its challenge)."""
    client = await Client.connect(url)
    welcome = await client.ask(rq.Hello(v=PROTOCOL_VERSION, name=name, key=public(key)))
    assert welcome["t"] == "welcome", welcome
    return client, welcome


async def proven(url: str, name: str, key: Ed25519PrivateKey) -> tuple[Client, dict[str, Any]]:
    """A connection proved to be `key`, and the `proven` reply."""
    client, welcome = await hello(url, name, key)
    signature = key.sign(PROVE_CONTEXT + welcome["challenge"])
    reply = await client.ask(rq.Prove(signature=signature))
    assert reply["t"] == "proven", reply
    return client, reply


async def started_table(url: str, key: Ed25519PrivateKey) -> tuple[str, Client]:
    """A game of three (two bots) dealt with `key`'s player at seat 0."""
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Crypt", seats=3, bots=2)))["table"]
    await host.close()
    ann, _ = await proven(url, "Ann", key)
    joined = await ann.ask(rq.Join(table=table, seat=0))
    assert joined["t"] == "joined", joined
    await ann.state(lambda v: v["phase"] != "lobby")
    return table, ann


async def test_a_player_who_quits_and_proves_again_is_back_in_their_seat(url):
    key = Ed25519PrivateKey.generate()
    table, ann = await started_table(url, key)
    await ann.close()

    back, reply = await proven(url, "Ann", key)
    assert reply["identity"] == identity_of(public(key))
    assert reply["seats"] == [{"table": table, "seat": 0}]
    joined = await back.ask(rq.Resume(table=table))
    assert joined["t"] == "joined" and joined["seat"] == 0, joined
    view = await back.state(lambda v: v["players"][0]["connected"])
    assert view["you"]["seat"] == 0
    # the fresh token opens the seat too; nothing told this person to "resume with a token"
    again, _ = await hello(url, "Ann", key)  # her key, not proved here: the token opens it
    assert (await again.ask(rq.Resume(token=joined["token"])))["seat"] == 0
    assert not any("token" in m.get("message", "") for m in back.received if m["t"] == "error")
    await close_all(back, again)


async def test_joining_the_started_table_where_one_sits_gives_the_seat_back(url):
    key = Ed25519PrivateKey.generate()
    table, ann = await started_table(url, key)
    await ann.close()
    back, _ = await proven(url, "Ann", key)
    joined = await back.ask(rq.Join(table=table))
    assert joined["t"] == "joined" and joined["seat"] == 0, joined
    await back.state(lambda v: v["players"][0]["connected"] and v["you"]["seat"] == 0)
    await back.close()


async def test_a_seat_held_by_an_identity_survives_a_restart(config: ServerConfig):
    key = Ed25519PrivateKey.generate()
    first = GotherServer(config)
    await first.start()
    table, ann = await started_table(f"ws://127.0.0.1:{first.port}", key)
    await ann.close()
    await first.close()
    again = GotherServer(replace(config, port=0))
    await again.start()
    try:
        back, reply = await proven(f"ws://127.0.0.1:{again.port}", "Ann", key)
        assert reply["seats"] == [{"table": table, "seat": 0}]
        assert (await back.ask(rq.Resume(table=table)))["seat"] == 0
        await back.close()
    finally:
        await again.close()


async def test_a_forged_signature_is_refused_and_the_connection_stays_anonymous(url):
    key, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    table, ann = await started_table(url, key)
    await ann.close()

    thief, welcome = await hello(url, "Ann", key)  # claims Ann's key, cannot sign for it
    forged = forger.sign(PROVE_CONTEXT + welcome["challenge"])
    refused = await thief.ask(rq.Prove(signature=forged))
    assert refused["t"] == "error" and refused["code"] == "bad_signature", refused
    # one try a challenge: the right signature is not accepted after a wrong one either
    late = await thief.ask(rq.Prove(signature=key.sign(PROVE_CONTEXT + welcome["challenge"])))
    assert late["t"] == "error" and late["code"] == "bad_message", late
    for ask in (rq.Resume(table=table), rq.Join(table=table)):
        reply = await thief.ask(ask)
        assert reply["t"] == "error" and reply["code"] in ("bad_token", "already_started")
    await thief.close()


async def test_a_signature_replayed_from_another_connection_is_refused(url):
    key = Ed25519PrivateKey.generate()
    watcher, welcome = await hello(url, "Ann", key)
    signature = key.sign(PROVE_CONTEXT + welcome["challenge"])  # seen by an eavesdropper
    assert (await watcher.ask(rq.Prove(signature=signature)))["t"] == "proven"
    thief, _ = await hello(url, "Ann", key)
    refused = await thief.ask(rq.Prove(signature=signature))
    assert refused["t"] == "error" and refused["code"] == "bad_signature", refused
    await close_all(watcher, thief)


async def test_an_old_client_without_a_key_plays_as_before(url):
    old = await Client.connect(url)
    welcome = await old.ask(rq.Hello(v=PROTOCOL_VERSION, name="Old"))
    assert welcome["t"] == "welcome" and "challenge" not in welcome
    proved = await old.ask(rq.Prove(signature=bytes(64)))
    assert proved["t"] == "error" and proved["code"] == "bad_message"
    by_table = await old.ask(rq.Resume(table="nowhere"))
    assert by_table["t"] == "error" and by_table["code"] == "bad_token"
    await old.close()


async def played_game(url: str, name: str, key: Ed25519PrivateKey) -> Client:
    """`key`'s player has played a short game (two bots) to its end under `name`."""
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Short", seats=3, bots=2, variants=SHORT)))["table"]
    await host.close()
    player, _ = await proven(url, name, key)
    assert (await player.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
    await play_to_end(player)
    return player


async def test_a_name_belongs_to_the_first_identity_that_played_a_game_under_it(url):
    """One address owned 291 names in 5.5 s by sitting under each: sitting owns nothing now.
    A name is owned once its player has played a game to its end under it."""
    key = Ed25519PrivateKey.generate()
    _, sitting = await started_table(url, key)
    host = await Client.connect(url, "Host")
    other = (await host.ask(rq.Create(name="Other", seats=3, bots=1)))["table"]
    await host.close()
    namesake, _ = await proven(url, "Ann", Ed25519PrivateKey.generate())
    joined = await namesake.ask(rq.Join(table=other))
    assert joined["t"] == "joined", joined  # Ann only sits: her name is nobody's yet
    assert (await namesake.ask(rq.Leave()))["t"] == "left"
    await close_all(sitting, namesake)

    ann = await played_game(url, "Ann", key)
    for name in ("Ann", "ANN", "\u0410nn"):  # the name, and look-alikes of it (a Cyrillic A)
        # refused at hello, another key or none (it used to be welcomed, refused at join)
        for stranger in (public(Ed25519PrivateKey.generate()), None):
            client = await Client.connect(url)
            reply = await client.ask(rq.Hello(v=PROTOCOL_VERSION, name=name, key=stranger))
            assert reply["t"] == "error" and reply["code"] == "name_taken", (name, reply)
            assert "belongs to another player" in reply["message"]
            await client.close()
    owner, _ = await proven(url, "Ann", key)  # the owner sits anywhere under it
    assert (await owner.ask(rq.Join(table=other)))["t"] == "joined"
    await close_all(ann, owner)


@pytest.mark.parametrize("config", [{"names": NameRules(burst=2, every=3600.0)}], indirect=True)
async def test_one_address_comes_to_own_only_a_few_names(server: GotherServer, url):
    """Each name played to an end from one address: the first few are owned, the next one
    is not (it plays all the same, and anyone may take that name)."""
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    players = [await played_game(url, f"Ghoul{n}", key) for n, key in enumerate(keys)]
    owners = [server.names.owner(f"Ghoul{n}") for n in range(3)]
    assert owners == [identity_of(public(keys[0])), identity_of(public(keys[1])), None]
    squatter, _ = await proven(url, "Ghoul2", Ed25519PrivateKey.generate())
    host = await Client.connect(url, "Host")
    table = (await host.ask(rq.Create(name="Other", seats=3, bots=1)))["table"]
    assert (await squatter.ask(rq.Join(table=table)))["t"] == "joined"  # free to take
    await close_all(host, squatter, *players)


async def test_the_host_releases_a_name(config: ServerConfig):
    key = Ed25519PrivateKey.generate()
    first = GotherServer(config)
    await first.start()
    ann = await played_game(f"ws://127.0.0.1:{first.port}", "Ann", key)
    assert first.names.owner("Ann") == identity_of(public(key))
    await ann.close()
    await first.close()
    again = GotherServer(replace(config, port=0, release_names=("ann",)))
    await again.start()
    try:
        url = f"ws://127.0.0.1:{again.port}"
        host = await Client.connect(url, "Host")
        table = (await host.ask(rq.Create(name="New", seats=3, bots=1)))["table"]
        newcomer, _ = await proven(url, "Ann", Ed25519PrivateKey.generate())
        assert (await newcomer.ask(rq.Join(table=table)))["t"] == "joined"
        await close_all(host, newcomer)
    finally:
        await again.close()


def test_a_name_unused_for_the_kept_days_is_free_again(tmp_path):
    now = [1_000_000.0]
    names = Names(SqliteStore(str(tmp_path / "games.db")).people, clock=lambda: now[0])
    names.played("Ann", "first", "192.0.2.7", share=1.0)
    names.check("Ann", "first")
    with pytest.raises(ProtocolError) as refused:
        names.check("\u0410nn", "second")
    assert refused.value.code == "name_taken"
    now[0] += NAME_KEPT_DAYS * 86400 + 1
    names.check("Ann", "second")  # long unused: anyone may take it
    names.played("Ann", "second", "192.0.2.8", share=1.0)
    assert names.owner("ANN") == "second"


def test_a_name_is_owned_for_a_game_its_player_played_mostly_and_a_few_an_address():
    now = [1_000_000.0]
    rules = NameRules(burst=3, every=4 * 3600.0)
    names = Names(SqliteStore(":memory:").people, clock=lambda: now[0], rules=rules)
    names.played("Covered", "id-c", "192.0.2.7", share=0.4)  # a bot played most of it
    assert names.owner("Covered") is None
    for n in range(5):  # one address, five identities, a game each
        names.played(f"Squat{n}", f"id-{n}", "192.0.2.7", share=1.0)
    assert [names.owner(f"Squat{n}") for n in range(5)] == ["id-0", "id-1", "id-2", None, None]
    names.played("Squat0", "id-0", "192.0.2.7", share=1.0)  # its own again: costs nothing
    names.played("Elsewhere", "id-e", "2001:db8:1:2::1", share=1.0)  # another address
    assert names.owner("Elsewhere") == "id-e"
    for n in range(2):  # an IPv6 /64 is one address
        names.played(f"Six{n}", f"id-six{n}", f"2001:db8:1:2::{n + 5}", share=1.0)
    assert [names.owner(f"Six{n}") for n in range(2)] == ["id-six0", "id-six1"]
    names.played("Six2", "id-six2", "2001:db8:1:2:ffff::9", share=1.0)
    assert names.owner("Six2") is None
    now[0] += rules.every  # one more, every few hours
    names.played("Squat3", "id-3", "192.0.2.7", share=1.0)
    names.played("Squat4", "id-4", "192.0.2.7", share=1.0)
    assert [names.owner("Squat3"), names.owner("Squat4")] == ["id-3", None]


KEY = Ed25519PrivateKey.generate()


@given(challenge=st.binary(min_size=32, max_size=32), flip=st.integers(0, 64 * 8 - 1))
def test_a_signature_with_any_bit_changed_proves_nothing(challenge: bytes, flip: int):
    signature = KEY.sign(PROVE_CONTEXT + challenge)
    assert proves(public(KEY), challenge, signature)
    bent = bytearray(signature)
    bent[flip // 8] ^= 1 << (flip % 8)
    assert not proves(public(KEY), challenge, bytes(bent))


@given(key=st.binary(min_size=32, max_size=32), signature=st.binary(min_size=64, max_size=64))
def test_made_up_keys_and_signatures_prove_nothing(key: bytes, signature: bytes):
    assert not proves(key, bytes(32), signature)  # never raises: an invalid key is a refusal


async def test_an_identity_resumes_its_seat_just_after_the_game_ends_and_votes_the_rematch(url):
    """Issue 29: after game over the token still opened the seat but the identity got
    `bad_token`, so a client relying on its identity lost its table and the rematch."""
    key = Ed25519PrivateKey.generate()
    host = await Client.connect(url, "Host")
    request = rq.Create(name="Crypt", seats=3, bots=2, variants=Variants(round_cap=1))
    table = (await host.ask(request))["table"]
    await host.close()
    ann, _ = await proven(url, "Ann", key)
    assert (await ann.ask(rq.Join(table=table, seat=0)))["t"] == "joined"
    final = await play_to_end(ann)
    assert final["phase"] == "over"
    await ann.close()

    back, reply = await proven(url, "Ann", key)
    assert reply["seats"] == [{"table": table, "seat": 0}]
    joined = await back.ask(rq.Resume(table=table))
    assert joined["t"] == "joined" and joined["seat"] == 0, joined
    voted = await back.ask(rq.Rematch())
    assert voted["t"] == "state", voted
    again, _ = await proven(url, "Ann", key)  # `join` of one's own table: the seat again
    assert (await again.ask(rq.Join(table=table)))["seat"] == 0
    await close_all(back, again)


async def test_the_seats_held_come_games_in_play_first_each_kind_newest_first(url):
    """A client goes back to the first seat `proven` lists: the game being played, the
    newest of them (a tournament's next round, seated while its player was away), before
    a game over whose table still stands."""
    key = Ed25519PrivateKey.generate()
    oldest, ann = await started_table(url, key)
    await ann.close()
    host = await Client.connect(url, "Host")
    request = rq.Create(name="Crypt", seats=3, bots=2, variants=Variants(round_cap=1))
    over = (await host.ask(request))["table"]
    await host.close()
    ann, _ = await proven(url, "Ann", key)
    assert (await ann.ask(rq.Join(table=over, seat=0)))["t"] == "joined"
    assert (await play_to_end(ann))["phase"] == "over"
    await ann.close()
    newest, ann = await started_table(url, key)
    await ann.close()

    back, reply = await proven(url, "Ann", key)
    tables = [held["table"] for held in reply["seats"]]
    assert tables == [newest, oldest, over], (tables, newest, oldest, over)
    await back.close()


def test_serve_help_states_what_a_name_costs(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    rules = NameRules()
    every = f"{rules.every / 3600:g} hours"
    assert f"one address comes to own {rules.burst}, then one every {every}" in shown
    assert f"unplayed for {NAME_KEPT_DAYS} days" in shown
