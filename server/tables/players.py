"""Who sat in a seat, as a lasting key the ratings and standings hang on: a `PlayerId`.

A person who proved a key is their verified identity (server/edge/identity.py), `id:…`: their
record and rating follow them whatever name they play under, and the name is only shown
(each seat's result carries the name it was played under, and the standings show the
latest). A person who proved none (an anonymous client, or a game from before identities)
is the name the lobby showed for the seat, `name:Ann`. A bot is its difficulty
(`bot:easy`, `bot:normal`, `bot:hard`; a kind with no difficulty keeps its kind,
`bot:random`), a fixed reference whatever a seat calls it. The prefixes keep the three
apart: a person called "bot:easy" is `name:bot:easy`, never the reference bot.
"""

from __future__ import annotations

from typing import NewType

from protocol.constants import PLAYERS_WORD

PlayerId = NewType("PlayerId", str)

BOT = "bot:"
NAME = "name:"
ID = "id:"


def player_id(name: str, bot_kind: str | None, identity: str | None = None) -> PlayerId:
    """The player of a seat: its bot's reference, else its proven identity, else its name."""
    if bot_kind is not None:
        return PlayerId(BOT + PLAYERS_WORD.get(bot_kind, bot_kind))
    if identity is not None:
        return PlayerId(ID + identity)
    return PlayerId(NAME + name)


def identity_in(player: PlayerId) -> str | None:
    """The proven identity a player is, if it is one."""
    return player.removeprefix(ID) if player.startswith(ID) else None


def is_bot(player: PlayerId) -> bool:
    return player.startswith(BOT)


def shown(player: PlayerId, name: str | None = None) -> str:
    """The player as a person reads it: a bot's difficulty with "bot"; a person's `name`
    (the latest they played under), else the name they are, else a mark of their identity."""
    if is_bot(player):
        return f"{player.removeprefix(BOT)} bot"
    if name is not None:
        return name
    if player.startswith(ID):
        return f"player {player.removeprefix(ID)[:6]}"
    return player.removeprefix(NAME)
