"""No connection's frames hold up the rest, and every request is answered (issue 31 §3):
frames that arrive together (a client's backlog while the server was behind) are read one a
turn, the tables' timers and the other connections' frames in between; a request the server
fails on is answered `server_error`, and the connection goes on."""

from __future__ import annotations

import msgpack

from tests.kits.netkit import Client

BURST = 90  # frames sent in one write, under the rate limit's burst


async def test_frames_that_arrive_together_are_read_one_a_turn(server, url):
    """A table of bots moves between a burst's frames. Read all at once, a burst is one long
    turn of the loop, and a fuzz's backlogs held a table of bots to a move every few
    seconds (seq 14 after 133 s)."""
    client = await Client.connect(url, "Flooder")
    created = await client.request("create", name="Show", seats=3, bots=3)  # plays at once
    await client.request("watch", table=created["table"])
    await client.next(lambda m: m["t"] == "state" and m["view"]["phase"] != "lobby")
    protocol = client.ws.protocol
    for i in range(BURST):  # unreadable frames: each an error, and nothing else
        protocol.send_binary(msgpack.packb([i]))
    client.ws.transport.write(b"".join(protocol.data_to_send()))  # one write, read together
    errors = 0
    states_between = 0
    while errors < BURST:
        message = await client.next()
        if message["t"] == "error":
            assert message["code"] == "bad_frame", message
            errors += 1
        elif message["t"] == "state" and errors > 0:
            states_between += 1
    assert states_between > 0  # the bots' timer ran while the burst was read
    await client.close()


async def test_a_request_the_server_fails_on_is_answered_and_the_connection_goes_on(
    server, url, monkeypatch, caplog
):
    """A bug in a handler (made here: no request can make one on purpose) once ended the
    handler, closing the connection with its request unanswered."""

    def broken(offset: int = 0) -> None:
        raise RuntimeError("a bug in the listing")

    client = await Client.connect(url, "Lydia")
    monkeypatch.setattr(server.lobby, "listing", broken)
    reply = await client.request("list")
    assert reply["t"] == "error" and reply["code"] == "server_error" and reply["rid"], reply
    assert "a bug in the listing" in caplog.text  # the host's log says where
    monkeypatch.undo()
    assert (await client.request("list"))["t"] == "tables"  # the connection goes on
    await client.close()
