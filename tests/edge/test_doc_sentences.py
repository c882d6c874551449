"""The refusals docs/protocol.md quotes are what the server sends for that input (issue 33
§3): clients branch on the code, people read the sentence, and the doc is where outside
clients learn both. Sent as raw maps over a real connection, as an outside client would.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from protocol import PROTOCOL_VERSION
from protocol.requests import TYPES
from tests.kits.netkit import Client, close_all

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# Each refusal the doc quotes: its code, and a frame that draws it from a greeted client.
QUOTED: dict[str, tuple[str, dict[str, Any]]] = {
    "create.seats: must be between 2 and 6, got 9": (
        "bad_message",
        {"t": "create", "name": "The Crypt", "seats": 9, "bots": 0},
    ),
    "move.move.give[1][0]: must be an integer, got string": (
        "bad_message",
        {"t": "move", "move": {"kind": "distribute", "give": [[0, 22], ["1", 3]]}},
    ),
    "list: unknown field 'colour'": ("bad_message", {"t": "list", "colour": "black"}),
    "move.move: unknown field 'card'": (
        "bad_message",
        {"t": "move", "move": {"kind": "draw", "source": "deck", "card": 3}},
    ),
    "hello: already said": ("bad_message", {"t": "hello", "v": PROTOCOL_VERSION, "name": "Ann"}),
}
# Quoted for a connection's first frame, its hello.
QUOTED_FIRST = {
    "server speaks protocol 1, client sent 2": (
        "bad_version",
        {"t": "hello", "v": 2, "name": "Ann"},
    ),
}


def doc_text() -> str:
    return " ".join(DOC.read_text().split())  # a quote may wrap across lines


def quoted_refusals() -> set[str]:
    """The doc's `<request>.<field>: what is wrong` quotes, in backticks: what the
    validation section shows."""
    spans = re.findall(r"`([a-z_]+(?:\.\w+|\[\d+\])*): ([^`]+)`", doc_text())
    return {
        f"{where}: {said}"
        for where, said in spans
        if re.split(r"[.\[]", where)[0] in TYPES and not VALUE.fullmatch(said)
    }


VALUE = re.compile(r'true|false|nil|-?\d+|"[^"]*"')  # `rematch: true` shows a field, no refusal


def test_every_refusal_the_doc_quotes_is_pinned_here() -> None:
    text = doc_text()
    for sentence in (*QUOTED, *QUOTED_FIRST):
        assert sentence in text, sentence
    assert quoted_refusals() <= set(QUOTED), quoted_refusals() - set(QUOTED)


@pytest.mark.parametrize("sentence", sorted(QUOTED))
async def test_the_server_sends_the_quoted_refusal(url: str, sentence: str) -> None:
    code, frame = QUOTED[sentence]
    client = await Client.connect(url, "Ann")
    reply = await client.request(frame.pop("t"), **frame)
    assert (reply["t"], reply["code"], reply["message"]) == ("error", code, sentence)
    await close_all(client)


@pytest.mark.parametrize("sentence", sorted(QUOTED_FIRST))
async def test_the_server_sends_the_quoted_refusal_of_a_first_frame(
    url: str, sentence: str
) -> None:
    code, frame = QUOTED_FIRST[sentence]
    client = await Client.connect(url)
    reply = await client.request(frame.pop("t"), **frame)
    assert (reply["t"], reply["code"], reply["message"]) == ("error", code, sentence)
    await close_all(client)
