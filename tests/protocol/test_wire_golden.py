"""The views sent for a recorded game are byte-for-byte those recorded before the typed
view (issue 8). A deliberate change of the wire regenerates the file in its own commit,
saying which field changed and why (`python -m tests.protocol.wire_golden`)."""

from __future__ import annotations

import msgpack

from tests.protocol.wire_golden import frames, load


def test_recorded_frames_are_unchanged():
    recorded = load()
    made = frames()
    assert [label for label, _ in made] == [label for label, _ in recorded]
    for (label, frame), (_, before) in zip(made, recorded, strict=True):
        if frame != before:  # decoded, so a failure shows the field, not bytes
            assert msgpack.unpackb(frame) == msgpack.unpackb(before), label
            raise AssertionError(f"{label}: same content, different bytes (key order?)")
