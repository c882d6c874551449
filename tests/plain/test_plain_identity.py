"""The plain client's lasting identity (issue 18, item 2), on real websockets to a real
server: the next run is back in its seat by its key, with the seat tokens gone."""

from __future__ import annotations

from tests.plain.plainkit import InProcess


async def test_the_next_run_is_back_in_its_seat_by_its_key_alone(url, tmp_path):
    async with InProcess(url, tmp_path) as first:
        await first.transcript.until(r"^No tables on this server yet")
        first.type("create 3")  # two bots: the table is full, the cards are dealt
        await first.transcript.until(r"^The cards are dealt: game 1 begins\.$")
        first.type("quit")
    (tmp_path / "seats.json").unlink()  # no token kept: only the key in the state folder
    async with InProcess(url, tmp_path) as again:
        await again.transcript.until(r"^You sit at Raven's table \(table \w+\), seat 1 of 3\.$")
        await again.transcript.until(r"^Game 1 is under way\.")
        again.type("quit")
    resumes = [f for f in again.sent if f["t"] == "resume"]
    assert len(resumes) == 1 and "token" not in resumes[0] and "table" in resumes[0]
    assert again.errors() == []
