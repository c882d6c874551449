"""The plain client's `standings`: the host's players, the best first, each with the rating
on the one scale (± how far off it may be, "=" for a reference bot), games, wins and places,
and what the marks mean."""

from __future__ import annotations

from tests.kits.standingskit import finished_game
from tests.plain.plainkit import InProcess


async def test_standings_lists_each_player_with_their_rating_and_record(url, tmp_path):
    await finished_game(url, "Ann", bot="normal")
    async with InProcess(url, tmp_path / "a") as raven:
        await raven.transcript.until(r"^  1: Ann.s \(table \w+\), .*over\.( Length: .*\.)?$")
        raven.type("standings")
        await raven.transcript.until(r"^#\s+Player\s+Rating\s+Games\s+Wins\s+Places\s+Last seen$")
        first = await raven.transcript.until(r"^(1|2)\s+(Ann|normal bot)\s+")
        second = await raven.transcript.until(r"^(1|2)\s+(Ann|normal bot)\s+")
        rows = {m.group(2): m.string for m in (first, second)}
        assert rows["normal bot"].split()[3:6] == ["1500", "=", "2"]
        ann = rows["Ann"].split()
        assert ann[2].isdigit() and ann[3:6] == ["give", "or", "take"] and ann[6].isdigit()
        assert ann[7:9] in (["1", "0"], ["1", "1"])  # a game, won or not
        await raven.transcript.until(
            r"^Ratings start at 1500, the normal bot's; give or take: how far off"
        )
        await raven.transcript.until(r"^Places: how many games finished 1st/2nd/3rd")
        raven.type("standings 0")
        await raven.transcript.until(r"^standings N: N is the rank to start from")
        raven.type("standings 3")  # past the last row
        await raven.transcript.until(r"^No one from rank 3: the standings have 2 players\.$")
