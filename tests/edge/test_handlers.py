"""Every request type has its handler: the dispatch matches on the protocol's `Request`
union (server/edge/dispatch.py `answer`, which mypy holds whole), and a request of each type gets
an answer of its own. Once a type missing from the handlers' list only raised `KeyError`
and closed the connection, with no answer at all."""

from __future__ import annotations

from typing import get_args

import msgspec

from protocol import PROTOCOL_VERSION, encode
from protocol import requests as rq
from protocol.constants import SIGNATURE_BYTES
from protocol.moves import Draw
from tests.kits.netkit import Client, close_all

# One request of every type, each asking something this server answers at once (most of
# them with a refusal: no such table, no seat, no tournaments here).
EACH: tuple[rq.Request, ...] = (
    rq.Hello(v=PROTOCOL_VERSION, name="Again"),  # said already: refused
    rq.Prove(signature=bytes(SIGNATURE_BYTES)),
    rq.List(),
    rq.Create(name="Every", seats=3, bots=0),
    rq.Join(table="nosuch"),
    rq.Resume(table="nosuch"),
    rq.Watch(table="nosuch"),
    rq.Start(),
    rq.Play(move=Draw("deck")),
    rq.Chat(text="anyone?"),
    rq.Hint(),
    rq.Leave(),
    rq.Rematch(),
    rq.Pause(on=True),
    rq.End(),
    rq.Record(table="nosuch"),
    rq.Review(table="nosuch", seat=0),
    rq.PlayOn(table="nosuch", seat=0, turn=1),
    rq.TournamentCreate(name="Cup", rounds=1, seats=3),
    rq.TournamentJoin(tournament="nosuch"),
    rq.TournamentStart(tournament="nosuch"),
    rq.TournamentDrop(tournament="nosuch"),
    rq.TournamentWatch(tournament="nosuch"),
    rq.Standings(),
)


def test_the_list_above_has_one_request_of_every_type():
    assert sorted(type(r).__name__ for r in EACH) == sorted(
        t.__name__ for t in get_args(rq.Request)
    )


async def test_a_request_of_every_type_is_answered_and_the_connection_stays(server, url):
    client = await Client.connect(url, "Every")
    for rid, request in enumerate(EACH, 1):
        await client.ws.send(encode(msgspec.structs.replace(request, rid=rid)))
        answer = await client.next(lambda m, rid=rid: m.get("rid") == rid)
        assert "unknown message type" not in answer.get("message", ""), answer
    assert client.ws.close_code is None  # no request closed it
    await close_all(client)
