"""A whole game played through `gother join --plain` from a pipe, against a real server on
127.0.0.1: the script reads what the client prints and answers each decision with one of
the numbered options it listed (some looking commands between). Afterwards the server's
export of the game is replayed with the engine, and every sentence the narrator makes of
it for this seat must be in the client's output, in order: what the client told is what
the server recorded.

The process runs in the C locale, so everything it prints must be ASCII. It runs with
`--verbose`, the whole story (the ear's short telling is tests/plain/test_plain_ear.py's).
"""

from __future__ import annotations

import random
import re

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import ASCII
from gother_tui.core.narrator import Narrator
from protocol.view import SeatInfo, TableInfo
from server.game import Game, dealer_for, default_deck, view
from server.tables.export import GameRecord, game_record
from tests.kits.netkit import Client
from tests.plain.plainkit import CHOOSE, PlainProcess, plain_env

LOOKS = ("hand", "piles", "scores", "who", "discard", "log 3", "hint", "h", "s")


def told_by_the_record(record: GameRecord, seat: int) -> list[str]:
    """The narrator's sentences for `seat` of the exported game, each event told as that
    seat saw it when it happened (a blind draw hidden until the game was over)."""
    players = record.players
    variants = record.variants
    game = Game.new(
        default_deck(),
        len(players),
        record.seed,
        variants,
        dealer_for(record.game, len(players)),
    )
    table = TableInfo(
        variants=variants,
        id=record.table.id,
        name=record.table.name,
        deck=record.table.deck,
        seats=len(players),
        game=record.game,
        spectators=0,
        password=False,
    )
    seats = tuple(
        SeatInfo(s, name, bot=s != seat, connected=True, covered=False, rematch=False)
        for s, name in enumerate(players)
    )
    catalogue = Catalogue(record.cards)
    lines: list[str] = []
    done = 0

    def tell() -> None:
        nonlocal done
        seen = view(game, seat, len(game.events) - done, table=table, seats=seats)
        narrator = Narrator.for_view(seen, catalogue, ASCII, seen.log)
        lines.extend(narrator.tell(event).text for event in seen.log)
        done = len(game.events)

    tell()  # the deal
    for mover, move in record.moves:
        game.apply(mover, move)
        tell()
    return lines


def in_order(wanted: list[str], lines: list[str]) -> tuple[int, str | None]:
    """How many of `wanted` are found in `lines` in order, and the first one missing."""
    at = 0
    for found, line in enumerate(wanted):
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            return found, line
    return len(wanted), None


async def test_a_whole_game_from_a_pipe_tells_what_the_server_recorded(server, url, tmp_path):
    host = await Client.connect(url, "Host")
    created = await host.request("create", name="Pipe", seats=3, bots=2, variants={"round_cap": 30})
    table = created["table"]
    await host.close()
    home = tmp_path / "home"
    env = plain_env(home, LANG="C", LC_ALL="C", TERM="dumb")
    proc = await PlainProcess.start(
        "join", url, "--plain", "--verbose", "--name", "Raven", "--table", table, env=env
    )
    rng = random.Random(11)
    decisions = 0
    try:
        await proc.until(r"^You sit at Pipe \(table \w+\), seat 1 of 3\.$")
        while True:
            found = await proc.until(r"^(Choose 1(?:-(\d+))?|Game over)")
            if found.group(1).startswith("Game over"):
                break
            assert CHOOSE.match(found.group(0))
            decisions += 1
            if rng.random() < 0.3:
                await proc.type(rng.choice(LOOKS))
            await proc.type(str(rng.randint(1, int(found.group(2) or 1))))
        await proc.until(r"^Type rematch to play again, leave to leave the table, or quit\.$")
        await proc.type("rematch")  # the bots agree at once
        dealt = "The cards are dealt: game 2 begins. A capped game: after round 30 the highest"
        await proc.until(rf"^{re.escape(dealt)} Goth wins\.$")  # not the published cap: said
        await proc.type("who", "quit")
        await proc.until(r"^Goodbye\.$")
        assert await proc.wait() == 0
    finally:
        await proc.stop()

    lines = proc.transcript.lines
    lines = lines[: next(i for i, line in enumerate(lines) if line.startswith(dealt))]
    assert proc.raw.isascii(), "the C locale gets ASCII only"
    assert "Traceback" not in "\n".join(lines)
    assert not [line for line in lines if line.startswith(("The server refused", "Not sent"))]
    assert decisions > 10

    record = game_record(server.store.tables, table, 1)
    ours = [move for seat, move in record.moves if seat == 0]
    assert len(ours) >= decisions  # every option played (draw all plays several)
    story = told_by_the_record(record, 0)
    count, missing = in_order(story, lines)
    assert missing is None, f"sentence {count + 1} of {len(story)} not told: {missing!r}"
    assert story[-1].startswith("Game over")
    assert record.views[-1].phase == "over"


async def test_watch_plain_follows_a_table_of_bots_from_a_pipe(server, url, tmp_path):
    host = await Client.connect(url, "Host")
    table = (await host.request("create", name="Show", seats=3, bots=3))["table"]  # starts
    await host.close()
    env = plain_env(tmp_path / "home", LANG="C.UTF-8", TERM="dumb")
    proc = await PlainProcess.start("watch", url, "--plain", "--verbose", "--table", table, env=env)
    try:
        await proc.until(r"^You are watching Show \(table \w+\)\.$")
        await proc.until(r"^Round \d+: \w+'s turn\.$")
        await proc.type("1", "hand")
        await proc.until(r"^You are watching: spectators make no moves\.$")
        await proc.until(r"^You are watching: you hold no hand\.$")
        await proc.type("quit")
        await proc.until(r"^Goodbye\.$")
        assert await proc.wait() == 0
    finally:
        await proc.stop()
    assert b"\x1b" not in proc.raw
