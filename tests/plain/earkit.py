"""A seeded 4-seat game heard through `gother join --plain` from a pipe, and what a listener
hears of it: words per round, espeak-ng's phonemes and seconds. Used by the ear's tests
and by bench/plain.py.

The deal is seeded by fixing the seed a table draws for its game (server/tables/table.py draws
it from `secrets`, so that no one can guess it; a test wants the same deal every run).
The bots and the hint may still choose differently on a busy machine (the hint searches
for a time), so a round's words are a measure, not a fixed text.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import server.tables.table
from protocol import requests as rq
from protocol.view import Variants
from tests.kits.netkit import Client
from tests.plain.plainkit import PlainProcess, plain_env

SEED = 7
SEATS = 4
ROUND_CAP = 30  # a game that ends, whoever leads
YOUR_TURN = re.compile(r"^Round \d+: your turn\.$")
NEGATIVE = re.compile(r"(?<![\w-])[-\u2212]\d")  # a minus sign before a number
MINUS = "m'aIn@s"  # espeak-ng's phonemes for "minus"
ESPEAK_RATE = 22050 * 2  # bytes of espeak-ng's WAV a second (22050 Hz, 16 bits, mono)


@contextmanager
def seeded_deals(seed: int = SEED) -> Iterator[None]:
    """Every game dealt meanwhile is dealt from `seed`."""
    real = server.tables.table.secrets
    server.tables.table.secrets = types.SimpleNamespace(randbits=lambda bits: seed)  # type: ignore[assignment]
    try:
        yield
    finally:
        server.tables.table.secrets = real


def _choice(block: list[str]) -> str:
    """The option a simple player takes: the first (the hint, at a placement), but at a
    draw every card due from the draw pile at once."""
    if any(re.search(r"(^  |, )2:? (draw )?all\b", line) for line in block):
        return "2"
    return "1"


async def play_seeded(url: str, home: Path, *extra: str, looks: tuple[str, ...] = ()) -> list[str]:
    """A whole game of a 4-seat table (three bots) from a pipe: every line the client
    wrote. `extra`: more options of `gother join` (`--verbose`); `looks`: commands typed
    before the first decisions are answered, one a decision."""
    host = await Client.connect(url, "Host")
    variants = Variants(round_cap=ROUND_CAP)
    created = await host.ask(rq.Create(name="Crypt", seats=SEATS, bots=3, variants=variants))
    await host.close()
    args = ("join", url, "--plain", "--name", "Raven", "--table", created["table"], *extra)
    proc = await PlainProcess.start(*args, env=plain_env(home, LANG="C.UTF-8", TERM="dumb"))
    try:
        start, looking = 0, list(looks)
        while (await proc.until(r"^(Choose 1|Game over)")).group(1) == "Choose 1":
            end = proc.transcript.read
            await proc.type(*looking[:1], _choice(proc.transcript.lines[start:end]))
            start, looking = end, looking[1:]
        await proc.type("quit")
        await proc.until(r"^Goodbye\.$")
        assert await proc.wait() == 0
    finally:
        await proc.stop()
    return proc.transcript.lines


def rounds(lines: list[str]) -> list[list[str]]:
    """Each whole round of the transcript: from "your turn" to the next one."""
    starts = [i for i, line in enumerate(lines) if YOUR_TURN.match(line)]
    return [lines[a:b] for a, b in itertools.pairwise(starts)]


def words(lines: list[str]) -> int:
    return sum(len(line.split()) for line in lines)


def phonemes(text: str) -> str:
    """What espeak-ng says for `text`, as its phoneme mnemonics."""
    done = subprocess.run(
        ["espeak-ng", "-q", "-x", "--", text], capture_output=True, text=True, check=True
    )
    return done.stdout


def seconds(text: str) -> float:
    """How long espeak-ng takes to say `text`, at its own rate (175 words a minute)."""
    done = subprocess.run(["espeak-ng", "--stdout", "--", text], capture_output=True, check=True)
    return (len(done.stdout) - 44) / ESPEAK_RATE  # less the WAV header
