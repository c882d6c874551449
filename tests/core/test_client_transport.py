"""The websocket transport against a tiny server in the test's loop: frames decoded, an
unreadable frame reported, the close code kept, a refused connection a TransportError, and
the socket let go of even when closing is cut short."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import re
import socket
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

import gother_tui
import server.game.state
from gother_tui.core.transport import TransportError, WebSocketTransport
from protocol import MAX_FRAME, ProtocolError, decode, encode
from protocol.requests import Hello, List


async def test_frames_are_decoded_bad_ones_reported_and_the_close_code_kept():
    received: list[dict] = []

    async def handler(ws: ServerConnection) -> None:
        received.append(decode(await ws.recv()))  # type: ignore[arg-type]
        await ws.send(b"\xc1")  # never valid msgpack
        await ws.send(encode({"t": "welcome", "v": 1, "server": "tiny"}))
        await ws.close(4000, "seat resumed from another connection")

    async with serve(handler, "127.0.0.1", 0, max_size=MAX_FRAME, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        transport = WebSocketTransport(f"ws://127.0.0.1:{port}")
        await transport.connect()
        await transport.send(Hello(v=1, name="Raven"))
        frames = [frame async for frame in transport.messages()]
        await transport.close()
    assert received == [{"t": "hello", "v": 1, "name": "Raven"}]
    bad, welcome = frames  # the unreadable frame is reported, and the connection goes on
    assert isinstance(bad, ProtocolError) and bad.code == "bad_frame"
    assert welcome == {"t": "welcome", "v": 1, "server": "tiny"}
    assert transport.close_code == 4000
    assert transport.close_reason == "seat resumed from another connection"
    with pytest.raises(TransportError):
        await transport.send(List())


async def test_a_refused_connection_is_a_transport_error():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError):
        await WebSocketTransport(f"ws://127.0.0.1:{port}").connect()


async def test_a_close_cut_short_still_lets_go_of_the_socket():
    """`gother play` quit slowly: the exiting app's event loop ended while its close
    handshake waited for the server, the socket stayed open in the process, and the server
    in that same process waited its whole close timeout (10 s) for it. Here the client's
    loop ends mid-close (the server is not reading, so it cannot answer); the server must
    then see the connection end at once, well inside that timeout."""
    reading = asyncio.Event()
    ended = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        ws.transport.pause_reading()  # deaf until the client's loop is gone
        await reading.wait()
        ws.transport.resume_reading()
        await ws.wait_closed()
        ended.set()

    def client(url: str) -> None:
        async def quit_mid_close() -> None:
            transport = WebSocketTransport(url)
            await transport.connect()
            with contextlib.suppress(TimeoutError):  # the app exits before any answer
                await asyncio.wait_for(transport.close(), 0.2)

        asyncio.run(quit_mid_close())

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        await asyncio.to_thread(client, f"ws://127.0.0.1:{port}")
        reading.set()
        await asyncio.wait_for(ended.wait(), 5)


async def test_nothing_listening_is_said_in_words_not_errno():
    """A refused connection reads as what it means and what to do, never "[Errno 111]"."""
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"ws://127.0.0.1:{port}"
    with pytest.raises(TransportError) as caught:
        await WebSocketTransport(url).connect()
    assert str(caught.value) == f"nothing is listening at {url} — is the server running?"
    assert "Errno" not in str(caught.value)


def _strings(path: Path) -> list[str]:
    """The string constants of a module, docstrings and comments left out."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_rule_ids_never_reach_a_player():
    """Messages are for players: "(R12)" means nothing to them (docs/rules.md is for us)."""
    root = Path(gother_tui.__file__).parent
    for path in [*root.rglob("*.py"), Path(server.game.state.__file__)]:
        for text in _strings(path):
            assert not re.search(r"\(R\d+\)", text), f"{path.name}: a rule id in {text!r}"
