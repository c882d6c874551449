"""The plain client's `review`: after a game, a seat's decisions against the search's, said
in a summary line, the server's line on the whole game and the moments told, each in a
sentence short enough for the ear."""

from __future__ import annotations

import re

from tests.plain.plainkit import InProcess
from tests.tables.test_review import THOUGHT, finished_table


async def test_review_says_the_summary_then_the_moments_told(url, tmp_path):
    table, player = await finished_table(url)
    async with InProcess(url, tmp_path, table=table, watch=True, name="Crow") as crow:
        await crow.transcript.until(r"^You are watching Done")
        crow.type("review")  # a spectator has no seat of its own
        await crow.transcript.until(r"^review SEAT: you are watching, so say whose \(1 to 3\)")
        crow.type("review 4")
        await crow.transcript.until(r"^review SEAT: SEAT is a number from 1 to 3\.$")
        mark = len(crow.transcript.lines)
        crow.type("review 1")
        summary = await crow.transcript.until(
            r"^Player in game 1: (\d+) decisions?, (\d+) as the search would have made them$",
            timeout=THOUGHT,
        )  # one decision or more: a random deal may leave seat 0 only its distribution
        assert ("decisions" in summary[0]) == (int(summary[1]) != 1)
        assert int(summary[2]) <= int(summary[1])
        given_up = await crow.transcript.until(
            r"^You gave up (about (\d+) points of your chance to win, most of it in round 1|"
            r"no chance to win the search could measure)\.$"
        )
        told = await crow.transcript.until(
            r"^(Round 1: you .+ play-outs to the end\.|No moment stands out: .+)$"
        )
        if told[0].startswith("Round 1"):
            assert given_up[2] is not None  # a moment told: some chance was measured lost
        said = crow.transcript.since(mark)
        assert all(len(line) < 400 and "\n" not in line for line in said)
        assert not any(re.match(r"^The server refused", line) for line in said)
        assert [m["t"] for m in crow.sent if m["t"] == "review"] == ["review"]  # checked first
    await player.close()
