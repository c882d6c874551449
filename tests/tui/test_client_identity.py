"""The full-screen client's lasting identity against a real server (issue 18, item 2): a
player who quits and runs the same command is back in their seat, even when the seat
tokens are gone (a door that keeps only the key, a wiped seat file): the key kept in the
state folder proves who they are, and no token step is ever asked of them."""

from __future__ import annotations

from gother_tui.core.identity import file_for
from gother_tui.core.seat_store import SeatStore
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
