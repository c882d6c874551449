"""The `tournament` message of the largest tournament a server takes fits in one frame."""

from __future__ import annotations

from protocol import MAX_FRAME, encode, server_messages
from protocol.constants import NAME_MAX, TOURNAMENT_PLAYERS
from protocol.view import Variants


def test_the_largest_tournament_message_is_one_frame():
    # names as long as they may be, of the widest characters UTF-8 has (4 bytes each: a
    # Fraktur G)
    names = [f"{i:03d}" + "\U0001d50a" * (NAME_MAX - 3) for i in range(TOURNAMENT_PLAYERS)]
    tables = [names[i : i + 3] for i in range(0, TOURNAMENT_PLAYERS, 3)]  # the most tables
    message = server_messages.Tournament(
        id="abcdef",
        name="\U0001d50a" * NAME_MAX,
        rounds=20,
        seats=5,
        duplicate=True,
        variants=Variants(),
        phase="playing",
        round=20,
        players=tuple(names),
        tables=tuple(
            server_messages.TournamentTable(table="abcdef", players=tuple(t), bots=2, over=False)
            for t in tables
        ),
        standings=tuple(
            server_messages.TournamentStanding(
                player=f"name:{n}",
                name=n,
                games=20,
                points=1234.5,
                goth=-12345,
                rating=-12.345678,
                match_points=123.5,
                dropped=True,
            )
            for n in names
        ),
        rid=2**31 - 1,
    )
    assert len(encode(message)) < MAX_FRAME
