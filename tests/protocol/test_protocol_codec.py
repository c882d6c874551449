"""The codec: the only decoder of received bytes. Whatever arrives, decode() returns a map
with a string `t` or raises ProtocolError("bad_frame") — never anything else."""

import math
import types

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgpack import fallback

from protocol import MAX_DEPTH, MAX_FRAME, ProtocolError, decode, encode


def assert_bad_frame(data: object) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(data)  # type: ignore[arg-type]
    assert caught.value.code == "bad_frame"
    return caught.value


HEAD = b"\x82\xa1t\xa1x\xa1a"  # {"t": "x", "a": ... — level 1 of a well-formed message


def nested_arrays(depth: int) -> bytes:
    """{"t": "x", "a": [[...[nil]...]]}, `depth` levels in all, built byte by byte."""
    return HEAD + b"\x91" * (depth - 1) + b"\xc0"


def nested_maps(depth: int) -> bytes:
    """{"t": "x", "a": {"a": ...{"a": nil}}}, `depth` levels in all."""
    return HEAD + b"\x81\xa1a" * (depth - 1) + b"\xc0"


# --- round trips -------------------------------------------------------------------------


def test_round_trip_keeps_every_wire_type() -> None:
    msg = {
        "t": "state",
        "seq": 7,
        "view": {
            "none": None,
            "yes": True,
            "big": 2**63,
            "neg": -5,
            "half": 0.5,
            "name": "Ærsë 🦇",
            "raw": b"\x00\xff",
            "list": [1, [2, [3]]],
        },
    }
    assert decode(encode(msg)) == msg


def test_encode_packs_bytes_as_bin_and_accepts_any_mapping() -> None:
    frame = encode(types.MappingProxyType({"t": "x", "b": b"\x01"}))
    assert b"\xc4\x01\x01" in frame  # bin 8 header: use_bin_type is on
    assert decode(frame) == {"t": "x", "b": b"\x01"}


def test_encode_refuses_a_frame_the_peer_would_reject() -> None:
    with pytest.raises(ProtocolError) as caught:
        encode({"t": "chat", "text": "x" * MAX_FRAME})
    assert caught.value.code == "bad_frame"


def test_frame_of_exactly_max_size_is_accepted() -> None:
    head = encode({"t": "chat", "text": ""})
    # str 16 header (3 bytes) replaces the 1-byte fixstr header of the empty text.
    text = "x" * (MAX_FRAME - len(head) - 2)
    frame = encode({"t": "chat", "text": text})
    assert len(frame) == MAX_FRAME
    assert decode(frame)["text"] == text


# --- what is not a message frame ---------------------------------------------------------


@pytest.mark.parametrize("data", ["{}", bytearray(b"\x80"), memoryview(b"\x80"), None, 128])
def test_non_bytes_rejected(data: object) -> None:
    assert_bad_frame(data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\xc1", id="reserved-byte"),
        pytest.param(b"\x82\xa1t\xa1x", id="truncated-map"),
        pytest.param(b"\x81\xa1t\xa1x\x80", id="trailing-data"),
        pytest.param(b"\x81\xa1t\xa1\xff", id="invalid-utf8"),
        pytest.param(b"\xdd\xff\xff\xff\xff", id="array-declaring-4G-items"),
        pytest.param(b"\xdf\xff\xff\xff\xff", id="map-declaring-4G-entries"),
        pytest.param(b"\xdb\xff\xff\xff\xffabc", id="str-declaring-4GB"),
        pytest.param(b"\x90", id="array-not-map"),
        pytest.param(b"\xa1t", id="str-not-map"),
        pytest.param(b"\x80", id="map-without-t"),
        pytest.param(b"\x81\xa1t\x01", id="int-t"),
        pytest.param(b"\x81\xa1t\xc4\x01x", id="bin-t"),
        pytest.param(b"\x81\xa1t\xc0", id="nil-t"),
    ],
)
def test_malformed_frames_rejected(data: bytes) -> None:
    assert_bad_frame(data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\x82\xa1t\xa1x\x01\x02", id="int-key"),
        pytest.param(b"\x82\xa1t\xa1x\xc0\x02", id="nil-key"),
        pytest.param(b"\x82\xa1t\xa1x\xc4\x01k\x02", id="bin-key"),
        pytest.param(b"\x82\xa1t\xa1x\xa1m\x81\x01\x02", id="nested-int-key"),
        pytest.param(b"\x82\xa1t\xa1x\xa1m\x91\x81\xc4\x01k\x02", id="bin-key-in-array"),
        pytest.param(b"\x82\xa1t\xa1x\x80\x02", id="map-key"),
    ],
)
def test_non_string_map_keys_rejected(data: bytes) -> None:
    assert_bad_frame(data)


@pytest.mark.parametrize(
    "ext",
    [
        pytest.param(b"\xd4\x05\x00", id="fixext1"),
        pytest.param(b"\xc7\x03\x05abc", id="ext8"),
        pytest.param(b"\xc7\x00\x05", id="empty-ext8"),
        # Type -1 is msgpack's timestamp, decoded without calling ext_hook.
        pytest.param(b"\xd6\xff\x00\x00\x00\x00", id="timestamp32"),
        pytest.param(b"\xd7\xff" + bytes(8), id="timestamp64"),
        pytest.param(b"\xc7\x0c\xff" + bytes(12), id="timestamp96"),
        pytest.param(b"\xd6\xff\x00\x00", id="truncated-timestamp"),
    ],
)
def test_extension_types_rejected_at_any_depth(ext: bytes) -> None:
    assert_bad_frame(b"\x82\xa1t\xa1x\xa1e" + ext)
    assert_bad_frame(b"\x82\xa1t\xa1x\xa1e\x91\x81\xa1k" + ext)
    assert_bad_frame(ext)


# --- depth ---------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [nested_arrays, nested_maps])
def test_nesting_up_to_the_limit_is_accepted(build) -> None:
    value = decode(build(MAX_DEPTH))["a"]
    for _ in range(MAX_DEPTH - 1):
        assert isinstance(value, list | dict)
        value = value[0] if isinstance(value, list) else value["a"]
    assert value is None


@pytest.mark.parametrize("build", [nested_arrays, nested_maps])
def test_one_level_too_deep_is_rejected(build) -> None:
    error = assert_bad_frame(build(MAX_DEPTH + 1))
    assert "deeper" in error.message


# The C unpacker decodes up to 1024 levels (deep enough to break any recursive walk) and
# raises StackError from 1025; 10_000 is far beyond both.
@pytest.mark.parametrize("depth", [995, 1024, 1025, 10_000])
@pytest.mark.parametrize("build", [nested_arrays, nested_maps])
def test_deep_nesting_rejected(depth: int, build) -> None:
    error = assert_bad_frame(build(depth))
    # Deeper than the C unpacker's own stack it is msgpack that refuses, hence no "deeper".
    assert depth > 1024 or "deeper" in error.message


@pytest.mark.parametrize("depth", [1024, 10_000])
def test_deep_nesting_rejected_by_pure_python_msgpack_too(monkeypatch, depth: int) -> None:
    # Without its C extension msgpack recurses in Python and turns RecursionError into
    # StackError; decode must still answer bad_frame.
    monkeypatch.setattr(msgpack, "unpackb", fallback.unpackb)
    assert_bad_frame(nested_maps(depth))
    assert decode(nested_maps(2)) == {"t": "x", "a": {"a": None}}


def test_oversized_frame_rejected_before_unpacking() -> None:
    # A valid message, one byte too long: only the size can be the reason.
    head = encode({"t": "chat", "text": ""})
    big = msgpack.packb({"t": "chat", "text": "x" * (MAX_FRAME - len(head) - 1)})
    assert len(big) == MAX_FRAME + 1
    error = assert_bad_frame(big)
    assert str(MAX_FRAME) in error.message
    assert_bad_frame(b"\x80" * (16 * MAX_FRAME))


# --- properties ----------------------------------------------------------------------------


@given(st.binary(max_size=4096))
def test_arbitrary_bytes_give_a_map_or_bad_frame(data: bytes) -> None:
    try:
        msg = decode(data)
    except ProtocolError as error:
        assert error.code == "bad_frame"
    else:
        assert isinstance(msg, dict)
        assert isinstance(msg["t"], str)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
extensions = st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8)) | st.builds(
    msgpack.Timestamp, st.integers(0, 2**32 - 1)
)
keys = st.text(max_size=8) | st.integers(-5, 5) | st.binary(max_size=4)


def wrapped(inner: st.SearchStrategy) -> st.SearchStrategy:
    """Nest a value a random number of levels deep, straddling MAX_DEPTH."""

    def wrap(value: object, shape: list[bool]) -> object:
        for as_map in shape:
            value = {"k": value} if as_map else [value]
        return value

    return st.builds(wrap, inner, st.lists(st.booleans(), max_size=MAX_DEPTH + 3))


def trees(leaves: st.SearchStrategy, map_keys: st.SearchStrategy) -> st.SearchStrategy:
    return st.recursive(
        leaves,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(map_keys, children, max_size=4)
            | wrapped(children)
        ),
        max_leaves=20,
    )


def messages(map_keys: st.SearchStrategy, fields: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        lambda t, rest: {**rest, "t": t},
        st.text(max_size=10),
        st.dictionaries(map_keys, fields, max_size=4),
    )


# Plain trees are mostly acceptable; the others mostly not, for one reason or several.
plain = trees(scalars, st.text(max_size=8))
anything = trees(scalars | extensions, keys)
frames_values = messages(st.text(max_size=8), plain) | messages(keys, anything) | anything


def depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def acceptable(value: object) -> bool:
    """An independent statement of what decode() accepts."""

    def plain(item: object) -> bool:
        if isinstance(item, dict):
            return all(type(k) is str for k in item) and all(map(plain, item.values()))
        if isinstance(item, list):
            return all(map(plain, item))
        return not isinstance(item, msgpack.ExtType | msgpack.Timestamp)

    return (
        isinstance(value, dict)
        and isinstance(value.get("t"), str)
        and depth(value) <= MAX_DEPTH
        and plain(value)
    )


@given(frames_values)
def test_structured_msgpack_decodes_exactly_when_acceptable(value: object) -> None:
    frame = msgpack.packb(value, use_bin_type=True)
    if acceptable(value):
        assert decode(frame) == value
    else:
        assert_bad_frame(frame)


@given(frames_values, st.booleans(), st.data())
def test_damaged_msgpack_gives_a_map_or_bad_frame(value: object, bin_type: bool, data) -> None:
    frame = bytearray(msgpack.packb(value, use_bin_type=bin_type))
    cut = data.draw(st.integers(0, len(frame)))
    junk = data.draw(st.binary(max_size=4))
    for i in data.draw(st.lists(st.integers(0, max(len(frame) - 1, 0)), max_size=3)):
        frame[i] ^= 0xFF
    try:
        msg = decode(bytes(frame[:cut] + junk + frame[cut:]))
    except ProtocolError as error:
        assert error.code == "bad_frame"
    else:
        assert isinstance(msg, dict)
        assert isinstance(msg["t"], str)
        assert depth(msg) <= MAX_DEPTH


def test_floats_survive_as_floats() -> None:
    # Validation, not the codec, decides where floats are wrong; the codec keeps them.
    msg = decode(encode({"t": "x", "f": math.inf}))
    assert msg["f"] == math.inf
