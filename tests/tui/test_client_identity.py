"""The full-screen client's lasting identity against a real server (issue 18, item 2): a
player who quits and runs the same command is back in their seat, even when the seat
tokens are gone (a door that keeps only the key, a wiped seat file): the key kept in the
state folder proves who they are, and no token step is ever asked of them."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from gother_tui.core.identity import file_for
from gother_tui.core.seat_store import SeatStore
from protocol import requests as rq
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from tests.edge.test_identity import proven, public
from tests.kits.netkit import Client
from tests.kits.tournamentkit import LEAVE
from tests.kits.tournamentkit import until as until_told
from tests.tournament.test_tournament_night import create, finish, register
from tests.tui.clientkit import notices, until
from tests.tui.test_client_live import client, create_through_the_lobby


async def test_quitting_and_running_again_without_the_tokens_is_back_in_the_seat(
    live_server, store: SeatStore
):
    first = client(live_server, store)
    async with first.run_test(size=(80, 24)) as pilot:
        await create_through_the_lobby(pilot)
        seat, table = first.seat, first.table_id
    store.path.unlink()  # the tokens are gone; the key (beside them, by name) is not
    assert (store.path.parent / file_for(first.options.name)).exists()

    again = client(live_server, SeatStore(store.path))
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: again.view and again.view.legal is not None, "the seat")
        assert (again.seat, again.table_id) == (seat, table)
        assert again.view.players[seat].connected
        assert not [text for text in notices(pilot) if "token" in text]


async def test_another_key_under_the_same_name_is_not_given_the_seat(
    live_server, store: SeatStore, tmp_path
):
    first = client(live_server, store)
    async with first.run_test(size=(80, 24)) as pilot:
        await create_through_the_lobby(pilot)
        table = first.table_id
    # a name is owned once its key has played a game under it to the end (issue 31 §2): here
    # the server is told so as a finished game would tell it
    (holder,) = [h for h in live_server.lobby.find(table).seats if h is not None and h.identity]
    live_server.names.played(holder.name, holder.identity, holder.address, share=1.0)
    stranger = client(live_server, SeatStore(tmp_path / "stranger" / "seats.json"), table=table)
    async with stranger.run_test(size=(80, 24)) as pilot:
        # the name is the first key's: the server says so at hello (the connecting screen
        # and a notice), and the stranger sits nowhere
        told = await until(pilot, lambda: [n for n in notices(pilot) if "belongs to" in n])
        assert "belongs to" in stranger.link_detail and stranger.seat is None
        assert not [text for text in told if "token" in text]  # nothing a person cannot do


async def test_back_after_the_next_tournament_round_was_seated_is_at_the_new_table(tmp_path):
    """A player who leaves during round 1 of a two-round tournament and comes back once
    round 2 has seated them sits down at round 2's table, not at round 1's, finished and
    still standing (the seat file's newest token is round 1's: the identity's newest seat,
    told in `proven`, goes first)."""
    config = ServerConfig(
        host="127.0.0.1", port=0, db=str(tmp_path / "games.db"), bot_delay=0.0, grace=0.1
    )  # a bot covers an absent player's seat at once
    config.tournament_password, config.tournament_entries_per_address = LEAVE, 100
    server = GotherServer(config)
    await server.start()
    store = SeatStore(tmp_path / "ann" / "seats.json")
    key = store.key("Ann")  # the key her client plays under, made as it makes it
    private = load_pem_private_key((store.path.parent / file_for("Ann")).read_bytes(), None)
    assert isinstance(private, Ed25519PrivateKey) and key.public == public(private)
    url = f"ws://127.0.0.1:{server.port}"
    host = await Client.connect(url, "Host")
    tournament = (await create(host, rounds=2, seats=3))["id"]
    ann, _ = await proven(url, "Ann", private)
    await ann.ask(rq.TournamentJoin(tournament=tournament))
    (bob,) = await register(url, tournament, ["Bob"])
    bob.plays_rounds = 1  # round 2 waits on him: it is still being played when Ann is back
    started = await host.ask(rq.TournamentStart(tournament=tournament))
    (round_1,) = [t["table"] for t in started["tables"]]
    await ann.close()  # seated at round 1, she goes; her own client takes the seat back

    first = client(server, store, name="Ann")
    async with first.run_test(size=(80, 24)) as pilot:  # her seat, by her identity
        await until(pilot, lambda: first.view and first.view.table.id == round_1, "round 1")
    saved = store.find(first.options.url)
    assert saved is not None and saved[0] == round_1
    # she is away: a bot covers her seat, round 1 ends, round 2 is seated without her
    news = await until_told(host, lambda m: m["t"] == "tournament" and m["round"] == 2)
    (round_2,) = [t["table"] for t in news["tables"]]

    back = client(server, store, name="Ann")
    async with back.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: back.view is not None, "a table")
        assert back.view.table.id == round_2 and back.view.phase != "over"
        assert back.view.players[back.seat].name == "Ann" and not back.view.players[back.seat].bot
    assert server.lobby.find(round_1).outcome is not None  # over: she was not sent there
    await finish(host, [bob])
    await server.close()
