"""A state's websocket frame, built by the server itself (server/edge/frames.py): the same
bytes websockets would have written, at every length form of RFC 6455 §5.2."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from server.edge.frames import binary_frame


def websockets_frame(payload: bytes) -> bytes:
    return Frame(Opcode.BINARY, payload).serialize(mask=False)


def test_every_length_form_is_the_frame_websockets_writes():
    for length in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        payload = bytes(range(256)) * (length // 256) + bytes(length % 256)
        assert binary_frame(payload) == websockets_frame(payload), length


@given(st.binary(max_size=70000))
def test_any_payload_is_framed_as_websockets_frames_it(payload):
    assert binary_frame(payload) == websockets_frame(payload)
