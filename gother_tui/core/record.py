"""Reading a game record written by `gother export` (msgpack) for `gother replay`.

The client never runs the engine: a record carries `views`, the referee's view after the
deal and after every move, and the replay only shows them. A record asked for one seat also
carries `seen`, that seat's own views (the server builds them with the engine's `view`, as it
built the frames that seat received live): a replay without spoilers shows those.

The record is parsed whole into typed values, each view as the protocol's `View` (validated
as every `state` is), so a wrong file gives one clear sentence naming the field at fault
(RecordError), never a traceback.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import msgpack
import msgspec

from gother_tui.core.fetch import RATE_LIMITED_TRIES, RATE_LIMITED_WAIT, Ask, asking
from gother_tui.core.trust import Trust
from protocol import PROTOCOL_VERSION, ProtocolError, record
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import convert

MAX_RECORD = 64 * 1024 * 1024  # bytes: a game record is a few hundred kB


class RecordError(ValueError):
    pass


class GameRecord(record.GameRecord, frozen=True):
    """The protocol's game record (protocol/record.py), with what a replay asks of it."""

    @property
    def name(self) -> str:
        return self.table.name or self.table.id or "a game"

    def turn_starts(self) -> tuple[int, ...]:
        """The position where each turn begins: turn T (from 1) at `turn_starts()[T - 1]`;
        the deal begins turn 1, and a turn ends when the move passes to the next seat."""
        starts, last = [], None
        for index, view in enumerate(self.views):
            if (view.round, view.turn) != last:
                starts.append(index)
                last = (view.round, view.turn)
        return tuple(starts)

    def turn_of(self, index: int) -> int:
        """The turn (from 1) that position `index` belongs to."""
        return sum(1 for start in self.turn_starts() if start <= index)

    def turn_position(self, turn: int) -> int:
        """Where turn `turn` (from 1) begins; RecordError past the game's last turn."""
        starts = self.turn_starts()
        if not 1 <= turn <= len(starts):
            raise RecordError(f"the game has turns 1-{len(starts)}, not {turn}")
        return starts[turn - 1]

    def round_starts(self) -> tuple[int, ...]:
        """The position where each round begins (the deal begins round 1)."""
        views = self.views
        return tuple(i for i, v in enumerate(views) if i == 0 or v.round != views[i - 1].round)


class Reference(msgspec.Struct, frozen=True):
    """A place in a finished game a player can paste to a friend:
    `ws://HOST:PORT/TABLE/GAME#seat2-turn31` (seat and turn counted from 1, as the table
    screen numbers them; the fragment and the game may be left out)."""

    url: str  # the server's address, without the path
    table: str
    game: int | None = None
    seat: int | None = None  # from 0, as on the wire
    turn: int | None = None  # from 1

    def __str__(self) -> str:
        text = f"{self.url}/{quote(self.table, safe='')}"
        if self.game is not None:
            text += f"/{self.game}"
        marks = [] if self.seat is None else [f"seat{self.seat + 1}"]
        marks += [] if self.turn is None else [f"turn{self.turn}"]
        return text + ("#" + "-".join(marks) if marks else "")


REFERENCE = re.compile(
    r"(?P<url>wss?://[^/#]+)/(?P<table>[^/#]+)(?:/(?P<game>[1-9][0-9]{0,6}))?/?"
    r"(?:#(?:seat(?P<seat>[1-9][0-9]?))?-?(?:turn(?P<turn>[1-9][0-9]{0,5}))?)?"
)


def parse_reference(text: str) -> Reference | None:
    """The reference `text` names (None: it is a bare server address or not a reference);
    RecordError when it looks like one but a part is wrong."""
    found = REFERENCE.fullmatch(text.strip())
    if found is None:
        if re.fullmatch(r"wss?://[^/#]+/?", text.strip()) or not text.startswith(("ws:", "wss:")):
            return None
        raise RecordError(
            f"{text!r} is not a replay reference (ws://HOST:PORT/TABLE/GAME#seat2-turn31)"
        )
    seat, turn, game = found["seat"], found["turn"], found["game"]
    return Reference(
        url=found["url"],
        table=unquote(found["table"]),
        game=None if game is None else int(game),
        seat=None if seat is None else int(seat) - 1,
        turn=None if turn is None else int(turn),
    )


def fetch_record(
    url: str,
    table: str,
    game: int | None = None,
    password: str | None = None,
    name: str = "Replay",
    seat: int | None = None,
    server_password: str | None = None,
    door: str | None = None,
    trust: Trust | None = None,
) -> GameRecord:
    """A finished game's record from the server at `url` (`record` requests, one part at a
    time), with `seat`'s own views if asked; RecordError with one sentence when it cannot be
    had. `password` is the table's; `server_password` the server's, said in hello; `door`
    the claim a door handed this client, sent on the handshake as the client's own is;
    `trust` the wss:// certificates trusted, as `gother join` trusts them."""
    hello = rq.Hello(v=PROTOCOL_VERSION, name=name, password=server_password)

    async def record(ask: Ask) -> GameRecord:
        return await ask_record(ask, table, game, seat, password)

    return asking(url, hello, RecordError, "the record", record, door, trust)


async def ask_record(
    ask: Callable[[rq.Record], Awaitable[object]],
    table: str,
    game: int | None = None,
    seat: int | None = None,
    password: str | None = None,
) -> GameRecord:
    """A finished game's record asked part by part of `ask`, a client's own way of asking
    on the connection it has (so with its certificate, password and identity), with
    `seat`'s own views if asked. A part refused for the rate of dear ones is asked again a
    moment later; any other refusal, or no answer, is a RecordError with one sentence."""
    parts: list[bytes] = []
    while True:
        request = rq.Record(table=table, game=game, password=password, seat=seat, part=len(parts))
        for _ in range(RATE_LIMITED_TRIES):  # a long record outruns a connection's budget
            reply = await ask(request)
            if not (isinstance(reply, sm.Error) and reply.code == "rate_limited"):
                break
            await asyncio.sleep(RATE_LIMITED_WAIT)
        if isinstance(reply, sm.Error):
            raise RecordError(f"the server refused: {reply.message}")
        if not isinstance(reply, sm.Record):
            raise RecordError("the server did not answer with a record")
        parts.append(reply.data)
        if len(parts) >= reply.parts or len(parts) * len(reply.data) > MAX_RECORD:
            return record_from_parts(parts)


def record_from_parts(parts: list[bytes]) -> GameRecord:
    """The record whose `record` parts' data are `parts`, in order."""
    try:
        data = msgpack.unpackb(b"".join(parts), raw=False, strict_map_key=False)
    except Exception:  # msgpack raises several kinds (ExtraData, FormatError, ValueError…)
        raise RecordError("the server's record is not msgpack") from None
    try:
        return parse_record(data)
    except RecordError as exc:
        raise RecordError(f"the server's record is not a game record: {exc}") from None


def load_record(path: str | Path) -> GameRecord:
    try:
        raw = Path(path).read_bytes()[: MAX_RECORD + 1]
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD:
        raise RecordError(f"{path} is too large for a game record")
    try:
        data = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except Exception:  # msgpack raises several kinds (ExtraData, FormatError, ValueError…)
        raise RecordError(f"{path} is not a game record (not msgpack)") from None
    try:
        return parse_record(data)
    except RecordError as exc:
        raise RecordError(f"{path} is not a game record: {exc}") from None


def parse_record(data: Any) -> GameRecord:
    try:
        record = convert(data, GameRecord, "record")
    except ProtocolError as exc:
        raise RecordError(exc.message) from None
    if not record.views:
        raise RecordError("it holds no views")
    if len(record.moves) != len(record.views) - 1:
        raise RecordError("its moves do not match its views")
    if (record.seat is None) != (record.seen is None):
        raise RecordError("it has a seat without its views, or views without a seat")
    if record.seen is not None and len(record.seen) != len(record.views):
        raise RecordError("its seat's views do not match its views")
    if record.seen is not None and any(v.seat != record.seat for v in record.seen):
        raise RecordError("its seat's views are not that seat's")
    return record
