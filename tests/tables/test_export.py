"""`gother export`: the installed console script writes a game record that replays.

The game is played in-process (conftest's server, on a database file); the export runs as
a subprocess of the real command line, as a host would run it.
"""

from __future__ import annotations

import msgpack
import msgspec

from protocol import requests as rq
from server.game import Card, Deck, Game, Move, Played, Variants
from tests.kits.netkit import Client
from tests.kits.playkit import newest
from tests.kits.prockit import run_cli


async def play_bot_game(url: str, seats: int = 3) -> tuple[str, dict]:
    """A table of bots plays at once; a spectator follows it. (table id, final view)"""
    watcher = await Client.connect(url, "Watcher")
    table = (await watcher.ask(rq.Create(name="Replay me", seats=seats, bots=seats)))["table"]
    assert (await watcher.ask(rq.Watch(table=table)))["t"] == "watching"
    final = (await newest(watcher, lambda m: m["view"]["phase"] == "over"))["view"]
    await watcher.close()
    return table, final


def replay(record: dict) -> Game:
    deck = Deck.of("exported", tuple(Card(**card) for card in record["cards"]))
    return Game.replay(
        deck,
        len(record["players"]),
        record["seed"],
        (Played(seat, msgspec.convert(move, Move)) for seat, move in record["moves"]),
        Variants(**record["variants"]),
    )


async def test_export_replays_to_the_same_end(server, url, config, tmp_path):
    table, final = await play_bot_game(url)
    out = tmp_path / "game.gother"
    code, stdout, stderr = await run_cli("export", "--db", config.db, table, str(out))
    assert code == 0, stderr
    moves = len(server.lobby.tables[table].game.moves)
    assert stdout.strip() == f"wrote {out}: {moves} moves"

    record = msgpack.unpackb(out.read_bytes())
    assert record["table"]["id"] == table and record["game"] == 1
    assert record["players"] == [p["name"] for p in final["players"]]
    assert len(record["moves"]) == moves
    game = replay(record)
    assert game.over
    assert list(game.winners or ()) == final["winner"] and final["winner"]
    # the whole end position, not only the winner: hands, Fate piles and piles revealed
    for seat, player in enumerate(final["players"]):
        assert game.fates[seat] == player["fate"]
        assert sorted(game.hands[seat]) == sorted(player["hand"])
    assert game.discard == final["discard"]
    assert game.draw_pile == final["reveal"]["draw_pile"]


async def test_export_of_a_game_in_progress_replays_to_its_position(server, url, config, tmp_path):
    player = await Client.connect(url, "Human")
    table = (await player.ask(rq.Create(name="Ongoing", seats=3, bots=2)))["table"]
    await player.ask(rq.Join(table=table))
    waiting = await newest(player, lambda m: m["view"]["legal"] is not None)
    out = tmp_path / "ongoing.gother"
    code, _, stderr = await run_cli("export", "--db", config.db, table, str(out))
    assert code == 0, stderr
    game = replay(msgpack.unpackb(out.read_bytes()))
    assert not game.over and game.to_act() == 0
    assert sorted(game.hands[0]) == sorted(waiting["view"]["you"]["hand"])
    await player.close()


async def test_bad_arguments_fail_with_one_clear_line(server, url, config, tmp_path):
    table, _ = await play_bot_game(url)
    out = tmp_path / "out.gother"
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all " * 200)
    cases = [
        (["--db", str(tmp_path / "none.db"), table, str(out)], "no database at"),
        (["--db", config.db, "nosuchtable", str(out)], "no table 'nosuchtable'"),
        (["--db", config.db, table, str(out), "--game", "7"], "has no game 7"),
        (["--db", str(garbage), table, str(out)], "not a readable game database"),
        (["--db", config.db, table, str(tmp_path / "no" / "dir" / "x")], "cannot write"),
    ]
    for args, expected in cases:
        code, stdout, stderr = await run_cli("export", *args)
        assert code == 1, (args, stderr)
        assert stdout == ""
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gother export: "), stderr
        assert expected in lines[0]
        assert not out.exists()

    for args in (["--db", config.db, table], ["--db", config.db], [table, str(out)], []):
        code, stdout, stderr = await run_cli("export", *args)
        assert code == 2, (args, stderr)  # argparse: a usage line, then the error
        assert "Traceback" not in stderr
        last = stderr.strip().splitlines()[-1]
        assert last.startswith("gother export: error: the following arguments are required")
        assert not out.exists()
